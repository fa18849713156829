/**
 * Over 300 lines: a table per way an attempt ends (its parts, a rejection and its retry, an abort).
 * attempts.ts: each provider request of the model `observedModel` wraps (`doStream` / `doGenerate`) is an
 * attempt of the run (docs/conventions.md#span-roles), read part by part into its facts
 * (docs/conventions.md#fact-events): the side-effect boundary, the output, the finish and its reasons
 * (#finish-reasons-by-meaning), or the error that ended it (#how-errors-are-classified). A rejection the
 * SDK will retry gets `retry_issued` before the backoff, within the call's `maxRetries`. An abort of the
 * call's signal is read for why: the run's stop, an SDK watchdog, or a signal the run does not own
 * (docs/conventions.md#supported-conventions). The call always goes on: the stream reaches the caller
 * unchanged, and an observer that fails leaves it unobserved. Real `ai` 6 (`wrapLanguageModel`,
 * `MockLanguageModelV3`, `generateText` on the fake provider) and a real tracer.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { APICallError } from '@ai-sdk/provider';
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { context, diag, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { LanguageModel } from 'ai';
import { generateText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { observedModel } from '../../src/ai-sdk/attempts.js';
import type { ToolLike } from '../../src/ai-sdk/tool-classes.js';
import type { ToolSideEffects } from '../../src/model/enums.js';
import { reply, startFakeProvider } from '../../src/testing/fake-provider.js';
import { errors } from '../support/harness.js';
import type { ObservedRunOptions } from './observed-run.js';
import { brief, observedRun } from './observed-run.js';

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => {
  context.disable();
});

type Step = LanguageModelV3StreamPart | Error | 'stall';
const part = (fields: Record<string, unknown>) => fields as unknown as LanguageModelV3StreamPart;
const START = part({ type: 'stream-start', warnings: [] });
const TEXT = part({ type: 'text-delta', id: 't', delta: 'Hello' });
const REASONING = part({ type: 'reasoning-delta', id: 'r', delta: 'Hmm' });
const SOURCE = part({ type: 'source', sourceType: 'url', id: 's', url: 'https://example.com' });
const ERROR = part({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
const finish = (reason?: unknown) => part({ type: 'finish', finishReason: reason, usage: {} });
const STOP = finish({ unified: 'stop', raw: 'stop' });
const timeout = (message: string) => new DOMException(message, 'TimeoutError');

/** A provider stream that plays `steps` one read at a time: an Error breaks it, `stall` never answers. */
function played(steps: readonly Step[]): ReadableStream<LanguageModelV3StreamPart> {
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      const step = steps[next++];
      if (step === undefined) controller.close();
      else if (step === 'stall') return new Promise<void>(() => undefined);
      else if (step instanceof Error) controller.error(step);
      else controller.enqueue(step);
      return undefined;
    },
  });
}

const streaming = (steps: readonly Step[]) =>
  new MockLanguageModelV3({ doStream: async () => ({ stream: played(steps) }) });

/** A run and one call, with the call's model observed and a request as the SDK makes it. */
function setup(options: ObservedRunOptions = {}) {
  const observed = observedRun({ cancelOrigin: 'client_disconnect', ...options });
  const observe = (model: LanguageModel) => observedModel(observed.run, observed.state, model) as LanguageModelV3;
  const request = (tools: LanguageModelV3CallOptions['tools'] = []): LanguageModelV3CallOptions => ({
    prompt: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    tools,
    abortSignal: observed.signal,
  });
  /** Streams `steps` through the observed model and reads them all, as the SDK does. */
  const stream = async (steps: readonly Step[], tools?: LanguageModelV3CallOptions['tools']) =>
    readAll((await observe(streaming(steps)).doStream(request(tools))).stream);
  return { ...observed, observe, request, stream };
}

async function readAll(stream: ReadableStream<unknown>): Promise<unknown[]> {
  const parts: unknown[] = [];
  for await (const value of stream) parts.push(value);
  return parts;
}

describe('observedModel', () => {
  const v3 = streaming([START, STOP]);
  it.each<[string, LanguageModel]>([
    ['a LanguageModelV3 object', v3],
    ['a string id, resolved through the global default provider as the SDK resolves it', 'mock-model-id'],
  ])('%s is wrapped: each request is an attempt of the run', async (_what, model) => {
    const global = globalThis as { AI_SDK_DEFAULT_PROVIDER?: unknown };
    global.AI_SDK_DEFAULT_PROVIDER = { languageModel: () => v3 };
    try {
      const { observe, request, ended, run } = setup();
      const observed = observe(model);
      await readAll((await observed.doStream(request())).stream);
      expect([observed === model, observed.modelId, run.unobserved]).toEqual([false, v3.modelId, false]);
      expect(ended().names).toEqual([['side_effect_boundary', 'attempt_finished']]);
    } finally {
      delete global.AI_SDK_DEFAULT_PROVIDER;
    }
  });

  it('returns a model of an older specification as is, and the run knows its attempts are not observed', () => {
    const warn = vi.spyOn(diag, 'warn');
    try {
      const { observe, run } = setup();
      const v2 = { ...streaming([]), specificationVersion: 'v2' } as unknown as LanguageModel;
      expect(observe(v2)).toBe(v2);
      expect(run.unobserved).toBe(true);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('its attempts are not observed'));
    } finally {
      warn.mockRestore();
    }
  });

  it('the attempt span is the SDK span active at the request, adopted once; never the run span, nor a span adopted already', async () => {
    const { stream, recorder, tracer, run } = setup();
    const sdk = tracer.startSpan('ai.streamText.doStream', {}, recorder.context);
    // ai 7's generateText retries inside one `chat` span: only its first request adopts it.
    await context.with(trace.setSpan(recorder.context, sdk), async () => [
      await stream([START, STOP]),
      await stream([START, STOP]),
    ]);
    await context.with(recorder.context, () => stream([START, STOP]));
    expect(run.attempts.map((a) => [a.span === sdk, a.span === recorder.span, a.number])).toEqual([
      [true, false, 1],
      [false, false, 2],
      [false, false, 3],
    ]);
  });
});

describe('a streamed attempt: each part is the fact it shows', () => {
  const LENGTH = finish('length');
  // Each row: the facts of the attempt after its boundary, the parts the provider streams, its finish reasons.
  it.each<[string, string, Step[], string[] | undefined]>([
    ['text, then the finish', 'text_output_started attempt_finished', [START, TEXT, STOP], ['stop']],
    ['reasoning, a string reason', 'reasoning_output_started attempt_finished', [START, REASONING, LENGTH], ['length']],
    ['a finish without a reason', 'text_output_started attempt_finished', [START, TEXT, finish()], undefined],
    ['a source, other output', 'provider_progress attempt_finished', [START, SOURCE, STOP], ['stop']],
    ['an error part, a finish after it', 'text_output_started provider_error', [START, TEXT, ERROR, STOP], undefined],
  ])('%s → %s, and the caller reads the parts unchanged', async (_what, facts, steps, finishReasons) => {
    const { stream, ended, run, exported } = setup();
    expect(await stream(steps)).toEqual(steps);
    const span = exported(run.attempts[0]!.span);
    expect(ended().names).toEqual([['side_effect_boundary', ...facts.split(' ')]]);
    expect(span?.attributes['gen_ai.response.finish_reasons']).toEqual(finishReasons);
  });

  it.each<[string, ObservedRunOptions, Record<string, unknown>, ToolSideEffects, boolean]>([
    ['a declared tool has its class', { declared: { run_shell: 'unsafe' } }, {}, 'unsafe', false],
    ['an undeclared tool is unknown, the cautious class', {}, {}, 'unknown', false],
    ['a provider tool with no local execute', { tools: { run_shell: { type: 'provider' } } }, {}, 'unknown', true],
    [
      'a part saying the provider ran it',
      { declared: { run_shell: 'read_only' } },
      { providerExecuted: true },
      'read_only',
      true,
    ],
  ])('tool parts: %s', async (_what, options, extra, sideEffects, providerExecuted) => {
    const { stream, ended } = setup(options);
    await stream([
      START,
      part({ type: 'tool-input-start', id: 'c1', toolName: 'run_shell', ...extra }),
      part({ type: 'tool-call', toolCallId: 'c1', toolName: 'run_shell', input: '{}', ...extra }),
      finish({ unified: 'tool-calls', raw: 'tool_calls' }),
    ]);
    // `name` and the values of its attributes: provider execution, side-effect class, tool name, call id.
    expect(ended().attempts[0]?.slice(1, 3).map(brief)).toEqual([
      `tool_input_started ${providerExecuted} run_shell`,
      `tool_call_materialized ${sideEffects} ${providerExecuted} run_shell c1`,
    ]);
  });

  it('records the side-effect boundary of the tools the request exposes, by class', async () => {
    const { stream, ended } = setup({
      declared: { read_file: 'read_only', run_shell: 'unsafe' },
      tools: { web_search: { type: 'provider' } },
    });
    await stream(
      [START, STOP],
      [
        { type: 'function', name: 'read_file', inputSchema: {} },
        { type: 'function', name: 'run_shell', inputSchema: {} },
        { type: 'provider', id: 'openai.web_search', name: 'web_search', args: {} },
      ],
    );
    expect(ended().attempts[0]?.[0]?.attributes).toMatchObject({
      'boundary.read_only_tools': ['read_file'],
      'boundary.unsafe_tools': ['run_shell'],
      'boundary.unknown_tools': ['web_search'],
      'boundary.provider_executed_tools': ['web_search'],
    });
  });

  it('a stream that breaks fails the attempt with the code of its cause, and the caller gets the same error', async () => {
    const { stream, ended } = setup();
    const drop = errors.socketDrop();
    await expect(stream([START, TEXT, drop])).rejects.toBe(drop);
    const { attempts, incident } = ended();
    expect(attempts[0]?.map((f) => f.name)).toEqual(['side_effect_boundary', 'text_output_started', 'provider_error']);
    expect(attempts[0]?.[2]?.attributes['error.code']).toBe('UND_ERR_SOCKET');
    expect(incident).toMatchObject({ cause: 'provider_transport_disconnect', phase: 'text_generation' });
  });

  it('a stream that closes without the provider’s finish did not finish: never a success', async () => {
    const { stream, ended } = setup();
    await stream([START, TEXT]);
    const { names, incident } = ended();
    expect(names).toEqual([['side_effect_boundary', 'text_output_started']]);
    expect(incident.outcome).not.toBe('success');
    expect(incident.missingFacts).toContain('terminal_event_missing');
  });
});

describe('a request rejected before its stream', () => {
  const rejection = (statusCode: number) =>
    new APICallError({
      message: `HTTP ${statusCode}`,
      url: 'http://127.0.0.1/',
      requestBodyValues: {},
      statusCode,
      isRetryable: statusCode >= 500,
    });

  it.each<[string, number, (number | 'ok')[], number[]]>([
    ['three retryable rejections within maxRetries 2: the first two are retried', 2, [503, 503, 503], [1, 2]],
    ['a rejection that is not retryable is not retried', 2, [400], []],
    ['with maxRetries 0 nothing is retried', 0, [503], []],
    ['a request that got its stream starts the count again', 1, [503, 'ok', 503], [1, 3]],
  ])('%s', async (_what, maxRetries, outcomes, retried) => {
    const { observe, request, ended } = setup({ maxRetries });
    for (const outcome of outcomes) {
      const error = outcome === 'ok' ? undefined : rejection(outcome);
      const model = new MockLanguageModelV3({
        doStream: async () => (error ? Promise.reject(error) : { stream: played([START, STOP]) }),
      });
      const response = observe(model).doStream(request());
      if (error) await expect(response).rejects.toBe(error);
      else await readAll((await response).stream);
    }
    const facts = ended();
    expect(facts.run.filter((e) => e.name === 'retry_issued').map((e) => e.attributes['retry.of_attempt'])).toEqual(
      retried,
    );
    expect(facts.names.map((names) => names.at(-1))).toEqual(
      outcomes.map((o) => (o === 'ok' ? 'attempt_finished' : 'provider_error')),
    );
  });

  it("on the real SDK, generateText's own retries are the attempts, each on the SDK's doGenerate span", async () => {
    const fake = await startFakeProvider();
    try {
      const busy = reply.status(503, { 'retry-after': '0' });
      fake.enqueue(busy, busy, reply.text('Hi'));
      const { observe, recorder, run, tracer, ended, exported } = setup({ maxRetries: 2 });
      const model = observe(createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' }).chat('gpt-4o-mini'));
      await context.with(recorder.context, () =>
        generateText({ model, prompt: 'Hi', maxRetries: 2, experimental_telemetry: { isEnabled: true, tracer } }),
      );
      const facts = ended();
      const spans = run.attempts.map((a) => exported(a.span));
      expect(spans.map((s) => [s?.name, s?.attributes['agent_incidents.attempt.number']])).toEqual([
        ['ai.generateText.doGenerate', 1],
        ['ai.generateText.doGenerate', 2],
        ['ai.generateText.doGenerate', 3],
      ]);
      expect(facts.run.map(brief)).toEqual(['retry_issued 1', 'retry_issued 2']);
      expect(facts.incident).toMatchObject({ outcome: 'recovered', attempts: 3, recoveredAttempts: 2 });
    } finally {
      await fake.close();
    }
  });

  it('a whole answer (doGenerate) is read as its parts, and returned as the model gave it', async () => {
    const { observe, request, ended, run, exported } = setup({ declared: { run_shell: 'unsafe' } });
    const result = {
      content: [
        { type: 'reasoning', text: 'Hmm' },
        { type: 'text', text: 'Running it.' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'run_shell', input: '{}' },
      ],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage: {},
      warnings: [],
    } as unknown as Awaited<ReturnType<LanguageModelV3['doGenerate']>>;
    expect(await observe(new MockLanguageModelV3({ doGenerate: async () => result })).doGenerate(request())).toBe(
      result,
    );
    const span = exported(run.attempts[0]!.span);
    const [facts] = ended().attempts;
    expect(facts?.slice(1).map((f) => f.name)).toEqual([
      'reasoning_output_started',
      'text_output_started',
      'tool_call_materialized',
      'attempt_finished',
    ]);
    expect(facts?.[3]?.attributes['tool.side_effects']).toBe('unsafe');
    expect(span?.attributes['gen_ai.response.finish_reasons']).toEqual(['tool-calls']);
  });
});

describe("why the call's signal fired", () => {
  // The SDK's watchdogs abort with a TimeoutError named by its message (its total timeout's names no
  // budget: the call's `timeout`, 900 ms here, is it); `stop` is the run's stop, `caller` the call's own signal.
  it.each<[string, boolean, string]>([
    ['Chunk timeout of 50ms exceeded', true, 'attempt: watchdog_fired silent_stream 50'],
    ['Chunk timeout of 50ms exceeded', false, 'attempt: watchdog_fired connect 50'],
    ['First chunk timeout of 70ms exceeded', true, 'attempt: watchdog_fired connect 70'],
    ['Step timeout of 300ms exceeded', true, 'attempt: watchdog_fired total 300'],
    ['The operation was aborted due to timeout', true, 'attempt: watchdog_fired total 900'],
    ['stop', true, 'run: user_cancel client_disconnect'],
    ['caller', true, 'run: user_cancel unknown'],
  ])('%s (after output: %s) → %s', async (fire, progress, want) => {
    const s = setup({ timeout: { totalMs: 900 } });
    const steps = progress ? [START, TEXT, 'stall' as const] : [START, 'stall' as const];
    const reader = (await s.observe(streaming(steps)).doStream(s.request())).stream.getReader();
    for (let i = 1; i < steps.length; i += 1) await reader.read();
    if (fire === 'stop') s.stop.abort();
    else if (fire === 'caller') s.caller.abort();
    else s.caller.abort(timeout(fire));
    // The attempt ended then, not cut off at the run's end.
    expect(s.run.attempts[0]?.ended).toBe(true);
    const facts = s.ended();
    const [where, event] = want.split(': ');
    expect(brief(where === 'attempt' ? facts.attempts[0]?.at(-1) : facts.run.at(-1))).toBe(event);
    await reader.cancel();
  });

  it.each<[string, number, boolean, string[]]>([
    ['between attempts, with no tool running, an abort of the call stops nothing', 0, false, []],
    ['between attempts while a tool runs, the total timeout is the run’s', 1, false, ['watchdog_fired total 900']],
    ['after the call finished, its late timer means nothing', 1, true, []],
  ])('%s', async (_what, runningTools, finished, runFacts) => {
    const s = setup({ timeout: 900 });
    await s.stream([START, TEXT, STOP]);
    s.state.runningTools = runningTools;
    s.state.finished = finished;
    s.caller.abort(timeout('The operation was aborted due to timeout'));
    const facts = s.ended();
    expect(facts.run.map(brief)).toEqual(runFacts);
    expect(facts.names).toEqual([['side_effect_boundary', 'text_output_started', 'attempt_finished']]);
  });

  it("lands on the call's latest attempt, the one streaming", async () => {
    const s = setup();
    await s.stream([START, TEXT, STOP]);
    const reader = (await s.observe(streaming([START, TEXT, 'stall'])).doStream(s.request())).stream.getReader();
    await reader.read();
    await reader.read();
    s.caller.abort(timeout('Chunk timeout of 50ms exceeded'));
    expect(s.ended().names.map((names) => names.at(-1))).toEqual(['attempt_finished', 'watchdog_fired']);
    await reader.cancel();
  });

  it('a signal already aborted when the request starts is read at once', async () => {
    const s = setup();
    const request = { ...s.request(), abortSignal: AbortSignal.abort(timeout('Chunk timeout of 10ms exceeded')) };
    await readAll((await s.observe(streaming([START, STOP])).doStream(request)).stream);
    expect(brief(s.ended().attempts[0]?.at(-1))).toBe('watchdog_fired connect 10');
  });

  it('a request that fails because its signal fired is not recorded as a provider failure', async () => {
    const s = setup();
    const aborted = new DOMException('This operation was aborted', 'AbortError');
    const model = new MockLanguageModelV3({
      doStream: async () => {
        s.caller.abort(timeout('Chunk timeout of 40ms exceeded'));
        throw aborted;
      },
    });
    await expect(s.observe(model).doStream(s.request())).rejects.toBe(aborted);
    const facts = s.ended();
    expect([facts.names, facts.run]).toEqual([[['side_effect_boundary', 'watchdog_fired']], []]);
    expect(s.state.failuresInARow).toBe(0); // Not a failure the SDK retries.
  });
});

describe('observing never breaks the call', () => {
  it('an observer that fails leaves the request unobserved, and the caller gets the provider’s stream', async () => {
    const throwing = Object.defineProperty({}, 'run_shell', {
      enumerable: true,
      get: () => {
        throw new Error('observer bug');
      },
    }) as Record<string, ToolLike>;
    const { stream, run } = setup({ tools: throwing });
    const steps = [START, TEXT, STOP];
    expect(await stream(steps, [{ type: 'function', name: 'run_shell', inputSchema: {} }])).toEqual(steps);
    expect(run.attempts).toEqual([]);
  });
});

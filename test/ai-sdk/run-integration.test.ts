/**
 * run-integration.ts: the run's telemetry integration of one call. `ai` 6's `onStart` keeps the SDK's
 * call span (it may never end on a broken stream: the run ends it, docs/conventions.md#supported-conventions);
 * `onFinish` / `onEnd` say the call ended, so a late timer of its signal means nothing. Each tool
 * execution is adopted from the SDK's tool span (`ai.toolCall` on 6, through `onToolCallStart` /
 * `onToolCallFinish`; `execute_tool <name>` or `ai.toolCall` on 7, through `executeTool`) or, without
 * one, recorded on a span of the run's own, with its side-effect class and the attempt that called it
 * (docs/conventions.md#tool-executions). It ends completed, failed (its kind from the error) or, when
 * the call's abort or the run's stop stopped it, interrupted; the count of tools running (which decides
 * whether a run-wide timeout matters) goes up and down with it. Real `ai` 6 and a real tracer.
 */
import { createOpenAI } from '@ai-sdk/openai';
import type { Span } from '@opentelemetry/api';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { observedModel } from '../../src/ai-sdk/attempts.js';
import { runIntegration } from '../../src/ai-sdk/run-integration.js';
import { reply, startFakeProvider } from '../../src/testing/fake-provider.js';
import { brief, observedRun } from './observed-run.js';

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => {
  context.disable();
});

/** A run with one attempt streaming, and its integration for one call that exposes `run_shell` (unsafe). */
function setup() {
  const observed = observedRun({ declared: { run_shell: 'unsafe' } });
  const attempt = observed.recorder.startAttempt();
  observed.run.attempts.push(attempt);
  const integration = runIntegration(observed.run, observed.state);
  /** A span the SDK starts inside the run. */
  const sdkSpan = (name: string) => observed.tracer.startSpan(name, {}, observed.recorder.context);
  /** Runs `body` with `span` active, as the SDK runs its callbacks. */
  const within = <T>(span: Span | undefined, body: () => T): T =>
    span ? context.with(trace.setSpan(context.active(), span), body) : body();
  /** The exported spans that carry a tool's side-effect class: `[name, class, attempt number]`. */
  const toolSpans = () =>
    observed.exporter.spans
      .filter((s) => s.attributes['agent_incidents.tool.side_effects'] !== undefined)
      .map((s) => [
        s.name,
        s.attributes['agent_incidents.tool.side_effects'],
        s.attributes['agent_incidents.attempt.number'],
      ]);
  return { ...observed, attempt, integration, sdkSpan, within, toolSpans };
}

const call = { toolName: 'run_shell', toolCallId: 'c1' };
const enoent = () => Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' });
const abortError = () => new DOMException('This operation was aborted', 'AbortError');

describe('the call itself', () => {
  it.each<[string, 'sdk' | 'run' | 'none' | 'ended', boolean]>([
    ["the SDK's call span is kept, for the run to end", 'sdk', true],
    ['the run span itself is not', 'run', false],
    ['without an active span nothing is', 'none', false],
    ['a span already ended is not', 'ended', false],
  ])('onStart (ai 6): %s', (_what, active, kept) => {
    const { integration, run, recorder, sdkSpan, within } = setup();
    const span = active === 'run' ? recorder.span : active === 'none' ? undefined : sdkSpan('ai.streamText');
    if (active === 'ended') span?.end();
    within(span, () => integration.onStart?.({} as never));
    expect(run.sdkSpans).toEqual(kept ? [span] : []);
  });

  it.each(['onFinish', 'onEnd'] as const)('%s says the call finished and stops watching its signal', (hook) => {
    const { integration, state } = setup();
    let unwatched = 0;
    state.unwatch = () => (unwatched += 1);
    (integration[hook] as () => void)();
    expect([state.finished, unwatched]).toEqual([true, 1]);
  });
});

describe('ai 6 tools: onToolCallStart and onToolCallFinish', () => {
  it.each<[string, Record<string, unknown>, boolean, string[]]>([
    ['a tool that returned completed', { success: true }, false, []],
    [
      'a tool that threw failed, its kind from the error',
      { success: false, error: enoent() },
      false,
      ['tool_execution_failed environment ENOENT'],
    ],
    [
      "a tool stopped by the call's abort was interrupted",
      { success: false, error: abortError(), abortSignal: AbortSignal.abort() },
      false,
      ['tool_execution_interrupted'],
    ],
    [
      "a tool that threw after the run's stop was interrupted",
      { success: false, error: abortError() },
      true,
      ['tool_execution_interrupted'],
    ],
  ])('%s', (_what, finished, stopped, facts) => {
    const { integration, state, stop, sdkSpan, within, toolSpans, facts: factsOf } = setup();
    const span = sdkSpan('ai.toolCall');
    within(span, () => integration.onToolCallStart?.({ toolCall: call } as never));
    expect(state.runningTools).toBe(1);
    if (stopped) stop.abort();
    integration.onToolCallFinish?.({ toolCall: call, ...finished } as never);
    expect(state.runningTools).toBe(0);
    span.end(); // The SDK ends its span; the run never does.
    expect(toolSpans()).toEqual([['ai.toolCall', 'unsafe', 1]]);
    expect(factsOf(span).map(brief)).toEqual(facts);
  });

  it('without an active span a tool is counted running but not recorded, and the count never goes below zero', () => {
    const { integration, state, run, toolSpans } = setup();
    integration.onToolCallStart?.({ toolCall: call } as never);
    expect([state.runningTools, run.tools.size]).toEqual([1, 0]);
    integration.onToolCallFinish?.({ toolCall: call, success: true } as never);
    integration.onToolCallFinish?.({ toolCall: call, success: true } as never);
    expect(state.runningTools).toBe(0);
    expect(toolSpans()).toEqual([]);
  });
});

describe('ai 7 tools: executeTool', () => {
  it.each<[string, string | undefined, string]>([
    ["@ai-sdk/otel's execute_tool span is adopted", 'execute_tool run_shell', 'execute_tool run_shell'],
    ["LegacyOpenTelemetry's ai.toolCall span is adopted", 'ai.toolCall', 'ai.toolCall'],
    ['another active span is not a tool span: the run records its own', 'chat gpt-4o-mini', 'execute_tool run_shell'],
    ['without an active span the run records its own', undefined, 'execute_tool run_shell'],
  ])('%s, and the tool counts as running while it runs', async (_what, active, recordedOn) => {
    const { integration, state, run, sdkSpan, within, toolSpans } = setup();
    const span = active === undefined ? undefined : sdkSpan(active);
    let during: number[] = [];
    const value = await within(span, () =>
      integration.executeTool!({
        toolCallId: 'c1',
        toolCall: { toolName: 'run_shell' },
        execute: async () => {
          during = [state.runningTools, run.toolsRunning.size];
          return 'done';
        },
      }),
    );
    span?.end();
    expect(value).toBe('done');
    expect([during, [state.runningTools, run.toolsRunning.size]]).toEqual([
      [1, 1],
      [0, 0],
    ]);
    expect(toolSpans()).toEqual([[recordedOn, 'unsafe', 1]]);
  });

  it.each<[string, 'none' | 'call' | 'run', string]>([
    ['a tool that throws failed, its kind from the error', 'none', 'tool_execution_failed environment ENOENT'],
    ["a tool that throws once the call's signal fired was interrupted", 'call', 'tool_execution_interrupted'],
    ['a tool that throws once the run was stopped was interrupted', 'run', 'tool_execution_interrupted'],
  ])('%s, and the caller gets its error', async (_what, aborted, fact) => {
    const { integration, state, stop, exporter, facts } = setup();
    if (aborted === 'call') state.signal = AbortSignal.abort();
    const error = aborted === 'none' ? enoent() : abortError();
    const execute = async (): Promise<never> => {
      if (aborted === 'run') stop.abort();
      throw error;
    };
    await expect(integration.executeTool!({ toolCall: { toolName: 'run_shell' }, execute })).rejects.toBe(error);
    const span = exporter.spans.find((s) => s.name === 'execute_tool run_shell');
    expect(span && facts(span).map(brief)).toEqual([fact]);
    expect(state.runningTools).toBe(0);
  });

  it("the run's stop interrupts a running tool at once, and its late end changes nothing", async () => {
    const { integration, stop, exporter, facts } = setup();
    let finish: (value: string) => void = () => undefined;
    const running = integration.executeTool!({
      toolCall: { toolName: 'run_shell' },
      execute: () => new Promise<string>((resolve) => (finish = resolve)),
    });
    stop.abort();
    const span = exporter.spans.find((s) => s.name === 'execute_tool run_shell');
    expect(span && facts(span).map(brief)).toEqual(['tool_execution_interrupted']);
    finish('done');
    expect(await running).toBe('done');
    expect(exporter.spans.filter((s) => s.name === 'execute_tool run_shell')).toHaveLength(1);
  });

  it('a call that names no tool records it as unknown', async () => {
    const { integration, toolSpans } = setup();
    await integration.executeTool!({ execute: async () => 'done' });
    expect(toolSpans()).toEqual([['execute_tool unknown', 'unknown', 1]]);
  });
});

describe('on the real SDK (ai 6)', () => {
  it("adopts the ai.toolCall span with the tool's class and attempt, keeps the call span, and sees the call end", async () => {
    const fake = await startFakeProvider();
    try {
      fake.enqueue(reply.toolCall('read_file', { path: 'README.md' }), reply.text('It says hello.'));
      const { recorder, run, state, tracer, exporter, ended } = observedRun({ declared: { read_file: 'read_only' } });
      const model = observedModel(
        run,
        state,
        createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' }).chat('gpt-4o-mini'),
      );
      const tools = {
        read_file: tool({ inputSchema: z.object({ path: z.string() }), execute: async () => 'hello' }),
      };
      await context.with(recorder.context, async () => {
        const result = streamText({
          model,
          tools,
          prompt: 'What does README.md say?',
          stopWhen: stepCountIs(3),
          experimental_telemetry: { isEnabled: true, tracer, integrations: [runIntegration(run, state)] },
        });
        for await (const part of result.fullStream) void part;
      });
      const { incident } = ended();
      const toolSpan = exporter.spans.find((s) => s.name === 'ai.toolCall');
      expect([
        toolSpan?.attributes['agent_incidents.tool.side_effects'],
        toolSpan?.attributes['agent_incidents.attempt.number'],
      ]).toEqual(['read_only', 1]);
      expect(run.sdkSpans.map((s) => (s as unknown as { name: string }).name)).toEqual(['ai.streamText']);
      expect([state.finished, state.runningTools]).toEqual([true, 0]);
      expect(incident).toMatchObject({ outcome: 'success', sideEffects: 'read_only', attempts: 2 });
    } finally {
      await fake.close();
    }
  });
});

// Over 300 lines: one describe per promise of the processor's JSDoc, each needing a real provider and exact attribute maps.
/**
 * IncidentSpanProcessor's promises (src/sdk/incident-span-processor.ts), on a
 * real BasicTracerProvider with the processor in front of an exporter that
 * keeps every span: the verdict on the run span as it ends, an attempt's
 * verdict on its span, open spans cut off at their run's end, every span
 * sanitized, options checked at construction, open runs finalized on flush,
 * age and shutdown, counters, and a hook that never throws. Plain GenAI spans
 * with explicit times, so each expected attribute map is exact. The README
 * guarantees across edges are test/processor-guarantees.test.ts.
 */
import type { Attributes, Span } from '@opentelemetry/api';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConventionAdapter } from '../../src/conventions/adapter.js';
import type { IncidentSpanProcessorOptions } from '../../src/sdk/options.js';
import { IncidentSpanProcessor } from '../../src/sdk/incident-span-processor.js';
import { KeepingExporter } from '../support/keeping-exporter.js';
import { CollectingReader } from '../support/metrics.js';

const T0 = 1_700_000_000_000;
const RUN = { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.provider.name': 'openai' };
const CHAT = { 'gen_ai.operation.name': 'chat' };
const TOOL = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'bash' };
const SECRET = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';

/** The processor first, then an exporter keeping what it is given; `wrap` may stand in for the processor. */
function pipeline(
  options: IncidentSpanProcessorOptions = {},
  wrap: (processor: IncidentSpanProcessor) => SpanProcessor = (processor) => processor,
) {
  const exporter = new KeepingExporter();
  const processor = new IncidentSpanProcessor({ sweepIntervalMillis: 0, ...options });
  const provider = new BasicTracerProvider({ spanProcessors: [wrap(processor), new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('unit');
  const start = (name: string, attributes: Attributes, parent?: Span, at = 0): Span =>
    tracer.startSpan(
      name,
      { attributes, startTime: T0 + at },
      parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT,
    );
  const exported = (name: string): ReadableSpan => {
    const span = exporter.spans.find((s) => s.name === name);
    if (!span) throw new Error(`no exported span ${name}`);
    return span;
  };
  return { exporter, processor, provider, start, exported };
}

/** A run whose one chat call dropped its connection while a tool it started was still running. */
function droppedRun(
  p: ReturnType<typeof pipeline>,
  runAttributes: Attributes = RUN,
  chatAttributes: Attributes = CHAT,
): void {
  const run = p.start('invoke_agent', runAttributes);
  const chat = p.start('chat', chatAttributes, run, 1);
  chat.recordException({ name: 'ConnectionResetError', message: 'read ECONNRESET' });
  chat.setStatus({ code: 2 });
  chat.end(T0 + 5);
  p.start('execute_tool', TOOL, run, 6);
  run.end(T0 + 10);
}

const FAILED_RUN_VERDICT = {
  'incident.outcome': 'failed',
  'incident.side_effects': 'unknown',
  'incident.facts_complete': false,
  'incident.attempts': 1,
  'incident.recovered_attempts': 0,
  'incident.schema_version': 8,
  // The dropped attempt reported no usage: nothing counted, and said to be a floor.
  'incident.lost.attempts': 1,
  'incident.lost.input_tokens': 0,
  'incident.lost.output_tokens': 0,
  'incident.lost.lower_bound': true,
  'incident.missing_facts': ['side_effect_boundary_missing', 'provider_progress_missing', 'open_child_spans'],
  'incident.cause': 'provider_transport_disconnect',
  'incident.cause.detail': 'connection_reset',
  'incident.phase': 'unknown',
  'incident.retry_safety': 'ask_user_before_retry',
  'incident.retry_safety.reason': 'tool_execution_started',
  'incident.retryable': true,
  'incident.error.code': 'ECONNRESET',
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('adds incident attributes to the run span as it ends', () => {
  it('a run whose call finished: success, facts complete', () => {
    const p = pipeline();
    const run = p.start('invoke_agent', RUN);
    const chat = p.start('chat', { ...CHAT, 'gen_ai.response.finish_reasons': ['stop'] }, run, 1);
    chat.end(T0 + 2);
    run.end(T0 + 3);
    expect(p.exported('invoke_agent').attributes).toEqual({
      ...RUN,
      'incident.outcome': 'success',
      'incident.side_effects': 'none',
      'incident.facts_complete': true,
      'incident.attempts': 1,
      'incident.recovered_attempts': 0,
      'incident.schema_version': 8,
    });
    expect(p.exported('invoke_agent').status).toEqual({ code: 0 });
  });

  it('a run whose call dropped: the cause, its phase and retry safety, and an error status naming the cause', () => {
    const p = pipeline();
    droppedRun(p);
    expect(p.exported('invoke_agent').attributes).toEqual({
      ...RUN,
      ...FAILED_RUN_VERDICT,
      'error.type': 'provider_transport_disconnect',
    });
    expect(p.exported('invoke_agent').status).toEqual({
      code: 2,
      message: 'provider_transport_disconnect (connection_reset)',
    });
  });

  it.each([
    ['writes error.type where the instrumentation left none', {}, 'provider_transport_disconnect'],
    ["keeps the instrumentation's error.type", { 'error.type': 'ConnectionResetError' }, 'ConnectionResetError'],
  ])('%s', (_promise, extra, errorType) => {
    const p = pipeline();
    droppedRun(p, { ...RUN, ...extra });
    expect(p.exported('invoke_agent').attributes['error.type']).toBe(errorType);
  });

  it("writes a failed attempt's verdict on the attempt's own span", () => {
    const p = pipeline();
    droppedRun(p);
    expect(p.exported('chat').attributes).toEqual({
      ...CHAT,
      'incident.attempt.number': 1,
      'incident.attempt.cause': 'provider_transport_disconnect',
      'incident.attempt.cause.detail': 'connection_reset',
      'incident.attempt.phase': 'unknown',
      'incident.attempt.retry_safety': 'ask_user_before_retry',
      'incident.attempt.retry_safety.reason': 'side_effect_facts_incomplete',
      'incident.attempt.retryable': true,
      'incident.attempt.error.code': 'ECONNRESET',
      'incident.attempt.lost.input_tokens': 0,
      'incident.attempt.lost.output_tokens': 0,
      'incident.attempt.lost.lower_bound': true,
    });
  });

  it('judges in onEnd on an SDK that never calls onEnding, so the exporter after it still sees the verdict', () => {
    const p = pipeline({}, (processor) => ({
      onStart: (span, context) => processor.onStart(span, context),
      onEnd: (span) => processor.onEnd(span),
      forceFlush: () => processor.forceFlush(),
      shutdown: () => processor.shutdown(),
    }));
    droppedRun(p);
    expect(p.exported('invoke_agent').attributes).toMatchObject(FAILED_RUN_VERDICT);
  });
});

describe('ends the spans of a run still open when the run ends', () => {
  it('at the run span end time, marked incident.truncated, exported before their run', () => {
    const p = pipeline();
    droppedRun(p);
    const tool = p.exported('execute_tool');
    expect(tool.attributes).toEqual({ ...TOOL, 'incident.truncated': true });
    expect(tool.endTime).toEqual(p.exported('invoke_agent').endTime);
    expect(p.exporter.spans.map((s) => s.name)).toEqual(['chat', 'execute_tool', 'invoke_agent']);
  });
});

describe('sanitizes every span', () => {
  it.each([
    ['a span outside any run', false],
    ['a run span, with its verdict', true],
  ])('%s: the secret is redacted and the redaction counted', (_what, inRun) => {
    const p = pipeline();
    const span = p.start(inRun ? 'invoke_agent' : 'lookup', { ...(inRun ? RUN : {}), api_key: SECRET });
    span.end(T0 + 1);
    const attributes = p.exporter.spans[0]?.attributes;
    expect(attributes?.['api_key']).toBe('[redacted:secret]');
    expect(attributes?.['incident.redactions']).toBe(1);
    expect(attributes?.['incident.outcome']).toBe(inRun ? 'success' : undefined);
  });

  it("exports as recorded when sanitization is 'off'", () => {
    const p = pipeline({ sanitization: { mode: 'off' } });
    p.start('lookup', { api_key: SECRET }).end(T0 + 1);
    expect(p.exporter.spans[0]?.attributes).toEqual({ api_key: SECRET });
  });

  it('counts redactions by kind on agent_incidents.redactions, never the values', async () => {
    const reader = new CollectingReader();
    const p = pipeline({ meterProvider: new MeterProvider({ readers: [reader] }) });
    p.start('lookup', { api_key: SECRET }).end(T0 + 1);
    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === 'agent_incidents.redactions');
    expect(metric?.dataPoints.map((d) => ({ attributes: d.attributes, value: d.value }))).toEqual([
      { attributes: { 'agent_incidents.redaction.kind': 'secret' }, value: 1 },
    ]);
  });
});

describe('throws a TypeError naming the option when options are invalid', () => {
  it.each([
    [{ maxOpenRuns: 0 }, 'IncidentSpanProcessor: invalid option maxOpenRuns: Too small: expected number to be >=1'],
    [
      { sanitization: { mode: 'loud' } },
      'IncidentSpanProcessor: invalid option sanitization.mode: Invalid option: expected one of "standard"|"strict"|"off"',
    ],
    [
      { sanitization: { valuePatterns: [{ pattern: '(' }] } },
      'IncidentSpanProcessor: invalid option sanitization: invalid valuePatterns pattern "(": Invalid regular expression: /(/: Unterminated group',
    ],
    [{ nope: 1 }, 'IncidentSpanProcessor: invalid option options: Unrecognized key: "nope"'],
  ])('%j', (options, message) => {
    expect(() => new IncidentSpanProcessor(options as IncidentSpanProcessorOptions)).toThrow(new TypeError(message));
  });
});

/** What a run that never ended reads once the processor ended it (a chat span still open in it). */
const NEVER_ENDED = {
  'incident.truncated': true,
  'incident.outcome': 'incomplete',
  'incident.cause': 'crash_or_restart_incomplete',
  'incident.cause.detail': 'run_never_ended',
  'error.type': 'crash_or_restart_incomplete',
};

describe('finalizes runs that never ended', () => {
  it('forceFlush ends every open run and its open spans, as incomplete run_never_ended, and keeps no state', async () => {
    const p = pipeline();
    p.start('chat', CHAT, p.start('invoke_agent', RUN), 1);
    await p.processor.forceFlush();
    expect(p.exported('invoke_agent').attributes).toMatchObject(NEVER_ENDED);
    expect(p.exported('invoke_agent').attributes['incident.missing_facts']).toEqual([
      'side_effect_boundary_missing',
      'provider_progress_missing',
      'open_child_spans',
      'run_never_ended',
    ]);
    expect(p.exported('chat').attributes).toEqual({ ...CHAT, 'incident.truncated': true });
    expect(p.processor.stats()).toEqual({
      openRuns: 0,
      trackedSpans: 0,
      evictedRuns: 0,
      runsFinalizedOpen: 1,
      runsFinished: 1,
      internalErrors: 0,
      runsAdopted: 0,
      runsGivenBack: 0,
    });
  });

  it('a run tracked longer than maxRunAgeMillis is ended when the next span starts', () => {
    const now = vi.spyOn(Date, 'now').mockReturnValue(T0);
    const p = pipeline({ maxRunAgeMillis: 1000 });
    p.start('invoke_agent', RUN);
    now.mockReturnValue(T0 + 1000);
    p.start('lookup', {});
    expect(p.exporter.spans).toEqual([]);
    now.mockReturnValue(T0 + 1001);
    p.start('lookup', {});
    expect(p.exported('invoke_agent').attributes).toMatchObject(NEVER_ENDED);
    expect(p.processor.stats().runsFinalizedOpen).toBe(1);
  });

  it('shutdown finalizes open runs; afterwards nothing is tracked, but spans are still sanitized', async () => {
    const p = pipeline();
    p.start('invoke_agent', RUN);
    await p.processor.shutdown();
    expect(p.exported('invoke_agent').attributes).toMatchObject(NEVER_ENDED);
    const late = p.start('invoke_agent', { ...RUN, api_key: SECRET });
    expect(p.processor.stats().openRuns).toBe(0);
    late.end(T0 + 1);
    expect(p.exporter.spans[1]?.attributes).toEqual({ ...RUN, api_key: '[redacted:secret]', 'incident.redactions': 1 });
  });
});

describe('stats', () => {
  it('counts open runs, tracked spans, finished runs and evictions past maxOpenRuns', () => {
    const p = pipeline({ maxOpenRuns: 1 });
    const first = p.start('invoke_agent', RUN);
    p.start('chat', CHAT, first, 1);
    expect(p.processor.stats()).toMatchObject({ openRuns: 1, trackedSpans: 2, evictedRuns: 0 });
    const second = p.start('invoke_agent', RUN, undefined, 2);
    expect(p.processor.stats()).toMatchObject({ openRuns: 1, trackedSpans: 1, evictedRuns: 1 });
    first.end(T0 + 5);
    second.end(T0 + 6);
    expect(p.processor.stats()).toEqual({
      openRuns: 0,
      trackedSpans: 0,
      evictedRuns: 1,
      runsFinalizedOpen: 0,
      runsFinished: 2,
      internalErrors: 0,
      runsAdopted: 0,
      runsGivenBack: 0,
    });
    // The evicted run is still exported, judged on what is left of it: facts lost, so it fails closed.
    expect(p.exporter.spans.find((s) => s.attributes['incident.missing_facts'])?.attributes).toMatchObject({
      'incident.outcome': 'incomplete',
      'incident.missing_facts': ['evidence_truncated'],
    });
  });
});

describe('never throws into the host', () => {
  it('an adapter that throws is counted in each hook, and the span is exported, still sanitized', () => {
    const throwing: ConventionAdapter = {
      name: 'throwing',
      role: () => {
        throw new Error('adapter bug');
      },
      extract: () => ({ facts: [] }),
    } as unknown as ConventionAdapter;
    const p = pipeline({ adapters: [throwing] });
    p.start('lookup', { api_key: SECRET }).end(T0 + 1);
    // Both hooks read the span's role: onStart and onEnding each count theirs.
    expect(p.processor.stats().internalErrors).toBe(2);
    expect(p.exporter.spans[0]?.attributes).toEqual({ api_key: '[redacted:secret]', 'incident.redactions': 1 });
  });
});

describe('agent.runs', () => {
  it.each([
    ['a provider of the GenAI conventions by name', 'openai', 'openai'],
    ['any other provider as _OTHER', 'my-private-llm', '_OTHER'],
  ])('counts a finished run with its outcome, cause, phase, retry safety and %s', async (_what, provider, counted) => {
    const reader = new CollectingReader();
    const p = pipeline({ meterProvider: new MeterProvider({ readers: [reader] }) });
    droppedRun(p, { ...RUN, 'gen_ai.provider.name': provider });
    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === 'agent.runs');
    expect(metric?.dataPoints.map((d) => ({ attributes: d.attributes, value: d.value }))).toEqual([
      {
        attributes: {
          'incident.outcome': 'failed',
          'incident.cause': 'provider_transport_disconnect',
          'incident.phase': 'unknown',
          'incident.retry_safety': 'ask_user_before_retry',
          'gen_ai.provider.name': counted,
        },
        value: 1,
      },
    ]);
  });
});

describe('agent_incidents.tokens.lost', () => {
  it("counts what the dropped attempt reported, by the run's outcome, cause and retry safety", async () => {
    const reader = new CollectingReader();
    const p = pipeline({ meterProvider: new MeterProvider({ readers: [reader] }) });
    droppedRun(p, RUN, { ...CHAT, 'gen_ai.usage.input_tokens': 900, 'gen_ai.usage.output_tokens': 40 });
    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === 'agent_incidents.tokens.lost');
    const labels = {
      'incident.outcome': 'failed',
      'incident.cause': 'provider_transport_disconnect',
      'incident.retry_safety': 'ask_user_before_retry',
    };
    expect(metric?.dataPoints.map((d) => ({ attributes: d.attributes, value: d.value }))).toEqual([
      { attributes: { ...labels, 'gen_ai.token.type': 'input' }, value: 900 },
      { attributes: { ...labels, 'gen_ai.token.type': 'output' }, value: 40 },
    ]);
  });
});

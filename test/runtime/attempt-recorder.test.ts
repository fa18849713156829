/**
 * AttemptRecorder, through the run that creates it: which fact each method writes on the
 * attempt span, what is recorded once, how each end sets the span (finish, fail, watchdog,
 * close, cut off by the run), that an adopted span is left to its owner, and that nothing is
 * written after the attempt ended.
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import type { AttemptRecorder } from '../../src/runtime/attempt-recorder.js';
import { RunRecorder } from '../../src/runtime/run-recorder.js';
import { steppingClock } from '../support/harness.js';
import { KeepingExporter } from '../support/keeping-exporter.js';

const P = 'agent_incidents.';

function setup() {
  const exporter = new KeepingExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('unit');
  const run = RunRecorder.start({
    tracer,
    clock: steppingClock(1_700_000_000_000),
    providerName: 'openai',
    model: 'm',
  });
  const spanOf = (attempt: AttemptRecorder): ReadableSpan => {
    const span = exporter.spans.find((s) => s.spanContext().spanId === attempt.span.spanContext().spanId);
    if (!span) throw new Error('attempt span not exported');
    return span;
  };
  /** The fact event names on the attempt span, without the prefix, after the attempt ended. */
  const facts = (attempt: AttemptRecorder): string[] =>
    spanOf(attempt)
      .events.map((e) => e.name)
      .filter((name) => name.startsWith(P))
      .map((name) => name.slice(P.length));
  return { run, tracer, exporter, spanOf, facts };
}

describe('the output methods', () => {
  it.each<[string, (attempt: AttemptRecorder) => void, string[]]>([
    ['textOutput', (a) => a.textOutput(), ['text_output_started']],
    ['reasoningOutput', (a) => a.reasoningOutput(), ['reasoning_output_started']],
    ['toolInputStarted', (a) => a.toolInputStarted('t'), ['tool_input_started']],
    ['toolInputCompleted', (a) => a.toolInputCompleted('t'), ['tool_input_completed']],
    ['toolCallMaterialized', (a) => a.toolCallMaterialized({ name: 't', callId: 'c' }), ['tool_call_materialized']],
    ['providerProgress', (a) => a.providerProgress('source'), ['provider_progress']],
  ])('%s writes its fact', (_method, call, expected) => {
    const { run, facts } = setup();
    const attempt = run.startAttempt();
    call(attempt);
    attempt.close();
    expect(facts(attempt)).toEqual(expected);
  });
});

describe('facts recorded once', () => {
  it('text, reasoning and provider progress are written once each', () => {
    const { run, facts } = setup();
    const attempt = run.startAttempt();
    attempt.textOutput();
    attempt.textOutput();
    attempt.reasoningOutput();
    attempt.reasoningOutput();
    attempt.providerProgress('source');
    attempt.providerProgress('file');
    attempt.close();
    expect(facts(attempt)).toEqual(['text_output_started', 'reasoning_output_started', 'provider_progress']);
  });

  it('a pending tool interruption is written once per tool name', () => {
    const { run, facts } = setup();
    const attempt = run.startAttempt();
    attempt.pendingToolInterrupted('a');
    attempt.pendingToolInterrupted('a');
    attempt.pendingToolInterrupted('b');
    attempt.close();
    expect(facts(attempt)).toEqual(['pending_tool_interrupted', 'pending_tool_interrupted']);
  });

  it('a second complete call of the same kind right after another says nothing new', () => {
    const { run, facts } = setup();
    const attempt = run.startAttempt();
    attempt.toolCallMaterialized({ name: 'a', sideEffects: 'read_only' });
    attempt.toolCallMaterialized({ name: 'b', sideEffects: 'read_only' });
    attempt.toolCallMaterialized({ name: 'c', sideEffects: 'unsafe' });
    attempt.close();
    expect(facts(attempt)).toEqual(['tool_call_materialized', 'tool_call_materialized']);
  });
});

describe('the boundary', () => {
  it('startAttempt with a boundary writes it first', () => {
    const { run, facts } = setup();
    const attempt = run.startAttempt({ boundary: { tools: [{ name: 'read', sideEffects: 'read_only' }] } });
    attempt.finish();
    expect(facts(attempt)).toEqual(['side_effect_boundary', 'attempt_finished']);
  });
});

describe('how an owned attempt ends', () => {
  it('finish() writes attempt_finished, the finish reasons and usage, with an unset status', () => {
    const { run, spanOf, facts } = setup();
    const attempt = run.startAttempt();
    attempt.finish({ finishReasons: ['stop'], usage: { inputTokens: 12, outputTokens: 3 } });
    expect(attempt.ended).toBe(true);
    expect(facts(attempt)).toEqual(['attempt_finished']);
    expect(spanOf(attempt).status).toEqual({ code: 0 });
    expect(spanOf(attempt).attributes).toMatchObject({
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 3,
    });
  });

  it('fail() writes provider_error, the exception, an error status and error.type', () => {
    const { run, spanOf, facts } = setup();
    const attempt = run.startAttempt();
    attempt.fail(
      new TypeError('terminated', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) }),
    );
    const span = spanOf(attempt);
    expect(facts(attempt)).toEqual(['provider_error']);
    expect(span.events.map((e) => e.name)).toContain('exception');
    expect(span.status.code).toBe(2);
    expect(span.attributes['error.type']).toBe('UND_ERR_SOCKET');
  });

  it('watchdogFired() writes watchdog_fired and fails the attempt as watchdog_timeout', () => {
    const { run, spanOf, facts } = setup();
    const attempt = run.startAttempt();
    attempt.watchdogFired({ phase: 'connect', budgetMillis: 500 });
    expect(facts(attempt)).toEqual(['watchdog_fired']);
    expect(spanOf(attempt).status).toEqual({ code: 2, message: 'watchdog_timeout (connect)' });
    expect(spanOf(attempt).attributes['error.type']).toBe('watchdog_timeout');
  });

  it('close() ends with no fact and an unset status', () => {
    const { run, spanOf, facts } = setup();
    const attempt = run.startAttempt();
    attempt.close();
    expect([facts(attempt), spanOf(attempt).status]).toEqual([[], { code: 0 }]);
  });

  it('writes nothing after it ended', () => {
    const { run, facts } = setup();
    const attempt = run.startAttempt();
    attempt.finish();
    attempt.textOutput();
    attempt.toolInputStarted('t');
    attempt.fail(new Error('late'));
    attempt.watchdogFired({ phase: 'total' });
    expect(facts(attempt)).toEqual(['attempt_finished']);
  });

  it('is cut off at the run’s end: ended and marked truncated', () => {
    const { run, spanOf } = setup();
    const attempt = run.startAttempt();
    attempt.textOutput();
    run.end();
    expect(attempt.ended).toBe(true);
    expect(spanOf(attempt).attributes['incident.truncated']).toBe(true);
  });
});

describe('usage, reported as the provider reports it', () => {
  it('usage() mid-stream writes every figure on the span, and a later report replaces only what it gives', () => {
    const { run, spanOf } = setup();
    const attempt = run.startAttempt();
    attempt.usage({ inputTokens: 1200, cachedInputTokens: 1000 });
    attempt.usage({ outputTokens: 85, reasoningTokens: 40, costUsd: 0.004, inputTokens: -1 });
    attempt.fail(Object.assign(new TypeError('terminated'), { cause: { code: 'UND_ERR_SOCKET' } }));
    expect(spanOf(attempt).attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 1200,
      'gen_ai.usage.output_tokens': 85,
      'gen_ai.usage.reasoning.output_tokens': 40,
      'gen_ai.usage.cache_read.input_tokens': 1000,
      'agent_incidents.usage.cost_usd': 0.004,
    });
    // The failed attempt's own verdict, and the run's, count what it had used before the drop.
    const incident = run.end();
    expect(incident.lost).toEqual({
      attempts: 1,
      inputTokens: 1200,
      outputTokens: 85,
      reasoningTokens: 40,
      cachedInputTokens: 1000,
      costUsd: 0.004,
      lowerBound: false,
    });
    expect(run.snapshot().inputTokens).toBe(1200);
  });

  it('an attempt cut off by the run’s end keeps the usage it reported', () => {
    const { run } = setup();
    const attempt = run.startAttempt();
    attempt.textOutput();
    attempt.usage({ inputTokens: 300 });
    const incident = run.end();
    expect(incident.lost).toEqual({ attempts: 1, inputTokens: 300, outputTokens: 0, lowerBound: true });
  });

  it('usage after the attempt ended is ignored', () => {
    const { run, spanOf } = setup();
    const attempt = run.startAttempt();
    attempt.finish();
    attempt.usage({ inputTokens: 5 });
    expect(spanOf(attempt).attributes['gen_ai.usage.input_tokens']).toBeUndefined();
  });
});

describe('an adopted attempt span', () => {
  it('gets the attempt number and the facts, but its owner sets its status and ends it', () => {
    const { run, tracer, exporter } = setup();
    const span = tracer.startSpan('ai.streamText.doStream', {}, run.context);
    const attempt = run.adoptAttempt(span);
    expect(attempt.number).toBe(1);
    attempt.fail(new Error('boom'));
    expect(attempt.ended).toBe(true);
    expect(span.isRecording()).toBe(true);
    span.end();
    const done = exporter.spans.find((s) => s.name === 'ai.streamText.doStream');
    expect(done?.status).toEqual({ code: 0 });
    expect(done?.attributes['agent_incidents.attempt.number']).toBe(1);
    expect(done?.events.map((e) => e.name)).toEqual([`${P}provider_error`]);
  });
});

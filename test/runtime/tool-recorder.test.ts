/**
 * ToolRecorder, through the run that creates it: how a tool execution ends (complete, fail,
 * interrupt, cut off by the run's end) on an owned span and on an adopted one, and that it
 * ends once.
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { RunRecorder } from '../../src/runtime/run-recorder.js';
import type { ToolRecorder } from '../../src/runtime/tool-recorder.js';
import { steppingClock } from '../support/harness.js';
import { KeepingExporter } from '../support/keeping-exporter.js';

const FAILED = 'agent_incidents.tool_execution_failed';
const INTERRUPTED = 'agent_incidents.tool_execution_interrupted';

function setup() {
  const exporter = new KeepingExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('unit');
  const clock = steppingClock(1_700_000_000_000);
  const run = RunRecorder.start({ tracer, clock, agentName: 'a', providerName: 'openai', model: 'm' });
  const spanOf = (tool: ToolRecorder): ReadableSpan | undefined =>
    exporter.spans.find((s) => s.spanContext().spanId === tool.span.spanContext().spanId);
  return { run, tracer, clock, exporter, spanOf };
}

const eventsOf = (span: ReadableSpan | undefined) => span?.events.map((e) => [e.name, e.attributes]) ?? [];

describe('an owned tool span', () => {
  it('complete() ends the span with no event and an unset status', () => {
    const { run, spanOf } = setup();
    const tool = run.startTool({ name: 'read', sideEffects: 'read_only' });
    expect(tool.ended).toBe(false);
    tool.complete();
    expect(tool.ended).toBe(true);
    expect(eventsOf(spanOf(tool))).toEqual([]);
    expect(spanOf(tool)?.status).toEqual({ code: 0 });
  });

  it.each([
    [
      'a permission error',
      Object.assign(new Error('open failed'), { code: 'EACCES' }),
      'permission_denied',
      'EACCES',
      'EACCES',
    ],
    ['a timeout', new Error('request timed out'), 'timeout', undefined, 'timeout'],
  ])(
    'fail() with %s records the failure kind, the exception, an error status and error.type',
    (_n, error, kind, code, errorType) => {
      const { run, spanOf } = setup();
      const tool = run.startTool({ name: 'shell' });
      tool.fail(error);
      const span = spanOf(tool);
      const attributes: Record<string, unknown> = {
        'agent_incidents.tool.failure_kind': kind,
        'agent_incidents.seq': 1,
      };
      if (code) attributes['agent_incidents.error.code'] = code;
      expect(span?.events.map((e) => e.name)).toEqual([FAILED, 'exception']);
      expect(span?.events[0]?.attributes).toEqual(attributes);
      expect(span?.status).toEqual({ code: 2, message: error.message });
      expect(span?.attributes['error.type']).toBe(errorType);
    },
  );

  it('fail() keeps an error.type the span already has, and records no exception for a non-Error', () => {
    const { run, spanOf } = setup();
    const tool = run.startTool({ name: 'shell' });
    tool.span.setAttribute('error.type', 'mine');
    tool.fail('plain string');
    expect(spanOf(tool)?.attributes['error.type']).toBe('mine');
    expect(spanOf(tool)?.events.map((e) => e.name)).toEqual([FAILED]);
  });

  it('interrupt() records the interruption and an error status', () => {
    const { run, spanOf } = setup();
    const tool = run.startTool({ name: 'shell' });
    tool.interrupt();
    expect(eventsOf(spanOf(tool))).toEqual([[INTERRUPTED, { 'agent_incidents.seq': 1 }]]);
    expect(spanOf(tool)?.status).toEqual({ code: 2, message: 'tool execution interrupted' });
  });

  it('ends once: a later fail or interrupt writes nothing', () => {
    const { run, exporter, spanOf } = setup();
    const tool = run.startTool({ name: 'shell' });
    tool.complete();
    tool.fail(new Error('late'));
    tool.interrupt();
    tool.complete();
    expect(exporter.spans).toHaveLength(1);
    expect(eventsOf(spanOf(tool))).toEqual([]);
  });

  it('ends at the run clock’s time', () => {
    const { run, clock, spanOf } = setup();
    const tool = run.startTool({ name: 'shell' });
    clock.advance(1_000);
    tool.complete();
    const span = spanOf(tool);
    const millis = (t: readonly [number, number] | undefined) => (t ? t[0] * 1000 + t[1] / 1e6 : Number.NaN);
    expect(millis(span?.endTime) - millis(span?.startTime)).toBe(1_001);
  });

  it('is cut off at the run’s end: ended, marked truncated, and no longer records', () => {
    const { run, spanOf } = setup();
    const tool = run.startTool({ name: 'shell' });
    run.end();
    expect(tool.ended).toBe(true);
    expect(spanOf(tool)?.attributes['incident.truncated']).toBe(true);
    tool.fail(new Error('after'));
    expect(eventsOf(spanOf(tool))).toEqual([]);
  });
});

describe('an adopted tool span', () => {
  it('fail() records the event but leaves status and end to the span’s owner', () => {
    const { run, tracer, exporter } = setup();
    const span = tracer.startSpan('ai.toolCall', {}, run.context);
    const tool = run.adoptTool(span, { name: 'shell', sideEffects: 'unsafe' });
    tool.fail(new Error('denied: permission denied'));
    expect(tool.ended).toBe(true);
    expect(span.isRecording()).toBe(true);
    span.end();
    const done = exporter.spans.find((s) => s.name === 'ai.toolCall');
    expect(done?.status).toEqual({ code: 0 });
    expect(done?.attributes['error.type']).toBeUndefined();
    expect(done?.events.map((e) => [e.name, e.attributes?.['agent_incidents.tool.failure_kind']])).toEqual([
      [FAILED, 'permission_denied'],
    ]);
  });

  it('interrupt() leaves the span open with an unset status', () => {
    const { run, tracer } = setup();
    const span = tracer.startSpan('ai.toolCall', {}, run.context);
    run.adoptTool(span, { name: 'shell' }).interrupt();
    expect(span.isRecording()).toBe(true);
  });

  it('is marked truncated at the run’s end but not ended', () => {
    const { run, tracer } = setup();
    const span = tracer.startSpan('ai.toolCall', {}, run.context);
    const tool = run.adoptTool(span, { name: 'shell' });
    run.end();
    expect(tool.ended).toBe(true);
    expect(span.isRecording()).toBe(true);
  });
});

/**
 * What the recorders read from and write on a span beyond the OpenTelemetry API, on real SDK
 * spans and on a bare API span that exposes none of it.
 */
import type { Span } from '@opentelemetry/api';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { addLinkAfterStart, errorTypeOf, markCut, nameOf, startMillisOf } from '../../src/runtime/span-access.js';
import { KeepingExporter } from '../support/keeping-exporter.js';

const exporter = new KeepingExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('unit');
/** Epoch milliseconds: the SDK reads a small number as a time since the process started. */
const T0 = 1_700_000_000_000;
/** A span of no SDK: the API's non-recording span. */
const bare = (): Span =>
  trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: '00f067aa0ba902b7', traceFlags: 1 });
const exported = (span: Span) => exporter.spans.find((s) => s.spanContext().spanId === span.spanContext().spanId);

describe('reads', () => {
  it('startMillisOf gives an SDK span’s start time in epoch milliseconds, with sub-millisecond precision', () => {
    expect(startMillisOf(tracer.startSpan('s', { startTime: 1_700_000_000_123.5 }))).toBe(1_700_000_000_123.5);
    expect(startMillisOf(tracer.startSpan('s', { startTime: [1_700_000_000, 250_000_000] }))).toBe(1_700_000_000_250);
  });

  it('nameOf gives an SDK span’s current name', () => {
    const span = tracer.startSpan('chat gpt');
    expect(nameOf(span)).toBe('chat gpt');
    span.updateName('chat other');
    expect(nameOf(span)).toBe('chat other');
  });

  it('errorTypeOf gives error.type as the span has it now, undefined while unset', () => {
    const span = tracer.startSpan('s');
    expect(errorTypeOf(span)).toBeUndefined();
    span.setAttribute('error.type', 'timeout');
    expect(errorTypeOf(span)).toBe('timeout');
  });

  it.each([
    ['startMillisOf', startMillisOf],
    ['nameOf', nameOf],
    ['errorTypeOf', errorTypeOf],
  ] as const)('%s gives undefined for a span of no SDK', (_name, read) => {
    expect(read(bare())).toBeUndefined();
  });
});

describe('addLinkAfterStart', () => {
  it('adds the link to a started SDK span', () => {
    const span = tracer.startSpan('s');
    const target = tracer.startSpan('t').spanContext();
    addLinkAfterStart(span, { context: target, attributes: { kind: 'retry_of' } });
    span.end();
    expect(exported(span)?.links.map((l) => [l.context, l.attributes])).toEqual([[target, { kind: 'retry_of' }]]);
  });

  it('goes without on a span that cannot take links after start', () => {
    const span = { addLink: undefined } as unknown as Span;
    expect(() => addLinkAfterStart(span, { context: bare().spanContext() })).not.toThrow();
  });
});

describe('markCut', () => {
  it('marks an owned span truncated and ends it at the run’s end', () => {
    const span = tracer.startSpan('owned', { startTime: T0 });
    markCut(span, true, T0 + 1_500);
    expect(span.isRecording()).toBe(false);
    expect(exported(span)?.attributes).toEqual({ 'incident.truncated': true });
    expect(exported(span)?.endTime).toEqual([1_700_000_001, 500_000_000]);
  });

  it('marks an adopted span truncated but leaves it open for its owner to end', () => {
    const span = tracer.startSpan('adopted', { startTime: T0 });
    markCut(span, false, T0 + 1_500);
    expect(span.isRecording()).toBe(true);
    span.end(T0 + 2_000);
    expect(exported(span)?.attributes).toEqual({ 'incident.truncated': true });
    expect(exported(span)?.endTime).toEqual([1_700_000_002, 0]);
  });

  it('leaves a span that already ended untouched', () => {
    const span = tracer.startSpan('done', { startTime: T0 });
    span.end(T0 + 500);
    markCut(span, true, T0 + 1_500);
    expect(exported(span)?.attributes).toEqual({});
    expect(exported(span)?.endTime).toEqual([1_700_000_000, 500_000_000]);
  });
});

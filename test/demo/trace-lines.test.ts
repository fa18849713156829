/**
 * TraceLines (src/demo/trace-lines.ts), the span processor that writes the
 * demo's file, on a real tracer provider: each trace is one OTLP/JSON line as
 * soon as its root span ends, in the order traces finish; spans that end
 * after their root (a late child, a run finalized at shutdown) wait for
 * `flush()`, which the provider's shutdown does not call; and each line is
 * the spans as they were (kind on the OTLP scale, times, attributes, events,
 * links, status, scope), under the SDK's resource with the demo's
 * `service.name`, one resource and one scope object per SDK resource and
 * scope, so a batch of them groups under one ResourceSpans.
 */
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { TraceLines } from '../../src/demo/trace-lines.js';
import type { EncodableSpan } from '../../src/otlp/otlp-encode.js';
import { encodeTraceRequestJson } from '../../src/otlp/otlp-encode.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';

const T0 = 1_700_000_000_000;

function setup() {
  const written: { line: string; spans: readonly EncodableSpan[] }[] = [];
  const lines = new TraceLines((line, spans) => written.push({ line, spans }), 'demo-service');
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'app', 'host.name': 'h1' }),
    spanProcessors: [lines],
  });
  const tracer = provider.getTracer('demo-scope', '1.2.3');
  /** Starts a span, under `parent` when given, at `T0 + at` ms. */
  const start = (name: string, parent?: ReturnType<typeof tracer.startSpan>, at = 0) =>
    tracer.startSpan(name, { startTime: T0 + at }, parent ? trace.setSpan(context.active(), parent) : context.active());
  /** The span names of each line written, decoded from its OTLP/JSON. */
  const names = () => written.map((w) => decodeOtlpJsonSpans(JSON.parse(w.line)).map((s) => s.name));
  return { written, lines, provider, start, names };
}

describe('TraceLines', () => {
  it('writes a trace as one line when its root ends, its children first, and counts lines and spans', () => {
    const { lines, start, names } = setup();
    const root = start('run');
    const child = start('attempt', root);
    start('tool', child).end();
    child.end();
    expect(names()).toEqual([]);
    root.end();
    expect(names()).toEqual([['tool', 'attempt', 'run']]);
    expect(lines.lines).toBe(1);
    expect(lines.spans).toBe(3);
  });

  it('writes traces in the order their roots end, however their spans interleave', () => {
    const { start, names } = setup();
    const a = start('run a');
    const b = start('run b');
    const aChild = start('attempt a', a);
    start('attempt b', b).end();
    aChild.end();
    b.end();
    a.end();
    expect(names()).toEqual([
      ['attempt b', 'run b'],
      ['attempt a', 'run a'],
    ]);
  });

  it('keeps spans that end after their root for flush, which writes each such trace once', async () => {
    const { lines, provider, start, names } = setup();
    const root = start('run');
    const late = start('late attempt', root);
    root.end();
    const other = start('other run');
    const otherLate = start('other late', other);
    other.end();
    late.end();
    otherLate.end();
    await provider.shutdown();
    // Shutdown does not flush: the incident processor may still end open runs during it.
    expect(names()).toEqual([['run'], ['other run']]);
    lines.flush();
    expect(names()).toEqual([['run'], ['other run'], ['late attempt'], ['other late']]);
    lines.flush();
    expect(lines.lines).toBe(4);
    expect(lines.spans).toBe(4);
  });

  it('writes each span as it was, under the SDK resource with the demo service name', () => {
    const { written, start } = setup();
    const earlier = start('earlier run');
    earlier.end();
    const root = start('invoke_agent demo');
    const chat = start('chat m', root, 5);
    chat.setAttributes({ 'gen_ai.operation.name': 'chat', 'agent_incidents.attempt.number': 1 });
    chat.addEvent('agent_incidents.text_output_started', { 'agent_incidents.seq': 3 }, T0 + 7);
    chat.addLink({ context: earlier.spanContext(), attributes: { 'agent_incidents.link.type': 'retry_of' } });
    chat.setStatus({ code: SpanStatusCode.ERROR, message: 'terminated' });
    chat.end(T0 + 9);
    root.end(T0 + 10);
    const [span, run] = decodeOtlpJsonSpans(JSON.parse(written.at(-1)!.line));
    const ns = (ms: number) => BigInt(T0 + ms) * 1_000_000n;
    expect(run).toMatchObject({
      name: 'invoke_agent demo',
      kind: 1,
      traceId: root.spanContext().traceId,
      spanId: root.spanContext().spanId,
      parentSpanId: undefined,
      startTimeUnixNano: ns(0),
      endTimeUnixNano: ns(10),
      statusCode: 0,
      scopeName: 'demo-scope',
      scopeVersion: '1.2.3',
      resource: { 'service.name': 'demo-service', 'host.name': 'h1' },
    });
    expect(span).toMatchObject({
      name: 'chat m',
      traceId: root.spanContext().traceId,
      parentSpanId: root.spanContext().spanId,
      startTimeUnixNano: ns(5),
      endTimeUnixNano: ns(9),
      attributes: { 'gen_ai.operation.name': 'chat', 'agent_incidents.attempt.number': 1 },
      events: [
        { name: 'agent_incidents.text_output_started', timeUnixNano: ns(7), attributes: { 'agent_incidents.seq': 3 } },
      ],
      links: [
        {
          traceId: earlier.spanContext().traceId,
          spanId: earlier.spanContext().spanId,
          attributes: { 'agent_incidents.link.type': 'retry_of' },
        },
      ],
      statusCode: 2,
      statusMessage: 'terminated',
    });
  });

  it.each([
    [SpanKind.INTERNAL, 1],
    [SpanKind.SERVER, 2],
    [SpanKind.CLIENT, 3],
    [SpanKind.PRODUCER, 4],
    [SpanKind.CONSUMER, 5],
  ])('writes API span kind %i as OTLP kind %i', (kind, otlpKind) => {
    const { written, provider } = setup();
    provider.getTracer('t').startSpan('s', { kind }).end();
    expect(written[0]!.spans[0]!.otlpKind).toBe(otlpKind);
    expect(decodeOtlpJsonSpans(JSON.parse(written[0]!.line))[0]!.kind).toBe(otlpKind);
  });

  it('hands out the spans of each line with one resource and one scope object, so batches of them group', () => {
    const { written, provider, start } = setup();
    start('run 1').end();
    start('run 2').end();
    provider.getTracer('second-scope').startSpan('run 3').end();
    const [one, two, three] = written.map((w) => w.spans[0]!);
    expect(two!.otlpResource).toBe(one!.otlpResource);
    expect(three!.otlpResource).toBe(one!.otlpResource);
    expect(two!.otlpScope).toBe(one!.otlpScope);
    expect(three!.otlpScope).not.toBe(one!.otlpScope);
    const batch = JSON.parse(new TextDecoder().decode(encodeTraceRequestJson([one!, two!, three!]))) as {
      resourceSpans: { scopeSpans: { spans: unknown[] }[] }[];
    };
    expect(batch.resourceSpans).toHaveLength(1);
    expect(batch.resourceSpans[0]!.scopeSpans.map((s) => s.spans.length)).toEqual([2, 1]);
  });

  it('needs nothing of forceFlush and shutdown: both resolve, and write nothing', async () => {
    const { lines, start, names } = setup();
    const root = start('run');
    start('late', root);
    root.end();
    await expect(lines.forceFlush()).resolves.toBeUndefined();
    await expect(lines.shutdown()).resolves.toBeUndefined();
    expect(names()).toEqual([['run']]);
  });
});

/**
 * The gateway's OTLP encoder against the SDK's serializer: spans the real SDK
 * recorded, serialized by `@opentelemetry/otlp-transformer` and decoded, then
 * re-encoded by ours (protobuf and JSON) and decoded again, come out equal,
 * field by field, for generated attributes, events, links and statuses.
 */
import { SpanKind, SpanStatusCode, trace, context } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forwardedSpan } from '../../src/gateway/forwarded-span.js';
import { ResourceCache } from '../../src/gateway/resource-cache.js';
import { encodeTraceRequestJson, encodeTraceRequestProtobuf } from '../../src/otlp/otlp-encode.js';
import type { DecodedSpan } from '../../src/otlp/otlp-json-spans.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { decodeExportTraceRequest } from '../../src/otlp/otlp-protobuf.js';
import { createSanitizer } from '../../src/sanitize/sanitizer.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 300);

const scalar = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
);
const attributeValue = fc.oneof(
  scalar,
  fc.array(fc.string({ maxLength: 6 }), { maxLength: 4 }),
  fc.array(fc.integer(), { maxLength: 4 }),
  fc.array(fc.boolean(), { maxLength: 4 }),
);
const attributes = fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }), attributeValue, { maxKeys: 6 });
const spanPlan = fc.record({
  name: fc.string({ maxLength: 20 }),
  kind: fc.constantFrom(SpanKind.INTERNAL, SpanKind.SERVER, SpanKind.CLIENT, SpanKind.PRODUCER, SpanKind.CONSUMER),
  attributes,
  events: fc.array(fc.record({ name: fc.string({ maxLength: 10 }), attributes }), { maxLength: 3 }),
  status: fc.constantFrom(SpanStatusCode.UNSET, SpanStatusCode.OK, SpanStatusCode.ERROR),
  message: fc.string({ maxLength: 10 }),
  links: fc.nat({ max: 2 }),
  children: fc.nat({ max: 2 }),
});

type SpanPlan = typeof spanPlan extends fc.Arbitrary<infer T> ? T : never;

/** Records `plans` with the real SDK (children and links included) and returns the SDK's protobuf of them. */
function recorded(plans: SpanPlan[], scopeName: string, resourceNote: string): Uint8Array {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'encode-test', note: resourceNote }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer(scopeName, '1.2.3');
  let previous: ReturnType<typeof tracer.startSpan> | undefined;
  for (const plan of plans) {
    const links = Array.from({ length: previous ? plan.links : 0 }, () => ({
      context: previous!.spanContext(),
      attributes: { 'link.n': plan.links },
    }));
    const span = tracer.startSpan(plan.name, { kind: plan.kind, attributes: plan.attributes, links });
    for (const event of plan.events) span.addEvent(event.name, event.attributes);
    for (let i = 0; i < plan.children; i += 1)
      tracer.startSpan(`${plan.name}/${i}`, {}, trace.setSpan(context.active(), span)).end();
    if (plan.status !== SpanStatusCode.UNSET)
      span.setStatus({ code: plan.status, message: plan.status === SpanStatusCode.ERROR ? plan.message : undefined });
    span.end();
    previous = span;
  }
  return ProtobufTraceSerializer.serializeRequest(exporter.getFinishedSpans())!;
}

const cache = new ResourceCache(createSanitizer({ mode: 'off' }));
const reencoded = (spans: DecodedSpan[], encoding: 'protobuf' | 'json'): DecodedSpan[] => {
  const forwarded = spans.map((span) => forwardedSpan(span, cache.envelopeOf(span)));
  if (encoding === 'protobuf')
    return decodeOtlpJsonSpans(decodeExportTraceRequest(encodeTraceRequestProtobuf(forwarded)));
  return decodeOtlpJsonSpans(JSON.parse(new TextDecoder().decode(encodeTraceRequestJson(forwarded))));
};

describe('the gateway encoder', () => {
  it.each(['protobuf', 'json'] as const)(
    `re-encodes what the SDK serializer wrote, field for field, as %s (${RUNS} cases)`,
    (encoding) => {
      fc.assert(
        fc.property(
          fc.array(spanPlan, { minLength: 1, maxLength: 5 }),
          fc.string({ maxLength: 8 }),
          fc.string({ maxLength: 8 }),
          (plans, scope, note) => {
            const original = decodeOtlpJsonSpans(decodeExportTraceRequest(recorded(plans, scope, note)));
            expect(reencoded(original, encoding)).toEqual(original);
          },
        ),
        { numRuns: RUNS, seed: 20261126 },
      );
    },
  );

  it('keeps int64 at both ends of its range exactly; a whole double (-0) leaves as the double it came as', () => {
    const values = [
      { intValue: '9223372036854775807' },
      { intValue: '-9223372036854775808' },
      { intValue: '-1' },
      { doubleValue: -0 },
    ];
    const request = {
      resourceSpans: [
        {
          resource: {},
          scopeSpans: [
            {
              scope: {},
              spans: [
                {
                  traceId: '1'.repeat(32),
                  spanId: '2'.repeat(16),
                  name: 'n',
                  kind: 1,
                  startTimeUnixNano: '1',
                  endTimeUnixNano: '2',
                  attributes: values.map((value, i) => ({ key: `v${i}`, value })),
                  status: {},
                },
              ],
            },
          ],
        },
      ],
    };
    const original = decodeOtlpJsonSpans(request);
    for (const encoding of ['protobuf', 'json'] as const) {
      const [span] = reencoded(original, encoding);
      expect(span?.attributes.v0).toBe(2n ** 63n - 1n);
      expect(span?.attributes.v1).toBe(-(2n ** 63n));
      expect(span?.attributes.v2).toBe(-1);
      const v3 = span?.attributes.v3;
      expect(v3).toBeInstanceOf(Number);
      expect(Object.is((v3 as number).valueOf(), -0)).toBe(true);
    }
  });
});

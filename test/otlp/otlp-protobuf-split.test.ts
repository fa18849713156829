/**
 * splitExportTraceRequest: each part decodes to exactly the spans of the request that went to it, each with its
 * resource and scope, in order; nothing is lost or doubled; a resource or scope without spans and a span without a
 * trace id go to part 0; malformed structure fails as the decoder fails.
 */
import { describe, expect, it } from 'vitest';
import { encodableSpansOf } from '../../src/otlp/encodable-of-decoded.js';
import { encodeTraceRequestProtobuf } from '../../src/otlp/otlp-encode.js';
import type { DecodedSpan } from '../../src/otlp/otlp-json-spans.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { ProtobufDecodeError, decodeExportTraceRequest } from '../../src/otlp/otlp-protobuf.js';
import { splitExportTraceRequest } from '../../src/otlp/otlp-protobuf-split.js';

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/** Two services, two scopes each, spans of 7 traces spread over them. */
function request(): Uint8Array {
  const spans = (service: number, scope: number) =>
    Array.from({ length: 6 }, (_, i) => ({
      traceId: hex(((service * 3 + scope * 5 + i) % 7) + 1, 32),
      spanId: hex(service * 100 + scope * 10 + i + 1, 16),
      name: `span ${service}.${scope}.${i}`,
      kind: 1,
      startTimeUnixNano: '1700000000000000000',
      endTimeUnixNano: '1700000001000000000',
      attributes: [{ key: 'i', value: { intValue: String(i) } }],
    }));
  const json = {
    resourceSpans: [0, 1].map((service) => ({
      resource: { attributes: [{ key: 'service.name', value: { stringValue: `svc-${service}` } }] },
      schemaUrl: `https://example.com/${service}`,
      scopeSpans: [0, 1].map((scope) => ({
        scope: { name: `scope-${scope}`, version: '1.0' },
        spans: spans(service, scope),
      })),
    })),
  };
  return encodeTraceRequestProtobuf(encodableSpansOf(decodeOtlpJsonSpans(json)));
}

const decode = (bytes: Uint8Array | undefined): DecodedSpan[] =>
  bytes === undefined ? [] : decodeOtlpJsonSpans(decodeExportTraceRequest(bytes));

/** The part of a trace id: its last byte, modulo the parts. */
const byLastByte =
  (parts: number) =>
  (id: Uint8Array | undefined): number =>
    id === undefined || id.length === 0 ? 0 : id[id.length - 1]! % parts;

describe('splitExportTraceRequest', () => {
  it.each([1, 2, 3, 5])('gives each of %i parts exactly its spans, with their resource and scope', (parts) => {
    const bytes = request();
    const all = decode(bytes);
    const split = splitExportTraceRequest(bytes, parts, byLastByte(parts));
    expect(split).toHaveLength(parts);
    for (let part = 0; part < parts; part += 1) {
      const expected = all.filter((span) => Number.parseInt(span.traceId.slice(-2), 16) % parts === part);
      const got = decode(split[part]!.body);
      expect(split[part]!.spans).toBe(expected.length);
      // Same spans in the same order, each with the same resource attributes, envelope and scope.
      expect(got).toEqual(expected);
    }
    expect(split.reduce((n, part) => n + part.spans, 0)).toBe(all.length);
  });

  it('sends a span without a trace id, and a resource or scope without spans, to part 0 only', () => {
    // ResourceSpans { ScopeSpans { Span { span_id } } }, then a ResourceSpans with only a resource.
    const span = [0x12, 0x0a, 0x12, 0x08, 1, 2, 3, 4, 5, 6, 7, 8];
    const scope = [0x12, span.length, ...span];
    const resource = [0x0a, 0x00];
    const bytes = Uint8Array.from([0x0a, scope.length, ...scope, 0x0a, resource.length, ...resource]);
    const split = splitExportTraceRequest(bytes, 3, (id) => (id === undefined ? 0 : 2));
    expect(split.map((part) => part.spans)).toEqual([1, 0, 0]);
    expect(split[0]!.body).toEqual(bytes);
    expect(split[1]!.body).toBeUndefined();
    expect(split[2]!.body).toBeUndefined();
  });

  it('gives no part of an empty request', () => {
    expect(splitExportTraceRequest(new Uint8Array(0), 2, () => 1)).toEqual([
      { body: undefined, spans: 0 },
      { body: undefined, spans: 0 },
    ]);
  });

  it.each([
    ['truncated', (bytes: Uint8Array) => bytes.subarray(0, bytes.length - 3)],
    ['a length past the end', (bytes: Uint8Array) => Uint8Array.from([0x0a, 0x7f, ...bytes.subarray(2, 10)])],
  ])('fails on %s structure as the decoder fails', (_name, spoil) => {
    const bytes = spoil(request());
    expect(() => decodeExportTraceRequest(bytes)).toThrow(ProtobufDecodeError);
    expect(() => splitExportTraceRequest(bytes, 2, byLastByte(2))).toThrow(ProtobufDecodeError);
  });
});

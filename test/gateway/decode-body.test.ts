/**
 * decodeBody (src/gateway/decode-body.ts): a protobuf or JSON traces body
 * becomes its spans and the count of unusable ones, and anything that is not
 * OTLP becomes a 400 (or a 413 past the protobuf item bound), never a throw.
 */
import { describe, expect, it } from 'vitest';
import { decodeBody } from '../../src/gateway/decode-body.js';
import { encodableSpansOf } from '../../src/otlp/encodable-of-decoded.js';
import { encodeTraceRequestJson, encodeTraceRequestProtobuf } from '../../src/otlp/otlp-encode.js';
import { decodedSpan } from '../support/decoded-span.js';

const TRACE = 'a'.repeat(32);
const SPANS = [
  decodedSpan(TRACE, '1'.repeat(16), { name: 'run' }),
  decodedSpan(TRACE, '2'.repeat(16), { name: 'call', parentSpanId: '1'.repeat(16) }),
];

/** A JSON body of one resource and scope holding `spans` as given. */
function jsonBody(spans: unknown[]): Buffer {
  return Buffer.from(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] }));
}

/** A JSON span with the given ids. */
const rawSpan = (traceId: string, spanId: string) => ({ traceId, spanId, name: 'x', startTimeUnixNano: '1' });

/** An attribute value nested `depth` arrays deep. */
function nested(depth: number): unknown {
  let value: unknown = { stringValue: 'x' };
  for (let i = 0; i < depth; i++) value = { arrayValue: { values: [value] } };
  return value;
}

describe('decodeBody', () => {
  it.each([
    ['protobuf', Buffer.from(encodeTraceRequestProtobuf(encodableSpansOf(SPANS)))],
    ['json', Buffer.from(encodeTraceRequestJson(encodableSpansOf(SPANS)))],
  ] as const)('decodes a %s body into its spans, none rejected', (type, body) => {
    const decoded = decodeBody(type, body, 1_000);
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(decoded.rejected).toBe(0);
    expect(decoded.spans.map((s) => [s.traceId, s.spanId, s.parentSpanId, s.name])).toEqual([
      [TRACE, '1'.repeat(16), undefined, 'run'],
      [TRACE, '2'.repeat(16), '1'.repeat(16), 'call'],
    ]);
    expect((decoded.request as { resourceSpans: unknown[] }).resourceSpans).toHaveLength(1);
  });

  it('counts spans without valid ids as rejected and keeps the others', () => {
    const decoded = decodeBody(
      'json',
      jsonBody([rawSpan(TRACE, '1'.repeat(16)), rawSpan('0'.repeat(32), '2'.repeat(16)), rawSpan(TRACE, 'short')]),
      1_000,
    );
    expect(decoded).toMatchObject({ ok: true, rejected: 2 });
    if (decoded.ok) expect(decoded.spans.map((s) => s.spanId)).toEqual(['1'.repeat(16)]);
  });

  it.each([
    ['an empty object', '{}'],
    ['resourceSpans that is not a list', '{"resourceSpans":3}'],
    ['scopeSpans that is not a list', '{"resourceSpans":[{"scopeSpans":{}}]}'],
  ])('takes %s as a request with no spans', (_case, text) => {
    expect(decodeBody('json', Buffer.from(text), 1_000)).toEqual({
      ok: true,
      request: JSON.parse(text) as unknown,
      spans: [],
      rejected: 0,
    });
  });

  it.each([
    ['json', Buffer.from('{not json'), 'malformed OTLP JSON: body is not valid JSON'],
    ['json', Buffer.from(''), 'malformed OTLP JSON: body is not valid JSON'],
  ] as const)('refuses a %s body that does not parse with 400 %#', (type, body, message) => {
    expect(decodeBody(type, body, 1_000)).toEqual({ ok: false, status: 400, message });
  });

  it('refuses a truncated protobuf body with 400 naming the decode error', () => {
    const whole = Buffer.from(encodeTraceRequestProtobuf(encodableSpansOf(SPANS)));
    const decoded = decodeBody('protobuf', whole.subarray(0, whole.length - 3), 1_000);
    expect(decoded).toMatchObject({ ok: false, status: 400 });
    if (!decoded.ok) expect(decoded.message).toMatch(/^malformed OTLP protobuf: \S/);
  });

  it('refuses a protobuf body past maxItems with 413', () => {
    const many = Array.from({ length: 5 }, (_, i) => decodedSpan(TRACE, `${i + 1}`.padStart(16, '0')));
    const body = Buffer.from(encodeTraceRequestProtobuf(encodableSpansOf(many)));
    const decoded = decodeBody('protobuf', body, 2);
    expect(decoded).toMatchObject({ ok: false, status: 413 });
    expect(decodeBody('protobuf', body, 1_000)).toMatchObject({ ok: true, rejected: 0 });
  });

  it('counts the items a protobuf body held, as maxItems counts them (0 for JSON)', () => {
    const many = Array.from({ length: 5 }, (_, i) => decodedSpan(TRACE, `${i + 1}`.padStart(16, '0')));
    const tally = { items: 0 };
    decodeBody('protobuf', Buffer.from(encodeTraceRequestProtobuf(encodableSpansOf(many))), 1_000, tally);
    expect(tally.items).toBeGreaterThanOrEqual(5);
    const limit = tally.items;
    expect(
      decodeBody('protobuf', Buffer.from(encodeTraceRequestProtobuf(encodableSpansOf(many))), limit),
    ).toMatchObject({ ok: true });
    const json = { items: 7 };
    decodeBody('json', Buffer.from('{}'), 1_000, json);
    expect(json.items).toBe(7);
  });

  it('refuses JSON attribute values nested past the bound with 400', () => {
    const span = { ...rawSpan(TRACE, '1'.repeat(16)), attributes: [{ key: 'deep', value: nested(100) }] };
    expect(decodeBody('json', jsonBody([span]), 1_000)).toEqual({
      ok: false,
      status: 400,
      message: 'malformed OTLP: attribute values nested more than 64 levels deep',
    });
  });
});

/**
 * The router: a trace id goes to the same part whether it came as protobuf bytes or JSON hex; a body is cut into
 * parts that decode to exactly the spans of each part, in either encoding, values as they came (-0 included);
 * what is not a valid trace id goes to part 0; a body that is not OTLP is a 400.
 */
import { describe, expect, it } from 'vitest';
import { decodeBody } from '../../src/gateway/decode-body.js';
import { partOfTraceIdBytes, partOfTraceIdHex, splitBody } from '../../src/gateway/trace-router.js';
import { encodableSpansOf } from '../../src/otlp/encodable-of-decoded.js';
import { encodeTraceRequestProtobuf } from '../../src/otlp/otlp-encode.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

function json(traces: number): object {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'router-test' } }] },
        scopeSpans: [
          {
            scope: { name: 'test' },
            spans: Array.from({ length: traces * 2 }, (_, i) => ({
              traceId: hex(Math.floor(i / 2) * 7919 + 1, 32),
              spanId: hex(i + 1, 16),
              name: `span ${i}`,
              startTimeUnixNano: '1700000000000000000',
              attributes: [{ key: 'zero', value: { doubleValue: -0 } }],
            })),
          },
        ],
      },
    ],
  };
}

describe('partOfTraceIdBytes and partOfTraceIdHex', () => {
  it.each([1, 2, 3, 7])('give a trace id the same part of %i as bytes and as hex, in range', (parts) => {
    for (let n = 1; n < 200; n += 1) {
      const id = hex(n * 2654435761, 32);
      const part = partOfTraceIdHex(id, parts);
      expect(partOfTraceIdBytes(Buffer.from(id, 'hex'), parts)).toBe(part);
      expect(partOfTraceIdHex(id.toUpperCase(), parts)).toBe(part);
      expect(part).toBeGreaterThanOrEqual(0);
      expect(part).toBeLessThan(parts);
    }
  });

  it('spreads trace ids over the parts', () => {
    const counts = [0, 0, 0, 0];
    for (let n = 1; n <= 4000; n += 1) counts[partOfTraceIdHex(hex(n, 32), 4)]! += 1;
    for (const count of counts) expect(count).toBeGreaterThan(800);
  });

  it.each([
    ['no id', undefined],
    ['a short id', 'abc'],
    ['not hex', 'z'.repeat(32)],
    ['a number', 42],
  ])('gives part 0 to %s', (_name, id) => {
    expect(partOfTraceIdHex(id, 5)).toBe(0);
    if (typeof id === 'string') expect(partOfTraceIdBytes(Buffer.from(id), 5)).toBe(0);
  });
});

describe('splitBody', () => {
  const request = json(20);
  const all = decodeOtlpJsonSpans(request);
  const bodies = {
    // JSON.stringify writes -0 as 0: the sender's text says -0.
    json: Buffer.from(JSON.stringify(request).replaceAll('"doubleValue":0', '"doubleValue":-0')),
    protobuf: Buffer.from(encodeTraceRequestProtobuf(encodableSpansOf(all))),
  };

  it.each([
    ['json', 1],
    ['json', 3],
    ['protobuf', 1],
    ['protobuf', 3],
  ] as const)('cuts a %s body into %i parts that decode to the spans of each part', (encoding, parts) => {
    const split = splitBody(encoding, bodies[encoding], parts);
    expect(split.ok).toBe(true);
    if (!split.ok) return;
    let total = 0;
    split.parts.forEach((part, i) => {
      const decoded = part.body === undefined ? undefined : decodeBody(encoding, Buffer.from(part.body), 1_000_000);
      const spans = decoded?.ok ? decoded.spans : [];
      expect(spans.map((span) => span.spanId)).toEqual(
        all.filter((span) => partOfTraceIdHex(span.traceId, parts) === i).map((span) => span.spanId),
      );
      expect(part.spans).toBe(spans.length);
      // A -0 double stays -0 once written again.
      for (const span of spans) expect(Object.is(Number(span.attributes.zero), -0)).toBe(true);
      total += spans.length;
    });
    expect(total).toBe(all.length);
  });

  it('sends JSON spans without a valid trace id to part 0, which rejects them', () => {
    const bad = { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'abc', spanId: '1'.repeat(16) }, 7] }] }] };
    const split = splitBody('json', Buffer.from(JSON.stringify(bad)), 3);
    expect(split.ok && split.parts.map((part) => part.spans)).toEqual([2, 0, 0]);
    if (split.ok) expect(decodeBody('json', Buffer.from(split.parts[0]!.body!), 10)).toMatchObject({ rejected: 2 });
  });

  it.each([
    ['json', '{not json', 'malformed OTLP JSON: body is not valid JSON'],
    ['protobuf', '\u000a\u007f', 'malformed OTLP protobuf: length 127 exceeds remaining 0 bytes at byte 1'],
  ] as const)('refuses a %s body that is not OTLP with 400', (encoding, text, message) => {
    expect(splitBody(encoding, Buffer.from(text), 2)).toEqual({ ok: false, status: 400, message });
  });

  it.each([
    ['an empty object', '{}'],
    ['resourceSpans that is not a list', '{"resourceSpans":3}'],
    ['a list', '[]'],
  ])('gives %s to part 0 as it is', (_name, text) => {
    const split = splitBody('json', Buffer.from(text), 2);
    expect(split.ok && split.parts[1]!.body).toBeUndefined();
    expect(split.ok && decodeBody('json', Buffer.from(split.parts[0]!.body!), 10)).toMatchObject({ ok: true });
  });
});

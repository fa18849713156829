/**
 * encodeTraceRequestJson: the OTLP/JSON mapping of every value kind (int64
 * as text, bytes as base64, doubles JSON cannot hold as text), optional
 * fields left out when empty, and spans grouped under shared resources and
 * scopes.
 */
import { describe, expect, it } from 'vitest';
import type { EncodableSpan, EncodableValue } from '../../src/otlp/encodable-span.js';
import { encodeTraceRequestJson } from '../../src/otlp/otlp-encode-json.js';

const resource = { attributes: { 'service.name': 'svc' } };
const scope = { name: 'lib' };
const span = (fields: Partial<EncodableSpan> = {}): EncodableSpan => ({
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  name: 'chat',
  otlpKind: 3,
  startTimeUnixNano: 1_700_000_000_000_000_001n,
  endTimeUnixNano: 1_700_000_000_000_000_002n,
  attributes: {},
  events: [],
  links: [],
  status: { code: 0 },
  otlpResource: resource,
  otlpScope: scope,
  ...fields,
});
type JsonSpan = {
  spanId: string;
  attributes: Array<{ key: string; value: unknown }>;
  events: unknown[];
  links: unknown[];
  status: unknown;
  droppedAttributesCount: number;
  droppedEventsCount: number;
  droppedLinksCount: number;
};
type Request = {
  resourceSpans: Array<{ resource: unknown; scopeSpans: Array<{ scope: unknown; spans: JsonSpan[] }> }>;
};
const decoded = (spans: EncodableSpan[]): Request =>
  JSON.parse(new TextDecoder().decode(encodeTraceRequestJson(spans))) as Request;
const valueOf = (value: EncodableValue): unknown =>
  decoded([span({ attributes: { k: value } })]).resourceSpans[0]!.scopeSpans[0]!.spans[0]!.attributes[0]!.value;

describe('encodeTraceRequestJson', () => {
  it.each<[string, EncodableValue, unknown]>([
    ['a string', 'x', { stringValue: 'x' }],
    ['a boolean', true, { boolValue: true }],
    ['a safe integer', 42, { intValue: '42' }],
    ['a fraction', 1.5, { doubleValue: 1.5 }],
    ['-0', -0, { doubleValue: '-0' }],
    ['NaN', Number.NaN, { doubleValue: 'NaN' }],
    ['Infinity', Number.POSITIVE_INFINITY, { doubleValue: 'Infinity' }],
    ['-Infinity', Number.NEGATIVE_INFINITY, { doubleValue: '-Infinity' }],
    ['an unsafe integer', 2 ** 60, { doubleValue: 2 ** 60 }],
    ['a boxed whole double', Object(3) as number, { doubleValue: 3 }],
    ['an int64 bigint', -(2n ** 63n), { intValue: '-9223372036854775808' }],
    ['a bigint past int64', 2n ** 63n, { stringValue: '9223372036854775808' }],
    ['bytes', new Uint8Array([0xff, 0, 0x10]), { bytesValue: '/wAQ' }],
    ['null', null, {}],
    [
      'an array with a hole',
      ['a', undefined, 1],
      { arrayValue: { values: [{ stringValue: 'a' }, {}, { intValue: '1' }] } },
    ],
    ['a map', { a: 1, skip: undefined }, { kvlistValue: { values: [{ key: 'a', value: { intValue: '1' } }] } }],
  ])('writes %s as its AnyValue', (_what, value, expected) => {
    expect(valueOf(value)).toEqual(expected);
  });

  it('writes a minimal span with zero counts and without empty optional fields', () => {
    expect(decoded([span()])).toEqual({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }], droppedAttributesCount: 0 },
          scopeSpans: [
            {
              scope: { name: 'lib', attributes: [], droppedAttributesCount: 0 },
              spans: [
                {
                  traceId: '0af7651916cd43dd8448eb211c80319c',
                  spanId: 'b7ad6b7169203331',
                  name: 'chat',
                  kind: 3,
                  startTimeUnixNano: '1700000000000000001',
                  endTimeUnixNano: '1700000000000000002',
                  attributes: [],
                  droppedAttributesCount: 0,
                  events: [],
                  droppedEventsCount: 0,
                  links: [],
                  droppedLinksCount: 0,
                  status: { code: 0 },
                },
              ],
            },
          ],
        },
      ],
    });
  });

  it('writes every optional field when present', () => {
    const full = span({
      parentSpanId: '00f067aa0ba902b7',
      traceState: 'k=v',
      flags: 257,
      droppedAttributesCount: 1,
      events: [{ timeUnixNano: 5n, name: 'ev', attributes: { a: 'b' }, droppedAttributesCount: 2 }],
      droppedEventsCount: 3,
      links: [{ traceId: 'aa', spanId: 'bb', traceState: 'x=y', flags: 1, attributes: {}, droppedAttributesCount: 4 }],
      droppedLinksCount: 5,
      status: { code: 2, message: 'boom' },
      otlpResource: { attributes: {}, droppedAttributesCount: 6, schemaUrl: 'https://r' },
      otlpScope: {
        name: 'lib',
        version: '1.0',
        attributes: { s: 1 },
        droppedAttributesCount: 7,
        schemaUrl: 'https://s',
      },
    });
    const rs = decoded([full]).resourceSpans[0]!;
    expect(rs).toMatchObject({ resource: { attributes: [], droppedAttributesCount: 6 }, schemaUrl: 'https://r' });
    expect(rs.scopeSpans[0]).toMatchObject({
      scope: {
        name: 'lib',
        version: '1.0',
        attributes: [{ key: 's', value: { intValue: '1' } }],
        droppedAttributesCount: 7,
      },
      schemaUrl: 'https://s',
    });
    const out = rs.scopeSpans[0]!.spans[0]!;
    expect(out).toMatchObject({ parentSpanId: '00f067aa0ba902b7', traceState: 'k=v', flags: 257 });
    expect(out.events).toEqual([
      {
        timeUnixNano: '5',
        name: 'ev',
        attributes: [{ key: 'a', value: { stringValue: 'b' } }],
        droppedAttributesCount: 2,
      },
    ]);
    expect(out.links).toEqual([
      { traceId: 'aa', spanId: 'bb', traceState: 'x=y', attributes: [], droppedAttributesCount: 4, flags: 1 },
    ]);
    expect([out.droppedAttributesCount, out.droppedEventsCount, out.droppedLinksCount]).toEqual([1, 3, 5]);
    expect(out.status).toEqual({ message: 'boom', code: 2 });
  });

  it('writes spans sharing a resource and scope under one ResourceSpans and ScopeSpans', () => {
    const other = { name: 'other' };
    const request = decoded([span({ spanId: '1' }), span({ spanId: '2', otlpScope: other }), span({ spanId: '3' })]);
    expect(request.resourceSpans).toHaveLength(1);
    expect(request.resourceSpans[0]!.scopeSpans.map((s) => s.spans.map((x) => x.spanId))).toEqual([['1', '3'], ['2']]);
  });

  it('writes an empty request for no spans', () => {
    expect(new TextDecoder().decode(encodeTraceRequestJson([]))).toBe('{"resourceSpans":[]}');
  });

  it('refuses a value that is not an OTLP value', () => {
    expect(() => encodeTraceRequestJson([span({ attributes: { f: (() => 1) as never } })])).toThrow(
      new TypeError('not an OTLP value: function'),
    );
  });
});

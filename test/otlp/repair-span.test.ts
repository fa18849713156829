/**
 * isEncodableValue and repairedSpan: every value the encoder can write is
 * kept as it is; every value it cannot (functions, symbols, class
 * instances, nesting past MAX_VALUE_DEPTH) is replaced by the marker, in
 * every place a span holds values, and counted.
 */
import { describe, expect, it } from 'vitest';
import type { EncodableSpan } from '../../src/otlp/otlp-encode.js';
import { MAX_VALUE_DEPTH } from '../../src/otlp/otlp-json-spans.js';
import { UNENCODABLE_VALUE, isEncodableValue, repairedSpan } from '../../src/otlp/repair-span.js';

const nested = (levels: number): unknown => (levels === 0 ? 'leaf' : [nested(levels - 1)]);

const base: EncodableSpan = {
  traceId: 't',
  spanId: 's',
  name: 'chat',
  otlpKind: 1,
  startTimeUnixNano: 1n,
  endTimeUnixNano: 2n,
  attributes: {},
  events: [],
  links: [],
  status: { code: 0 },
  otlpResource: { attributes: {} },
  otlpScope: { name: 'scope' },
};

describe('isEncodableValue', () => {
  it.each([
    ['null', null],
    ['a string', 'x'],
    ['a boolean', false],
    ['a bigint', 2n ** 70n],
    ['a number', Number.NaN],
    ['a boxed number', Object(3)],
    ['bytes', new Uint8Array([1])],
    ['an array with holes as undefined', [1, undefined, 'a']],
    ['a plain object with undefined entries', { a: 1, b: undefined, c: { d: [true] } }],
    [`nesting of ${MAX_VALUE_DEPTH} levels`, nested(MAX_VALUE_DEPTH)],
  ])('accepts %s', (_what, value) => {
    expect(isEncodableValue(value)).toBe(true);
  });

  it.each([
    ['undefined', undefined],
    ['a function', () => 1],
    ['a symbol', Symbol('s')],
    ['a Date', new Date(0)],
    ['a Map', new Map()],
    ['an object without prototype', Object.create(null) as object],
    ['an array holding a function', [1, () => 2]],
    ['an object holding a symbol', { a: { b: Symbol('x') } }],
    [`nesting of ${MAX_VALUE_DEPTH + 1} levels`, nested(MAX_VALUE_DEPTH + 1)],
  ])('refuses %s', (_what, value) => {
    expect(isEncodableValue(value)).toBe(false);
  });
});

describe('repairedSpan', () => {
  it('returns an equal span and 0 repairs when every value is encodable', () => {
    const span: EncodableSpan = {
      ...base,
      attributes: { a: 'x', n: [1, 2], m: { k: null } },
      events: [{ timeUnixNano: 1n, name: 'e', attributes: { b: true } }],
      links: [{ traceId: 't2', spanId: 's2', attributes: { c: 1n } }],
      status: { code: 2, message: 'boom' },
      otlpResource: { attributes: { 'service.name': 'svc' }, schemaUrl: 'u' },
      otlpScope: { name: 'scope', version: '1', attributes: { d: 'y' } },
    };
    const { span: copy, repaired } = repairedSpan(span);
    expect(repaired).toBe(0);
    expect(copy).toEqual(span);
  });

  it('replaces each unencodable value with the marker in attributes, events, links, resource and scope, counting each', () => {
    const fn = (): number => 1;
    const span = {
      ...base,
      attributes: { ok: 'kept', bad: fn, list: ['x', Symbol('s'), undefined], map: { inner: new Date(0), fine: 2 } },
      events: [{ timeUnixNano: 1n, name: 'e', attributes: { bad: fn } }],
      links: [{ traceId: 't2', spanId: 's2', attributes: { bad: new Map() } }],
      otlpResource: { attributes: { bad: fn, 'service.name': 'svc' } },
      otlpScope: { name: 'scope', attributes: { bad: fn } },
    } as unknown as EncodableSpan;
    const { span: copy, repaired } = repairedSpan(span);
    expect(repaired).toBe(7);
    expect(copy.attributes).toEqual({
      ok: 'kept',
      bad: UNENCODABLE_VALUE,
      list: ['x', UNENCODABLE_VALUE, null],
      map: { inner: UNENCODABLE_VALUE, fine: 2 },
    });
    expect(copy.events[0]!.attributes).toEqual({ bad: UNENCODABLE_VALUE });
    expect(copy.links[0]!.attributes).toEqual({ bad: UNENCODABLE_VALUE });
    expect(copy.otlpResource.attributes).toEqual({ bad: UNENCODABLE_VALUE, 'service.name': 'svc' });
    expect(copy.otlpScope.attributes).toEqual({ bad: UNENCODABLE_VALUE });
    expect(span.attributes['bad']).toBe(fn);
  });

  it('replaces a value nested too deep as a whole at the depth limit', () => {
    const { span: copy, repaired } = repairedSpan({
      ...base,
      attributes: { deep: nested(MAX_VALUE_DEPTH + 1) as never },
    });
    expect(repaired).toBe(1);
    let value: unknown = copy.attributes['deep'];
    for (let n = 0; n < MAX_VALUE_DEPTH; n += 1) value = (value as unknown[])[0];
    expect(value).toBe(UNENCODABLE_VALUE);
  });

  it('turns non-string names and status messages into strings and keeps absent attributes absent', () => {
    const span = {
      ...base,
      name: 42,
      events: [{ timeUnixNano: 1n, name: Symbol.for('ev').description }],
      status: { code: 2, message: 7 },
    } as unknown as EncodableSpan;
    const { span: copy } = repairedSpan(span);
    expect(copy.name).toBe('42');
    expect(copy.events).toEqual([{ timeUnixNano: 1n, name: 'ev', attributes: undefined }]);
    expect(copy.status).toEqual({ code: 2, message: '7' });
    expect(copy.otlpScope.attributes).toBeUndefined();
    expect(repairedSpan(base).span.status).toEqual({ code: 0, message: undefined });
  });
});

/**
 * decodeOtlpJsonSpans: total on malformed input, faithful on good input.
 */
import { describe, expect, it } from 'vitest';
import { decodeOtlpJsonSpans, spanViewOfDecoded } from '../../src/otlp/otlp-json-spans.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const SPAN = 'b7ad6b7169203331';
const span = (extra: Record<string, unknown>) => ({
  resourceSpans: [
    { scopeSpans: [{ spans: [{ traceId: TRACE, spanId: SPAN, startTimeUnixNano: '1700000000000000000', ...extra }] }] },
  ],
});

describe('decodeOtlpJsonSpans', () => {
  it.each([
    ['null', null],
    ['a string', 'x'],
    ['resourceSpans that is not a list', { resourceSpans: 3 }],
    ['a span without id', { resourceSpans: [{ scopeSpans: [{ spans: [{ startTimeUnixNano: '1' }] }] }] }],
    ['a span without start', { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: TRACE, spanId: SPAN }] }] }] }],
    [
      'a span id of the wrong length',
      { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: TRACE, spanId: 'ab', startTimeUnixNano: '1' }] }] }] },
    ],
    [
      'an all-zero trace id',
      {
        resourceSpans: [
          { scopeSpans: [{ spans: [{ traceId: '0'.repeat(32), spanId: SPAN, startTimeUnixNano: '1' }] }] },
        ],
      },
    ],
  ])('skips %s without throwing', (_name, input) => {
    expect(decodeOtlpJsonSpans(input)).toEqual([]);
  });

  it('decodes every attribute value type with its wire type and keeps an open span open', () => {
    const [decoded] = decodeOtlpJsonSpans(
      span({
        endTimeUnixNano: '0',
        attributes: [
          { key: 's', value: { stringValue: 'x' } },
          { key: 'i', value: { intValue: '42' } },
          { key: 'd', value: { doubleValue: 1.5 } },
          { key: 'b', value: { boolValue: true } },
          { key: 'a', value: { arrayValue: { values: [{ stringValue: 'p' }, { stringValue: 'q' }] } } },
          { key: 'm', value: { kvlistValue: { values: [{ key: 'k', value: { stringValue: 'v' } }] } } },
          { key: 'e', value: {} },
          {
            key: 'n',
            value: { arrayValue: { values: [{ stringValue: 'p' }, {}, { arrayValue: {} }, { kvlistValue: {} }] } },
          },
          { key: 'w', value: { doubleValue: 3 } },
          { key: 'nan', value: { doubleValue: 'NaN' } },
          { key: 'inf', value: { doubleValue: '-Infinity' } },
          { key: '', value: { stringValue: 'dropped' } },
        ],
        status: { code: 2, message: 'boom' },
      }),
    );
    const { w, nan, inf, ...plain } = decoded!.attributes;
    expect(plain).toEqual({
      s: 'x',
      i: 42,
      d: 1.5,
      b: true,
      a: ['p', 'q'],
      m: { k: 'v' },
      e: null,
      n: ['p', null, [], {}],
    });
    // Doubles JavaScript would read as ints (or could not write as JSON numbers) stay doubles: boxed Numbers.
    expect([w, nan, inf].every((v) => v instanceof Number)).toBe(true);
    expect([w, nan, inf].map(Number)).toEqual([3, Number.NaN, Number.NEGATIVE_INFINITY]);
    expect(decoded?.endTimeUnixNano).toBeUndefined();
    const view = spanViewOfDecoded(decoded!);
    expect(view).toMatchObject({
      spanId: SPAN,
      startMillis: 1_700_000_000_000,
      endMillis: undefined,
      statusCode: 2,
      statusMessage: 'boom',
    });
  });
});

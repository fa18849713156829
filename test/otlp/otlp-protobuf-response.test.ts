/**
 * encodeExportTraceResponse: the empty message on full success, else a
 * partial_success with only its non-default fields, and a RangeError on a
 * count that is not a non-negative safe integer.
 */
import { describe, expect, it } from 'vitest';
import { encodeExportTraceResponse } from '../../src/otlp/otlp-protobuf-response.js';
import { LEN, Reader } from '../../src/otlp/protobuf-reader.js';

/** Decodes the partial_success the response carries, as a client would. */
function decoded(bytes: Uint8Array): { rejectedSpans?: string; errorMessage?: string } | undefined {
  const r = new Reader(bytes);
  if (bytes.length === 0) return undefined;
  expect(r.tag(bytes.length)).toBe((1 << 3) | LEN);
  const end = r.limit(bytes.length);
  expect(end).toBe(bytes.length);
  const out: { rejectedSpans?: string; errorMessage?: string } = {};
  while (r.pos < end) {
    const tag = r.tag(end);
    if (tag === 8) out.rejectedSpans = r.int64(end);
    else if (tag === 18) out.errorMessage = r.string(end);
    else throw new Error(`unexpected tag ${tag}`);
  }
  return out;
}

describe('encodeExportTraceResponse', () => {
  it.each([
    ['no partial', undefined],
    ['0 rejected and no message', { rejectedSpans: 0 }],
    ['0 rejected and an empty message', { rejectedSpans: 0, errorMessage: '' }],
  ])('answers full success (%s) with the empty message', (_what, partial) => {
    expect([...encodeExportTraceResponse(partial)]).toEqual([]);
  });

  it('writes rejected spans and message as exact bytes', () => {
    expect([...encodeExportTraceResponse({ rejectedSpans: 3, errorMessage: 'no' })]).toEqual([
      0x0a, 0x06, 0x08, 0x03, 0x12, 0x02, 0x6e, 0x6f,
    ]);
  });

  it.each([
    [{ rejectedSpans: 5 }, { rejectedSpans: '5' }],
    [{ rejectedSpans: 0, errorMessage: 'warning: clock skew' }, { errorMessage: 'warning: clock skew' }],
    [
      { rejectedSpans: 2 ** 40, errorMessage: 'é'.repeat(100) },
      { rejectedSpans: '1099511627776', errorMessage: 'é'.repeat(100) },
    ],
    [{ rejectedSpans: Number.MAX_SAFE_INTEGER }, { rejectedSpans: '9007199254740991' }],
  ])('writes only the non-default fields of %j', (partial, expected) => {
    expect(decoded(encodeExportTraceResponse(partial))).toEqual(expected);
  });

  it.each([-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1, Number.POSITIVE_INFINITY])(
    'rejects %d rejected spans with a RangeError',
    (rejectedSpans) => {
      expect(() => encodeExportTraceResponse({ rejectedSpans })).toThrow(
        new RangeError(`rejectedSpans must be a non-negative safe integer, got ${rejectedSpans}`),
      );
    },
  );
});

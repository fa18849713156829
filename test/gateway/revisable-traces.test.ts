/**
 * RevisableTraces (src/gateway/revisable-traces.ts): judged traces kept by id
 * until a deadline, counted in estimated bytes, taken out whole, expired once
 * due and ready, and the oldest let go first to stay under a byte bound.
 */
import { describe, expect, it } from 'vitest';
import { decodedSpanBytes } from '../../src/gateway/decoded-size.js';
import type { KeptTrace } from '../../src/gateway/revisable-traces.js';
import { RevisableTraces } from '../../src/gateway/revisable-traces.js';
import { decodedSpan } from '../support/decoded-span.js';

/** A kept trace of `n` spans of trace `id`. */
function trace(id: string, n = 1): KeptTrace {
  const spans = Array.from({ length: n }, (_, i) => decodedSpan(id, `${id}-${i}`));
  return { spans, verdicts: new Map(), runIds: [spans[0]!.spanId], revisions: new Map() };
}
const ONE = decodedSpanBytes(decodedSpan('x', 'x-0'));

describe('RevisableTraces', () => {
  it('counts the bytes of every span kept and the traces kept', () => {
    const kept = new RevisableTraces();
    kept.keep('a', trace('a', 2), 100);
    kept.keep('b', trace('b', 3), 100);
    expect([kept.size, kept.bytes]).toEqual([2, 5 * ONE]);
  });

  it('take returns the trace as kept and forgets it and its bytes', () => {
    const kept = new RevisableTraces();
    const a = trace('a', 2);
    kept.keep('a', a, 100);
    const taken = kept.take('a');
    expect(taken?.spans).toBe(a.spans);
    expect(taken?.runIds).toEqual(['a-0']);
    expect([kept.size, kept.bytes]).toEqual([0, 0]);
    expect(kept.take('a')).toBeUndefined();
  });

  it('keeping a trace again replaces it, bytes and deadline', () => {
    const kept = new RevisableTraces();
    kept.keep('a', trace('a', 3), 100);
    kept.keep('a', trace('a', 1), 500);
    expect([kept.size, kept.bytes]).toEqual([1, ONE]);
    expect(kept.expire(499)).toEqual([]);
    expect(kept.expire(500).map((t) => t.spans.length)).toEqual([1]);
  });

  it.each([
    ['before any deadline', 99, [], ['a', 'b']],
    ['at the first deadline', 100, ['a'], ['b']],
    ['past both', 1_000, ['a', 'b'], []],
  ])('expire %s takes out exactly the due traces', (_case, now, expired, left) => {
    const kept = new RevisableTraces();
    kept.keep('a', trace('a'), 100);
    kept.keep('b', trace('b'), 200);
    expect(kept.expire(now).map((t) => t.spans[0]!.traceId)).toEqual(expired);
    expect(left.map((id) => kept.take(id) !== undefined)).toEqual(left.map(() => true));
  });

  it('expire leaves a due trace that is not ready', () => {
    const kept = new RevisableTraces();
    kept.keep('a', trace('a'), 100);
    kept.keep('b', trace('b'), 100);
    expect(kept.expire(100, (id) => id !== 'a').map((t) => t.spans[0]!.traceId)).toEqual(['b']);
    expect([kept.size, kept.bytes]).toEqual([1, ONE]);
  });

  it('shrinkTo lets go of the oldest until under the bound and counts them as evicted', () => {
    const kept = new RevisableTraces();
    kept.keep('a', trace('a', 2), 100);
    kept.keep('b', trace('b', 2), 100);
    kept.keep('c', trace('c', 2), 100);
    kept.shrinkTo(4 * ONE);
    expect([kept.size, kept.bytes, kept.evicted]).toEqual([2, 4 * ONE, 1]);
    expect(kept.take('a')).toBeUndefined();
    kept.shrinkTo(ONE);
    expect([kept.size, kept.bytes, kept.evicted]).toEqual([0, 0, 3]);
    kept.shrinkTo(0);
    expect(kept.evicted).toBe(3);
  });
});

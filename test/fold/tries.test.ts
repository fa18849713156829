/**
 * Tries inside one attempt span (src/fold/tries.ts,
 * docs/conventions.md#retries-inside-one-span): which earlier tries a span
 * adds, where they go among the run's attempts and how everything is
 * renumbered, and the facts each try carries.
 */
import { describe, expect, it } from 'vitest';
import type { EarlierTry } from '../../src/conventions/adapter.js';
import { insertTries, triesToAdd, tryFacts } from '../../src/fold/tries.js';
import type { AttemptRecord, FactDraft } from '../../src/model/facts.js';

const reset = (at: number): EarlierTry => ({
  startMillis: at,
  failedMillis: at + 1,
  error: { kind: 'transport', detail: 'connection_reset', retryable: true },
});
/** A try only a stated count names: at the span's start (100), its error unknown. */
const UNNAMED: EarlierTry = { startMillis: 100, failedMillis: 100, error: { kind: 'unknown' } };

describe('triesToAdd', () => {
  it.each([
    ['the recorded tries, when no count is stated', [reset(1)], undefined, 0, [reset(1)]],
    ['nothing, when the span recorded none and states none', [], undefined, 0, []],
    ['as many unnamed tries as the count names beyond the last', [], 3, 0, [UNNAMED, UNNAMED]],
    ['unnamed ones first, then the recorded, up to the count', [reset(1)], 3, 0, [UNNAMED, reset(1)]],
    ['none for tries earlier attempt spans of the same call already are', [], 3, 2, []],
    ['the recorded tries even when the count names fewer', [reset(1), reset(2)], 2, 0, [reset(1), reset(2)]],
  ])('adds %s', (_case, recorded, stated, sameCallBefore, expected) => {
    expect(triesToAdd(recorded, stated, sameCallBefore, 100)).toEqual(expected);
  });

  it('tells apart at most 64 tries in one span, the latest', () => {
    expect(triesToAdd([], 1_000, 0, 100)).toHaveLength(63);
    const recorded = Array.from({ length: 70 }, (_, i) => reset(i));
    expect(triesToAdd(recorded, undefined, 0, 100)).toEqual(recorded.slice(-64));
  });
});

describe('insertTries', () => {
  const attempts = (): AttemptRecord[] => [
    { key: 'a', number: 1, startMillis: 10 },
    { key: 'b', number: 2, startMillis: 20 },
    { key: 'c', number: 3, startMillis: 30 },
  ];

  it('inserts one attempt per try right before the span, at its start, and renumbers from there', () => {
    const list = attempts();
    expect(insertTries(list, 'b', [reset(21), reset(22)])).toEqual(['b/try-1', 'b/try-2']);
    expect(list).toEqual([
      { key: 'a', number: 1, startMillis: 10 },
      { key: 'b/try-1', number: 2, startMillis: 20 },
      { key: 'b/try-2', number: 3, startMillis: 20 },
      { key: 'b', number: 4, startMillis: 20 },
      { key: 'c', number: 5, startMillis: 30 },
    ]);
  });

  it.each([
    ['a key that is not an attempt', 'zz', [reset(1)]],
    ['no tries', 'b', []],
  ])('changes nothing for %s', (_case, key, tries) => {
    const list = attempts();
    expect(insertTries(list, key, tries)).toEqual([]);
    expect(list).toEqual(attempts());
  });
});

describe('tryFacts', () => {
  const tools = { tools: [], external: false };
  const boundary: FactDraft = { kind: 'side_effect_boundary', boundary: tools, timeMillis: 5 };

  it("gives each try the span's side-effect boundary at the try's start and its error at its failure", () => {
    expect(tryFacts([reset(1), reset(3)], ['k/try-1', 'k/try-2'], boundary)).toEqual([
      { kind: 'side_effect_boundary', boundary: tools, timeMillis: 1, attempt: 'k/try-1' },
      { kind: 'provider_error', error: reset(1).error, timeMillis: 2, attempt: 'k/try-1' },
      { kind: 'side_effect_boundary', boundary: tools, timeMillis: 3, attempt: 'k/try-2' },
      { kind: 'provider_error', error: reset(3).error, timeMillis: 4, attempt: 'k/try-2' },
    ]);
  });

  it.each([
    ['only the error, without a boundary', [reset(1)], ['k/try-1'], undefined, 1],
    ['nothing for a try without a key', [reset(1), reset(3)], ['k/try-1'], boundary, 2],
  ])('gives %s', (_case, tries, keys, given, count) => {
    expect(tryFacts(tries, keys, given)).toHaveLength(count);
  });
});

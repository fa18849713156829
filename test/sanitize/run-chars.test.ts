/**
 * Run characters (src/sanitize/run-chars.ts): the character classes the
 * catch-all reads text by.
 */
import { describe, expect, it } from 'vitest';
import {
  caseOf,
  endsValue,
  isAlnum,
  isGapChar,
  isHexOrUuid,
  isNumber,
  isQuote,
  isRunChar,
  isShortWord,
} from '../../src/sanitize/run-chars.js';

/** The characters of `pool` for which `test` holds, as one string. */
const passing = (pool: string, test: (c: number) => boolean) =>
  [...pool].filter((ch) => test(ch.charCodeAt(0))).join('');
const POOL = 'aZ09_-.+/~=:;,& \t"\'`\\()[]{}<>@#!?';

describe('character classes', () => {
  it.each([
    ['isRunChar', isRunChar, 'aZ09_-.+/~'],
    ['isAlnum', isAlnum, 'aZ09'],
    ['isQuote', isQuote, '"\'`'],
    ['endsValue', endsValue, ';,& \t"\'`\\()[]}<>'],
    ['isGapChar', isGapChar, '=: \t"\'`\\>'],
  ])('%s accepts exactly its characters', (_, test, accepted) => {
    expect(passing(POOL, test)).toBe(accepted);
  });
});

describe('caseOf', () => {
  it.each([
    ['a', 'lower'],
    ['z', 'lower'],
    ['A', 'upper'],
    ['Z', 'upper'],
    ['0', 'digit'],
    ['9', 'digit'],
    ['_', 'other'],
    ['é', 'other'],
  ])('%s → %s', (ch, kind) => {
    expect(caseOf(ch.charCodeAt(0))).toBe(kind);
  });
});

describe('run tests', () => {
  it.each([
    ['Bearer', true, false, false],
    ['is', true, false, false],
    ['abcdefghi', false, false, false],
    ['Bear3r', false, false, false],
    ['deadBEEF', true, true, false],
    ['0b7c4a1e-1f2d-4c3b-9a8e-7d6c5b4a3f21', false, true, false],
    ['20241101', false, true, true],
    ['12a', false, true, false],
    ['g00d', false, false, false],
  ])('%s: short word %s, hex or UUID %s, number %s', (run, word, hex, number) => {
    expect([isShortWord(run, 0, run.length), isHexOrUuid(run, 0, run.length), isNumber(run, 0, run.length)]).toEqual([
      word,
      hex,
      number,
    ]);
  });

  it('reads only the range it is given', () => {
    const text = 'key=1234;x';
    expect(isNumber(text, 4, 8)).toBe(true);
    expect(isShortWord(text, 0, 3)).toBe(true);
    expect(isHexOrUuid(text, 4, 9)).toBe(false);
  });

  it('takes an empty range for no number', () => {
    expect(isNumber('123', 1, 1)).toBe(false);
  });
});

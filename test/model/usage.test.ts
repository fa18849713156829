/** usageFrom keeps the figures that are given and says "nothing reported" when none is: a zero is a figure, a null is not. */
import { describe, expect, it } from 'vitest';
import { usageFrom } from '../../src/model/usage.js';

describe('usageFrom', () => {
  it.each([
    [
      'every figure',
      { inputTokens: 1, outputTokens: 2, reasoningTokens: 3, cachedInputTokens: 4, costUsd: 0.5 },
      { inputTokens: 1, outputTokens: 2, reasoningTokens: 3, cachedInputTokens: 4, costUsd: 0.5 },
    ],
    ['a zero is kept', { inputTokens: 0, outputTokens: undefined }, { inputTokens: 0 }],
    ['null and undefined are left out', { inputTokens: 7, outputTokens: null, costUsd: undefined }, { inputTokens: 7 }],
    ['nothing given', { inputTokens: undefined, outputTokens: null }, undefined],
    ['no figures at all', {}, undefined],
  ])('%s', (_what, figures, expected) => {
    expect(usageFrom(figures)).toEqual(expected);
  });
});

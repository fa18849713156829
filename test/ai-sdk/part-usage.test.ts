/**
 * The usage of an AI SDK part or result, in every shape the SDK has used:
 * a provider's V3/V4 `finish` part (nested totals), ai 6's
 * `LanguageModelUsage` (flat, with details), and V2's flat counts.
 */
import { describe, expect, it } from 'vitest';
import { usageOfAiSdk } from '../../src/ai-sdk/part-usage.js';

describe('usageOfAiSdk', () => {
  it.each([
    [
      'a V3 provider finish part',
      {
        inputTokens: { total: 1200, noCache: 200, cacheRead: 1000, cacheWrite: 0 },
        outputTokens: { total: 85, text: 45, reasoning: 40 },
      },
      { inputTokens: 1200, outputTokens: 85, reasoningTokens: 40, cachedInputTokens: 1000 },
    ],
    [
      'ai 6 LanguageModelUsage',
      {
        inputTokens: 300,
        outputTokens: 20,
        totalTokens: 320,
        inputTokenDetails: { noCacheTokens: 100, cacheReadTokens: 200, cacheWriteTokens: 0 },
        outputTokenDetails: { textTokens: 15, reasoningTokens: 5 },
      },
      { inputTokens: 300, outputTokens: 20, reasoningTokens: 5, cachedInputTokens: 200 },
    ],
    [
      'V2 flat counts',
      { inputTokens: 10, outputTokens: 2, totalTokens: 12, reasoningTokens: 1, cachedInputTokens: 4 },
      { inputTokens: 10, outputTokens: 2, reasoningTokens: 1, cachedInputTokens: 4 },
    ],
    [
      'a provider that reported only input',
      { inputTokens: { total: 50 }, outputTokens: { total: undefined } },
      { inputTokens: 50 },
    ],
  ])('%s', (_what, usage, expected) => {
    expect(usageOfAiSdk(usage)).toEqual(expected);
  });

  it.each([
    ['nothing', undefined],
    ['null', null],
    ['a number', 12],
    ['no counts', { inputTokens: { total: undefined }, outputTokens: {} }],
    ['garbage counts', { inputTokens: -1, outputTokens: 'many' }],
  ])('reads no usage from %s', (_what, usage) => {
    expect(usageOfAiSdk(usage)).toBeUndefined();
  });
});

/**
 * An attempt span's usage, whichever convention wrote it: every family of
 * keys is read, the first that holds a count wins, and anything that is not a
 * finite, non-negative count is read as not reported (never as zero).
 */
import { describe, expect, it } from 'vitest';
import { attemptUsageOf, usageCount, USAGE_KEYS } from '../../src/conventions/attempt-usage.js';

describe('attemptUsageOf reads each convention’s usage keys', () => {
  it.each([
    [
      'GenAI semantic conventions',
      {
        'gen_ai.usage.input_tokens': 1200,
        'gen_ai.usage.output_tokens': 85,
        'gen_ai.usage.reasoning.output_tokens': 40,
        'gen_ai.usage.cache_read.input_tokens': 1000,
      },
      { inputTokens: 1200, outputTokens: 85, reasoningTokens: 40, cachedInputTokens: 1000 },
    ],
    [
      'AI SDK 6 (ai.usage.*)',
      { 'ai.usage.inputTokens': 174, 'ai.usage.outputTokens': 3, 'ai.usage.reasoningTokens': 0 },
      { inputTokens: 174, outputTokens: 3, reasoningTokens: 0 },
    ],
    [
      'AI SDK 4 (prompt / completion)',
      { 'ai.usage.promptTokens': 10, 'ai.usage.completionTokens': 20 },
      { inputTokens: 10, outputTokens: 20 },
    ],
    [
      'OpenInference, with its cost',
      {
        'llm.token_count.prompt': 500,
        'llm.token_count.completion': 60,
        'llm.token_count.completion_details.reasoning': 12,
        'llm.token_count.prompt_details.cache_read': 100,
        'llm.cost.total': 0.0031,
      },
      { inputTokens: 500, outputTokens: 60, reasoningTokens: 12, cachedInputTokens: 100, costUsd: 0.0031 },
    ],
    [
      'OpenLLMetry and OpenLIT',
      { 'llm.usage.prompt_tokens': 7, 'llm.usage.completion_tokens': 8, 'gen_ai.usage.cost': 0.5 },
      { inputTokens: 7, outputTokens: 8, costUsd: 0.5 },
    ],
    [
      'the native cost key before the others',
      { 'agent_incidents.usage.cost_usd': 0.02, 'gen_ai.usage.cost': 9 },
      { costUsd: 0.02 },
    ],
  ])('%s', (_what, attributes, expected) => {
    expect(attemptUsageOf(attributes)).toEqual(expected);
  });

  it('reads nothing from a span that reports no usage', () => {
    expect(attemptUsageOf({ 'gen_ai.operation.name': 'chat' })).toBeUndefined();
  });

  it('takes the first key of a family that holds a count, skipping one that does not', () => {
    expect(attemptUsageOf({ 'gen_ai.usage.input_tokens': 'n/a', 'ai.usage.inputTokens': 42 })).toEqual({
      inputTokens: 42,
    });
  });

  it('names every figure of AttemptUsage', () => {
    expect(Object.keys(USAGE_KEYS).sort()).toEqual(
      ['cachedInputTokens', 'costUsd', 'inputTokens', 'outputTokens', 'reasoningTokens'].sort(),
    );
  });
});

describe('usageCount: a count is a finite, non-negative number, however it was sent', () => {
  it.each([
    [120, 120],
    [0, 0],
    [0.25, 0.25],
    [120n, 120],
    ['120', 120],
    ['120.0', 120],
    [-1, undefined],
    [Number.NaN, undefined],
    [Number.POSITIVE_INFINITY, undefined],
    [-5n, undefined],
    [2n ** 80n, undefined],
    ['-3', undefined],
    ['12 tokens', undefined],
    ['1e3', undefined],
    ['', undefined],
    [true, undefined],
    [null, undefined],
    [[1], undefined],
    [{ total: 3 }, undefined],
  ])('%s → %s', (value, expected) => {
    expect(usageCount(value)).toBe(expected);
  });
});

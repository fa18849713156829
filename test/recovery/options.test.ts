/** integerOption's promise (src/recovery/options.ts): an integer within bounds passes; anything else is a RangeError naming the strategy and option. */
import { describe, expect, it } from 'vitest';
import { integerOption, MAX_WAIT_MILLIS } from '../../src/recovery/options.js';

describe('integerOption', () => {
  it.each([
    [0, 0, undefined],
    [5, 1, 10],
    [Number.MAX_SAFE_INTEGER, 0, undefined],
  ])('passes %d within [%d, %s]', (value, min, max) => {
    expect(integerOption('safeRetry', 'maxRetries', value, min, max)).toBe(value);
  });

  it.each([
    [1.5, 0, 10, 'safeRetry: maxRetries must be an integer from 0 to 10, got 1.5'],
    [-1, 0, 10, 'safeRetry: maxRetries must be an integer from 0 to 10, got -1'],
    [11, 0, 10, 'safeRetry: maxRetries must be an integer from 0 to 10, got 11'],
    [
      Number.NaN,
      1,
      undefined,
      `safeRetry: maxRetries must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}, got NaN`,
    ],
  ])('rejects %d', (value, min, max, message) => {
    expect(() => integerOption('safeRetry', 'maxRetries', value, min, max)).toThrow(new RangeError(message));
  });

  it('bounds waits by what setTimeout can wait', () => {
    expect(MAX_WAIT_MILLIS).toBe(2 ** 31 - 1);
  });
});

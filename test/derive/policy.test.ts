/**
 * resolvePolicy's promises (src/derive/policy.ts): no input is the documented
 * defaults, a partial input is filled with them, the result is frozen, and an
 * invalid value is a TypeError naming the option.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, resolvePolicy } from '../../src/derive/policy.js';

describe('resolvePolicy', () => {
  it('gives the documented defaults for no input', () => {
    expect(resolvePolicy()).toBe(DEFAULT_POLICY);
    expect(DEFAULT_POLICY).toEqual({
      maxAutoRetries: 1,
      reasoningCountsAsVisible: false,
      trustedReadOnlyTools: [],
      missingBoundary: 'fail_closed',
    });
  });

  it('fills a partial policy with the defaults, frozen', () => {
    const policy = resolvePolicy({ maxAutoRetries: 3, trustedReadOnlyTools: ['search'] });
    expect(policy).toEqual({
      maxAutoRetries: 3,
      reasoningCountsAsVisible: false,
      trustedReadOnlyTools: ['search'],
      missingBoundary: 'fail_closed',
    });
    expect(Object.isFrozen(policy)).toBe(true);
  });

  it.each([
    [{ maxAutoRetries: -1 }, 'agent-incidents: invalid policy.maxAutoRetries: Too small: expected number to be >=0'],
    [
      { maxAutoRetries: 1.5 },
      'agent-incidents: invalid policy.maxAutoRetries: Invalid input: expected int, received number',
    ],
    [
      { trustedReadOnlyTools: [''] },
      'agent-incidents: invalid policy.trustedReadOnlyTools.0: Too small: expected string to have >=1 characters',
    ],
    [
      { missingBoundary: 'maybe' },
      'agent-incidents: invalid policy.missingBoundary: Invalid option: expected one of "fail_closed"|"assume_complete"',
    ],
    [{ other: true }, 'agent-incidents: invalid policy: Unrecognized key: "other"'],
  ])('throws a TypeError naming the option for %j', (input, message) => {
    expect(() => resolvePolicy(input as never)).toThrow(new TypeError(message));
  });
});

/** isOneOf's promise (src/model/enums.ts): true only for a string in the list, whatever else it is given. */
import { describe, expect, it } from 'vitest';
import { CAUSES, isOneOf } from '../../src/model/enums.js';

describe('isOneOf', () => {
  it.each([
    ['a member', 'user_cancel', true],
    ['a string not in the list', 'fake_cause', false],
    ['a member in another case', 'USER_CANCEL', false],
    ['a number', 1, false],
    ['undefined', undefined, false],
    ['an object', { toString: () => 'user_cancel' }, false],
  ])('%s → %s', (_case, value, member) => {
    expect(isOneOf(CAUSES, value)).toBe(member);
  });
});

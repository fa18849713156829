/**
 * The exhaustiveness helpers (src/model/exhaustive.ts): assertNever throws an
 * error naming what it met, even a value JSON cannot write; checkExhaustive
 * does nothing at run time (its work is the compiler's, see
 * test/exhaustive.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { assertNever, checkExhaustive } from '../../src/model/exhaustive.js';

describe('assertNever', () => {
  const cyclic: Record<string, unknown> = {};
  cyclic['self'] = cyclic;
  it.each([
    ['a string, as JSON', 'fake', 'unexpected cause: "fake"'],
    ['an object, as JSON', { kind: 'x' }, 'unexpected fact: {"kind":"x"}'],
    ['undefined, which JSON cannot write', undefined, 'unexpected fact: undefined'],
    ['a cyclic value, by String', cyclic, 'unexpected fact: [object Object]'],
  ])('names %s', (_case, value, message) => {
    const what = message.includes('cause') ? 'cause' : 'fact';
    expect(() => assertNever(value as never, what)).toThrow(new Error(message));
  });
});

describe('checkExhaustive', () => {
  it('returns without a value at run time', () => {
    expect(checkExhaustive('anything' as never)).toBeUndefined();
  });
});

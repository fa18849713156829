/**
 * Wire doubles (src/otlp/wire-double.ts): a number that must go out as an
 * OTLP double though JavaScript cannot tell it from an integer (`120.0`), or
 * that no JSON number can write, is boxed; any other number stays as it is.
 */
import { describe, expect, it } from 'vitest';
import { isWireDouble, wireDouble } from '../../src/otlp/wire-double.js';

describe('wireDouble', () => {
  it.each([
    ['an integral double is boxed', 120, true],
    ['an infinite double is boxed', Number.POSITIVE_INFINITY, true],
    ['NaN is boxed', Number.NaN, true],
    ['a fractional double stays a number', 1.5, false],
  ])('%s', (_case, value, boxed) => {
    const wire = wireDouble(value);
    expect(isWireDouble(wire)).toBe(boxed);
    expect(Number(wire)).toBe(value);
  });

  it.each([
    [7, false],
    ['7', false],
    [undefined, false],
    [Object(7), true],
  ])('isWireDouble(%j) is %s', (value, boxed) => {
    expect(isWireDouble(value)).toBe(boxed);
  });
});

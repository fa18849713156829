/** Number agreement (src/report/plural.ts): the singular for exactly 1, the plural for anything else, with the count written first. */
import { describe, expect, it } from 'vitest';
import { counted, plural } from '../../src/report/plural.js';

describe('plural', () => {
  it.each([
    [0, 'run', undefined, 'runs'],
    [1, 'run', undefined, 'run'],
    [2, 'run', undefined, 'runs'],
    [1.5, 'run', undefined, 'runs'],
    [1, 'was', 'were', 'was'],
    [3, 'was', 'were', 'were'],
  ])('%d %s (plural %s) → %s', (n, singular, pluralForm, form) => {
    expect(plural(n, singular, pluralForm)).toBe(form);
  });
});

describe('counted', () => {
  it.each([
    [0, 'run', {}, '0 runs'],
    [1, 'run', {}, '1 run'],
    [2, 'incident is', { plural: 'incidents are' }, '2 incidents are'],
    [12_345, 'span', { format: (n: number) => n.toLocaleString('en-US') }, '12,345 spans'],
  ])('%d %s → %s', (n, singular, options, text) => {
    expect(counted(n, singular, options)).toBe(text);
  });
});

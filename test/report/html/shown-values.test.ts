/** How values read on the report page (src/report/html/shown-values.ts): counts, number agreement, tones and "none". */
import { describe, expect, it } from 'vitest';
import { count, counting, shown, toneClass } from '../../../src/report/html/shown-values.js';

describe('count', () => {
  it.each<[unknown, string]>([
    [0, '0'],
    [7, '7'],
    [1204, '1,204'],
    [1_234_567, '1,234,567'],
    [2.6, '3'],
    [-5, '0'],
    [Number.NaN, '0'],
    [Number.POSITIVE_INFINITY, '0'],
    ['12', '0'],
    [undefined, '0'],
  ])('%j → %j', (n, text) => {
    expect(count(n)).toBe(text);
  });
});

describe('counting', () => {
  it.each<[unknown, string, string | undefined, string]>([
    [1, 'run', undefined, '1 run'],
    [0, 'run', undefined, '0 runs'],
    [1204, 'run', undefined, '1,204 runs'],
    [0.6, 'run', undefined, '1 run'],
    [-3, 'run', undefined, '0 runs'],
    [Number.NaN, 'run', undefined, '0 runs'],
    [2, 'trace judged early', 'traces judged early', '2 traces judged early'],
    [1, 'trace judged early', 'traces judged early', '1 trace judged early'],
  ])('%j %s → %s', (n, singular, pluralForm, text) => {
    expect(counting(n, singular, pluralForm)).toBe(text);
  });
});

describe('toneClass', () => {
  it.each<['outcome' | 'retrySafety' | 'other', string, string]>([
    ['outcome', 'success', ' c-ok'],
    ['outcome', 'recovered', ' c-info'],
    ['outcome', 'failed', ' c-bad'],
    ['outcome', 'cancelled', ' c-neutral'],
    ['outcome', 'incomplete', ' c-warn'],
    ['outcome', 'exploded', ' c-neutral'],
    ['outcome', '', ' c-neutral'],
    ['retrySafety', 'auto_retry', ' c-ok'],
    ['retrySafety', 'offer_continue', ' c-info'],
    ['retrySafety', 'ask_user_before_retry', ' c-warn'],
    ['retrySafety', 'do_not_retry', ' c-bad'],
    ['retrySafety', 'unknown', ' c-neutral'],
    ['retrySafety', 'maybe', ' c-neutral'],
    ['other', 'failed', ''],
    ['other', 'do_not_retry', ''],
  ])('%s %j → %j', (dimension, value, tone) => {
    expect(toneClass(dimension, value)).toBe(tone);
  });
});

describe('shown', () => {
  it.each<[string | undefined, string]>([
    [undefined, '<span class="is-none">none</span>'],
    ['', '<span class="is-none">none</span>'],
    ['openai', 'openai'],
    ['tool_execution_interrupted', 'tool_<wbr>execution_<wbr>interrupted'],
    ['<x>_"y"', '&lt;x&gt;_<wbr>&quot;y&quot;'],
    ['_lead', '_<wbr>lead'],
  ])('%j → %j', (value, markup) => {
    expect(shown(value).value).toBe(markup);
  });
});

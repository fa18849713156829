/** A count of runs as a bar chart that is also a table, and as filter options (src/report/html/count-chart.ts). */
import { describe, expect, it } from 'vitest';
import { chart, filterOptions } from '../../../src/report/html/count-chart.js';
import type { Counts } from '../../../src/report/report-model.js';

/** [value, row heading, bar classes, bar width, count] of each row of a chart. */
function rows(markup: string): [string, string, string, string, string][] {
  return [
    ...markup.matchAll(
      /<tr data-value="([^"]*)">\n<th scope="row">(.*?)<\/th>\n<td class="share"><span class="([^"]*)" style="width:([^"]*)"><\/span><\/td>\n<td class="num">([^<]*)<\/td>/g,
    ),
  ].map((m) => [m[1]!, m[2]!, m[3]!, m[4]!, m[5]!]);
}

describe('chart', () => {
  it('sizes each bar against the largest count and writes the count beside it', () => {
    const counts: Counts = [
      ['failed', 1204],
      ['incomplete', 602],
      ['success', 0],
    ];
    expect(rows(chart('By outcome', 'all runs', counts, 'outcome', 'c-outcome').value)).toEqual([
      ['failed', 'failed', 'bar c-bad', '100.00%', '1,204'],
      ['incomplete', 'incomplete', 'bar c-warn', '50.00%', '602'],
      ['success', 'success', 'bar c-ok', '0.00%', '0'],
    ]);
  });

  it('titles the table, names its columns after the dimension and carries the id', () => {
    const out = chart('By retry safety', 'incidents', [['auto_retry', 1]], 'retrySafety', 'c-safety').value;
    expect(out.startsWith('<section class="chart" id="c-safety">')).toBe(true);
    expect(out).toContain('<caption>By retry safety <span class="muted">· incidents</span></caption>');
    expect(out).toContain('<th scope="col">retry safety</th><th scope="col">Share</th><th scope="col">Runs</th>');
    expect(rows(out)).toEqual([['auto_retry', 'auto_<wbr>retry', 'bar c-ok', '100.00%', '1']]);
  });

  it('shows an absent value as none and gives no tone on other dimensions', () => {
    const out = chart('By cause', 'incidents', [['', 2]], 'other', 'c-cause').value;
    expect(rows(out)).toEqual([['', '<span class="is-none">none</span>', 'bar', '100.00%', '2']]);
  });

  it.each<[string, number, string, string]>([
    ['negative', -4, '0.00%', '0'],
    ['NaN', Number.NaN, '0.00%', '0'],
    ['infinite', Number.POSITIVE_INFINITY, '0.00%', '0'],
  ])('a %s count draws an empty bar and reads 0', (_, n, width, text) => {
    const out = chart(
      'By phase',
      'incidents',
      [
        ['tool_execution', 4],
        ['x', n],
      ],
      'other',
      'c',
    ).value;
    expect(rows(out)[1]).toEqual(['x', 'x', 'bar', width, text]);
  });

  it('all-zero counts do not divide by zero', () => {
    expect(rows(chart('By phase', 'incidents', [['a', 0]], 'other', 'c').value)).toEqual([
      ['a', 'a', 'bar', '0.00%', '0'],
    ]);
  });

  it('says there is nothing to count when there are no counts', () => {
    const out = chart('By cause', 'incidents', [], 'other', 'c').value;
    expect(out).toContain('<tbody>\n<tr><td colspan="3" class="muted">nothing to count</td></tr>\n</tbody>');
    expect(rows(out)).toEqual([]);
  });

  it('escapes values and titles from the file', () => {
    const out = chart('By <cause>', '"x"', [['<b>"', 1]], 'other', 'c').value;
    expect(out).toContain('<tr data-value="&lt;b&gt;&quot;">');
    expect(out).toContain('<caption>By &lt;cause&gt; <span class="muted">· &quot;x&quot;</span></caption>');
    expect(out).not.toContain('<b>');
  });
});

describe('filterOptions', () => {
  it('lists "all" first, then one option per value with its count, an absent value as none', () => {
    const counts: Counts = [
      ['tool_execution', 1500],
      ['', 2],
    ];
    expect(filterOptions('phase', 'Phase', counts).value).toBe(
      '<label>Phase<select name="phase"><option value="*">all</option>' +
        '<option value="tool_execution">tool_execution (1,500)</option>' +
        '<option value="">none (2)</option></select></label>',
    );
  });

  it('with no counts offers only "all", and escapes what it is given', () => {
    expect(filterOptions('a"b', '<L>', []).value).toBe(
      '<label>&lt;L&gt;<select name="a&quot;b"><option value="*">all</option></select></label>',
    );
  });
});

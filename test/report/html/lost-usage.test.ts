/**
 * What incidents cost on the report page (src/report/html/lost-usage.ts, docs/cli.md#lost-usage): a table by cause
 * and one by retry safety with their totals, the figures the report holds; a floor marked `≥` with a note saying
 * why; a cost column only when some run reported one; a sentence instead of empty tables when no run lost an
 * attempt; a value from the file escaped; one line per run for its card.
 */
import { describe, expect, it } from 'vitest';
import { lostLine, lostSection } from '../../../src/report/html/lost-usage.js';
import type { LostReport } from '../../../src/report/report-model.js';
import { lostFigures, NO_LOST } from '../report-fixtures.js';

/** [value, cells as text, floor] of each row of the table `id` (its total last). */
function rows(page: string, id: string): [string, string[], boolean][] {
  const start = page.indexOf(`<section class="lost-table" id="${id}">`);
  expect(start).toBeGreaterThanOrEqual(0);
  const table = page.slice(start, page.indexOf('</section>', start));
  return [...table.matchAll(/<tr data-value="([^"]*)"( data-floor="true")?>([\s\S]*?)<\/tr>/g)].map((m) => [
    m[1]!,
    [...m[3]!.matchAll(/<td class="num[^"]*">(.*?)<\/td>/g)].map((c) => c[1]!.replace(/<abbr[^>]*>≥<\/abbr> /, '≥ ')),
    m[2] !== undefined,
  ]);
}

const FLOOR_RUN = lostFigures({ runs: 1, attempts: 2, inputTokens: 1500, lowerBoundRuns: 1, lowerBound: true });
const COSTED = lostFigures({
  runs: 1,
  attempts: 1,
  inputTokens: 2000,
  outputTokens: 200,
  costUsd: 0.0125,
  costRuns: 1,
});
const TOTAL = lostFigures({
  runs: 2,
  attempts: 3,
  inputTokens: 3500,
  outputTokens: 200,
  costUsd: 0.0125,
  costRuns: 1,
  lowerBoundRuns: 1,
  lowerBound: true,
});
const LOST: LostReport = {
  total: TOTAL,
  byCause: [
    { value: 'provider_api_error', ...COSTED },
    { value: '<b>x</b>', ...FLOOR_RUN },
  ],
  byRetrySafety: [
    { value: 'auto_retry', ...COSTED },
    { value: '', ...FLOOR_RUN },
  ],
};

describe('lostSection', () => {
  it('says no run lost an attempt instead of tables of zeros', () => {
    const page = lostSection(NO_LOST).value;
    expect(page).toContain('<h2 id="lost-heading">Tokens lost</h2>');
    expect(page).toContain('<p class="note" id="lost-none">No run lost an attempt');
    expect(page).not.toContain('<table>');
  });

  it('a table by cause and one by retry safety, each with its total, a floor marked and a missing cost "-"', () => {
    const page = lostSection(LOST).value;
    const total: [string, string[], boolean] = ['total', ['2', '3', '≥ 3,500', '≥ 200', '≥ $0.0125'], true];
    expect(rows(page, 'lost-cause')).toEqual([
      ['provider_api_error', ['1', '1', '2,000', '200', '$0.0125'], false],
      ['&lt;b&gt;x&lt;/b&gt;', ['1', '2', '≥ 1,500', '≥ 0', '-'], true],
      total,
    ]);
    expect(rows(page, 'lost-retry-safety')).toEqual([
      ['auto_retry', ['1', '1', '2,000', '200', '$0.0125'], false],
      ['', ['1', '2', '≥ 1,500', '≥ 0', '-'], true],
      total,
    ]);
    expect(page).not.toContain('<b>x</b>');
    expect(page).toContain('<span class="is-none">none</span>');
    expect(page).toContain('<th scope="col">Cost</th>');
    expect(page).toMatch(
      /<p class="note" id="lost-floor">.*At least: 1 run had an attempt that reported no usage .*; 1 of 2 runs reported a cost\./,
    );
  });

  it('no cost column when no run reported a cost; reasoning and cached tokens said when reported; no floor note when exact', () => {
    const exact = lostFigures({
      runs: 1,
      attempts: 1,
      inputTokens: 10,
      outputTokens: 5,
      reasoningTokens: 3,
      cachedInputTokens: 8,
    });
    const page = lostSection({
      total: exact,
      byCause: [{ value: 'user_cancel', ...exact }],
      byRetrySafety: [{ value: 'do_not_retry', ...exact }],
    }).value;
    expect(page).not.toContain('<th scope="col">Cost</th>');
    expect(rows(page, 'lost-cause')).toEqual([
      ['user_cancel', ['1', '1', '10', '5'], false],
      ['total', ['1', '1', '10', '5'], false],
    ]);
    expect(page).toContain(
      '<p class="muted" id="lost-details">3 of the output tokens were reasoning. 8 of the input tokens were read from a prompt cache.</p>',
    );
    expect(page).not.toContain('lost-floor');
    // The retry safety's colour, as on the charts.
    expect(page).toContain('<span class="dot c-bad"></span>do_<wbr>not_<wbr>retry');
  });
});

describe('lostLine', () => {
  it.each([
    [{ attempts: 1, inputTokens: 0, outputTokens: 0, lowerBound: false }, '1 attempt: 0 input and 0 output tokens'],
    [
      { attempts: 3, inputTokens: 12_400, outputTokens: 800, costUsd: 1.5, lowerBound: false },
      '3 attempts: 12,400 input and 800 output tokens, $1.50',
    ],
    [
      { attempts: 2, inputTokens: 0, outputTokens: 0, lowerBound: true },
      '2 attempts: at least 0 input and 0 output tokens',
    ],
  ])('%j → %s', (lost, line) => {
    expect(lostLine(lost)).toBe(line);
  });
});

/**
 * The terminal section of what incidents cost (src/report/lost-usage-table.ts, docs/cli.md#lost-usage): rows by
 * cause and by retry safety and a total, aligned; a floor marked `≥` with a footnote saying why; a cost column
 * only when some run reported a cost; nothing at all when no run lost an attempt; text from the file made safe.
 */
import { describe, expect, it } from 'vitest';
import { formatTokens, formatUsd, renderLostUsage } from '../../src/report/lost-usage-table.js';
import type { LostReport } from '../../src/report/report-model.js';
import type { SummaryStyle } from '../../src/report/summary-table.js';
import { lostFigures, NO_LOST } from './report-fixtures.js';

const TAGGED: SummaryStyle = { colour: (c, text) => `<${c}:${text}>` };

describe('figures as people read them', () => {
  it.each([
    [0, '0'],
    [12_400, '12,400'],
    [1_234_567, '1,234,567'],
  ])('%d tokens → %s', (n, text) => {
    expect(formatTokens(n)).toBe(text);
  });

  it.each([
    [0, '$0.0000'],
    [0.0042, '$0.0042'],
    [0.123456, '$0.1235'],
    [1, '$1.00'],
    [1204.5, '$1,204.50'],
  ])('$%d → %s', (usd, text) => {
    expect(formatUsd(usd)).toBe(text);
  });
});

const EXACT: LostReport = {
  total: lostFigures({ runs: 3, attempts: 4, inputTokens: 12_400, outputTokens: 900 }),
  byCause: [
    {
      value: 'provider_transport_disconnect',
      ...lostFigures({ runs: 2, attempts: 3, inputTokens: 12_000, outputTokens: 900 }),
    },
    { value: '', ...lostFigures({ runs: 1, attempts: 1, inputTokens: 400 }) },
  ],
  byRetrySafety: [
    { value: 'offer_continue', ...lostFigures({ runs: 2, attempts: 3, inputTokens: 12_000, outputTokens: 900 }) },
    { value: '', ...lostFigures({ runs: 1, attempts: 1, inputTokens: 400 }) },
  ],
};

describe('renderLostUsage', () => {
  it('is nothing when no run lost an attempt', () => {
    expect(renderLostUsage(NO_LOST)).toBe('');
  });

  it('exact figures: rows by cause and by retry safety, an absent value as none, a total; no cost column, no footnote', () => {
    expect(renderLostUsage(EXACT).split('\n')).toEqual([
      'tokens lost to incidents         runs  attempts  input tokens  output tokens',
      'by cause',
      '  provider_transport_disconnect     2         3        12,000            900',
      '  none                              1         1           400              0',
      'by retry safety',
      '  offer_continue                    2         3        12,000            900',
      '  none                              1         1           400              0',
      'total                               3         4        12,400            900',
    ]);
  });

  it('a floor is marked ≥ where it is one, and the footnote says how many runs and why', () => {
    const floor = lostFigures({ runs: 1, attempts: 2, inputTokens: 1500, lowerBoundRuns: 1, lowerBound: true });
    const lost: LostReport = {
      total: lostFigures({ runs: 2, attempts: 3, inputTokens: 1900, lowerBoundRuns: 1, lowerBound: true }),
      byCause: [
        { value: 'watchdog_timeout', ...floor },
        { value: 'user_cancel', ...lostFigures({ runs: 1, attempts: 1, inputTokens: 400 }) },
      ],
      byRetrySafety: [
        {
          value: 'auto_retry',
          ...lostFigures({ runs: 2, attempts: 3, inputTokens: 1900, lowerBoundRuns: 1, lowerBound: true }),
        },
      ],
    };
    expect(renderLostUsage(lost).split('\n')).toEqual([
      'tokens lost to incidents  runs  attempts  input tokens  output tokens',
      'by cause',
      '  watchdog_timeout           1         2       ≥ 1,500            ≥ 0',
      '  user_cancel                1         1           400              0',
      'by retry safety',
      '  auto_retry                 2         3       ≥ 1,900            ≥ 0',
      'total                        2         3       ≥ 1,900            ≥ 0',
      '≥ at least: 1 run had an attempt that reported no usage (a cut stream often carries none) or facts that may be lost.',
    ]);
  });

  it('a cost column when some run reported one ("-" for a group with none), its floor said; reasoning and cached tokens noted', () => {
    const lost: LostReport = {
      total: lostFigures({
        runs: 2,
        attempts: 2,
        inputTokens: 3000,
        outputTokens: 200,
        reasoningTokens: 120,
        cachedInputTokens: 2000,
        costUsd: 0.0125,
        costRuns: 1,
        lowerBound: true,
      }),
      byCause: [
        {
          value: 'provider_api_error',
          ...lostFigures({ runs: 1, attempts: 1, inputTokens: 2000, outputTokens: 200, costUsd: 0.0125, costRuns: 1 }),
        },
        { value: 'process_exit', ...lostFigures({ runs: 1, attempts: 1, inputTokens: 1000 }) },
      ],
      byRetrySafety: [],
    };
    expect(renderLostUsage(lost).split('\n')).toEqual([
      'tokens lost to incidents  runs  attempts  input tokens  output tokens       cost',
      'by cause',
      '  provider_api_error         1         1         2,000            200    $0.0125',
      '  process_exit               1         1         1,000              0          -',
      'by retry safety',
      'total                        2         2       ≥ 3,000          ≥ 200  ≥ $0.0125',
      '120 of the output tokens were reasoning; 2,000 of the input tokens were read from a prompt cache.',
      '≥ at least: 1 of 2 runs reported a cost.',
    ]);
  });

  it('colours the heading and total bold, titles and notes gray, a retry safety by its colour; a control character escaped', () => {
    const lost: LostReport = {
      ...EXACT,
      byCause: [
        { value: 'bad\u001b[31m', ...lostFigures({ runs: 3, attempts: 4, inputTokens: 12_400, outputTokens: 900 }) },
      ],
      byRetrySafety: [
        { value: 'do_not_retry', ...lostFigures({ runs: 3, attempts: 4, inputTokens: 12_400, outputTokens: 900 }) },
      ],
    };
    const text = renderLostUsage(lost, TAGGED);
    expect(text).toMatch(/^<bold:tokens lost to incidents/);
    expect(text).toContain('<gray:by cause>');
    expect(text).toContain('  bad\\x1b[31m');
    expect(text).not.toContain('\u001b');
    expect(text).toContain('<red:  do_not_retry');
    expect(text).toMatch(/<bold:total {2,}3 {2,}4 {2,}12,400 {2,}900>$/);
  });
});

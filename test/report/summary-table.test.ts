/** The summary the CLI prints (src/report/summary-table.ts): runs by outcome, one aligned line per kind of incident, terminal-safe text. */
import { describe, expect, it } from 'vitest';
import type { SummaryStyle } from '../../src/report/summary-table.js';
import { pad, renderSummary, terminalSafe } from '../../src/report/summary-table.js';
import { emptyReport } from './report-fixtures.js';

const report = emptyReport;

/** Marks each coloured piece as `<colour:text>`, so the colours chosen can be read back. */
const TAGGED: SummaryStyle = { colour: (c, text) => `<${c}:${text}>` };

describe('terminalSafe', () => {
  it.each([
    ['plain text', 'plain text'],
    ['\u001b[31mred', '\\x1b[31mred'],
    ['bell\u0007', 'bell\\x07'],
    ['a\nb\tc\r', 'a\\x0ab\\x09c\\x0d'],
    ['del\u007f c1\u009b', 'del\\x7f c1\\x9b'],
    ['\u0000', '\\x00'],
    ['é ü 中 \u00a0', 'é ü 中 \u00a0'],
  ])('%j → %j', (text, safe) => {
    expect(terminalSafe(text)).toBe(safe);
  });
});

describe('pad', () => {
  it.each([
    ['ab', 5, 'ab   '],
    ['abc', 3, 'abc'],
    ['abcdef', 3, 'abcdef'],
    ['', 2, '  '],
    ['x', -1, 'x'],
  ])('%j to %d → %j', (text, width, padded) => {
    expect(pad(text, width)).toBe(padded);
  });
});

describe('renderSummary', () => {
  it('with no incidents is the outcome line alone', () => {
    expect(renderSummary(report({ runs: 1, byOutcome: [['success', 1]] }))).toBe('1 run  success 1');
    expect(renderSummary(report())).toBe('0 runs');
  });

  it('aligns one line per kind of incident and counts distinct causes and phases', () => {
    const out = renderSummary(
      report({
        runs: 12,
        byOutcome: [
          ['success', 8],
          ['failed', 3],
          ['incomplete', 1],
        ],
        byCause: [
          ['provider_api_error', 2],
          ['tool_execution_interrupted', 1],
          ['', 1],
        ],
        byPhase: [
          ['model_request', 2],
          ['', 2],
        ],
        byKind: [
          {
            outcome: 'failed',
            cause: 'provider_api_error',
            causeDetail: 'rate_limited',
            phase: 'model_request',
            retrySafety: 'auto_retry',
            runs: 2,
          },
          { outcome: 'failed', cause: 'tool_execution_interrupted', runs: 1 },
          { outcome: 'incomplete', runs: 1 },
        ],
      }),
    );
    expect(out.split('\n')).toEqual([
      '12 runs  success 8  failed 3  incomplete 1',
      '',
      'outcome     cause(detail)                     phase          retry safety  runs',
      'failed      provider_api_error(rate_limited)  model_request  auto_retry       2',
      'failed      tool_execution_interrupted        -              -                1',
      'incomplete  -                                 -              -                1',
      '',
      '2 distinct causes, 1 distinct phase across 4 incidents',
    ]);
  });

  it('colours outcomes and retry safeties by their meaning, unknown values gray', () => {
    const out = renderSummary(
      report({
        runs: 3,
        byOutcome: [
          ['failed', 1],
          ['recovered', 1],
          ['odd', 1],
        ],
        byKind: [
          { outcome: 'failed', cause: 'c', phase: 'p', retrySafety: 'do_not_retry', runs: 1 },
          { outcome: 'odd', cause: 'c', phase: 'p', retrySafety: 'ask_user_before_retry', runs: 1 },
          { outcome: 'recovered', cause: 'c', phase: 'p', retrySafety: 'whatever', runs: 1 },
        ],
      }),
      TAGGED,
    );
    const lines = out.split('\n');
    expect(lines[0]).toBe('<bold:3 runs>  <red:failed 1>  <cyan:recovered 1>  <gray:odd 1>');
    expect(lines[2]).toBe('<bold:outcome    cause(detail)  phase  retry safety           runs>');
    expect(lines[3]).toBe('<red:failed   >  c              p      <red:do_not_retry         >     1');
    expect(lines[4]).toBe('<gray:odd      >  c              p      <yellow:ask_user_before_retry>     1');
    expect(lines[5]).toBe('<cyan:recovered>  c              p      <gray:whatever             >     1');
    expect(lines[7]).toBe('<gray:0 distinct causes, 0 distinct phases across 3 incidents>');
  });

  it('never lets a value from the file drive the terminal', () => {
    const out = renderSummary(
      report({
        runs: 1,
        byOutcome: [['\u001b]0;pwned\u0007', 1]],
        byKind: [{ outcome: 'failed', cause: 'x\u001b[2J', phase: 'p\r', runs: 1 }],
      }),
    );
    expect([...out].filter((ch) => ch === '\u0007' || ch === '\u001b' || ch === '\r')).toEqual([]);
    expect(out).toContain('\\x1b]0;pwned\\x07 1');
    expect(out).toContain('x\\x1b[2J');
    expect(out).toContain('p\\x0d');
  });
});

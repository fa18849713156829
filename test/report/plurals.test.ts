/**
 * Every count the report writes with a noun agrees with it, in the terminal
 * table, its notes, the incident list, the no-spans line and the HTML page:
 * `1 run`, `2 runs`, `0 runs`, and the verbs and pronouns after a count
 * (`was`/`were`, `its`/`their`). Table-driven over 0, 1 and 2 of each count,
 * on reports built by hand.
 */
import { describe, expect, it } from 'vitest';
import { renderIncidentPage } from '../../src/report/html-page.js';
import { noSpansMessage, renderIncidentList, renderReportNotes } from '../../src/report/incident-list.js';
import { counted, plural } from '../../src/report/plural.js';
import type { IncidentReport, ReportRun, TimelineItem } from '../../src/report/report-model.js';
import { renderSummary } from '../../src/report/summary-table.js';
import { emptyReport } from './report-fixtures.js';

const AT = new Date('2026-11-26T05:00:00Z');

/** A report of nothing but `over`: one line with one span, no run. */
function report(over: Partial<IncidentReport> = {}): IncidentReport {
  return emptyReport({ input: { lines: 1, spans: 1, traces: 1 }, ...over });
}

/** `n` runs, all of them incidents of one kind (so the table and its footer are drawn). */
function failures(n: number): Partial<IncidentReport> {
  return {
    runs: n,
    byOutcome: n === 0 ? [] : [['failed', n]],
    byCause: n === 0 ? [] : [['provider_api_error', n]],
    byPhase: n === 0 ? [] : [['text_generation', n]],
    byRetrySafety: n === 0 ? [] : [['auto_retry', n]],
    byKind:
      n === 0
        ? []
        : [
            {
              outcome: 'failed',
              cause: 'provider_api_error',
              phase: 'text_generation',
              retrySafety: 'auto_retry',
              runs: n,
            },
          ],
  };
}

function item(kind: TimelineItem['kind'], i: number): TimelineItem {
  return {
    kind,
    name: kind === 'tool' ? 'execute_tool read_file' : 'chat gpt-5-mini',
    spanId: `${kind === 'tool' ? 'b' : 'a'}${String(i).padStart(15, '0')}`,
    startOffsetMillis: i * 10,
    durationMillis: 5,
    status: 'ok',
    broke: false,
  };
}

function run(attempts: number, tools: number, i = 0): ReportRun {
  return {
    outcome: 'failed',
    cause: 'provider_api_error',
    phase: 'text_generation',
    retrySafety: 'auto_retry',
    traceId: i.toString(16).padStart(32, '0'),
    spanId: i.toString(16).padStart(16, '0'),
    startUnixMillis: Date.parse('2026-11-26T04:59:00Z') - i,
    durationMillis: 100,
    source: 'file',
    timeline: [
      ...Array.from({ length: attempts }, (_, k) => item('attempt', k)),
      ...Array.from({ length: tools }, (_, k) => item('tool', k)),
    ],
  };
}

const page = (r: IncidentReport): string => renderIncidentPage(r, { generatedAt: AT });

describe('plural and counted', () => {
  it.each([
    [0, 'run', undefined, 'runs', '0 runs'],
    [1, 'run', undefined, 'run', '1 run'],
    [2, 'run', undefined, 'runs', '2 runs'],
    [0, 'incident is', 'incidents are', 'incidents are', '0 incidents are'],
    [1, 'incident is', 'incidents are', 'incident is', '1 incident is'],
    [2, 'incident is', 'incidents are', 'incidents are', '2 incidents are'],
  ] as const)('%i %s', (n, singular, pluralForm, word, phrase) => {
    expect(plural(n, singular, pluralForm)).toBe(word);
    expect(counted(n, singular, { plural: pluralForm })).toBe(phrase);
  });

  it('writes the number as it is told to', () => {
    expect(counted(1204, 'run', { format: (n) => n.toLocaleString('en-US') })).toBe('1,204 runs');
  });
});

/** [what, render of a report with `n` of it, what is written for 0, 1 and 2; `null` where nothing is written]. */
type Row = [what: string, render: (n: number) => string, expected: [zero: string | null, one: string, two: string]];

const TEXT: Row[] = [
  [
    'runs, heading the table',
    (n) => renderSummary(report(failures(n))).split('\n')[0]!,
    ['0 runs', '1 run  failed 1', '2 runs  failed 2'],
  ],
  [
    'incidents, under the table',
    (n) => renderSummary(report(failures(n))),
    [null, 'across 1 incident', 'across 2 incidents'],
  ],
  [
    'distinct causes and phases, under the table',
    (n) =>
      renderSummary(
        report({
          ...failures(2),
          byCause: Array.from({ length: n }, (_, i) => [`cause_${i}`, 1] as const),
          byPhase: Array.from({ length: n }, (_, i) => [`phase_${i}`, 1] as const),
        }),
      ),
    [
      '0 distinct causes, 0 distinct phases',
      '1 distinct cause, 1 distinct phase',
      '2 distinct causes, 2 distinct phases',
    ],
  ],
  [
    'incidents listed of all counted',
    (n) =>
      renderIncidentList(
        report({ incidents: Array.from({ length: n }, (_, i) => run(1, 0, i)), incidentsOmitted: 1 }),
        { count: 1 },
      ),
    [null, 'Most recent 1 of 2 incidents, most recent first', 'Most recent 1 of 3 incidents, most recent first'],
  ],
  [
    'runs judged here',
    (n) => renderReportNotes(report({ runs: n, folded: n })),
    [
      null,
      '1 of 1 run carried no verdict (exported without the processor or the gateway) and was judged here from its spans.',
      '2 of 2 runs carried no verdict (exported without the processor or the gateway) and were judged here from their spans.',
    ],
  ],
  [
    'runs and traces judged early, and the window',
    (n) =>
      renderReportNotes(
        report({
          runs: n,
          folded: n,
          window: { maxSpans: n, idleLines: 1000, tracesJudgedEarly: n, runsJudgedEarly: n, tracesSeenAgain: 0 },
        }),
      ),
    [
      null,
      '1 run in 1 trace was judged before its trace may have been complete (more than 1 span held at once)',
      '2 runs in 2 traces were judged before their trace may have been complete (more than 2 spans held at once)',
    ],
  ],
  [
    'traces seen again, and the idle lines',
    (n) =>
      renderReportNotes(
        report({
          window: { maxSpans: 20_000, idleLines: n, tracesJudgedEarly: 0, runsJudgedEarly: 0, tracesSeenAgain: n },
        }),
      ),
    [
      null,
      '1 trace had spans after it was judged (more than 1 line after the rest',
      '2 traces had spans after they were judged (more than 2 lines after the rest',
    ],
  ],
  [
    'spans and traces of no run',
    (n) => renderReportNotes(report({ input: { lines: n, spans: n, traces: n } })),
    [
      null,
      'No agent run this report recognises in 1 span of 1 trace: nothing to judge.',
      'No agent run this report recognises in 2 spans of 2 traces: nothing to judge.',
    ],
  ],
  [
    'lines of an input with no span',
    (n) => noSpansMessage(report({ input: { lines: n, spans: 0, traces: 0 } }), 'x.jsonl') ?? '',
    [
      'no spans in x.jsonl (it is empty)',
      'no spans in x.jsonl (1 line, none with a span)',
      'no spans in x.jsonl (2 lines, none with a span)',
    ],
  ],
];

const HTML: Row[] = [
  [
    'lines, spans and traces read',
    (n) => page(report({ input: { lines: n, spans: n, traces: n } })),
    [null, 'Read 1 line: 1 span in 1 trace.', 'Read 2 lines: 2 spans in 2 traces.'],
  ],
  [
    'incidents and runs, in the heading',
    (n) => page(report(failures(n))),
    ['<h1>0 incidents in 0 runs</h1>', '<h1>1 incident in 1 run</h1>', '<h1>2 incidents in 2 runs</h1>'],
  ],
  [
    'incidents and runs, in the title',
    (n) => page(report(failures(n))),
    [
      '<title>Incident report · 0 incidents in 0 runs</title>',
      '<title>Incident report · 1 incident in 1 run</title>',
      '<title>Incident report · 2 incidents in 2 runs</title>',
    ],
  ],
  [
    'runs and incidents, over the charts',
    (n) => page(report(failures(n))),
    [
      'By outcome <span class="muted">· 0 runs</span>',
      'By cause <span class="muted">· 1 incident</span>',
      'By cause <span class="muted">· 2 incidents</span>',
    ],
  ],
  [
    'runs judged by the report',
    (n) => page(report({ ...failures(2), folded: n })),
    [
      'Every run carried its verdict in the file.',
      '1 of 2 runs carried no verdict (exported without the processor or the gateway) and was judged by this report from its spans.',
      '2 of 2 runs carried no verdict (exported without the processor or the gateway) and were judged by this report from their spans.',
    ],
  ],
  [
    'runs judged early',
    (n) =>
      page(
        report({
          ...failures(2),
          folded: 2,
          window: { maxSpans: 10, idleLines: 10, tracesJudgedEarly: n, runsJudgedEarly: n, tracesSeenAgain: 0 },
        }),
      ),
    [
      null,
      '1 of them was judged before its trace may have been complete',
      '2 of them were judged before their trace may have been complete',
    ],
  ],
  [
    'incidents not listed',
    (n) => page(report({ ...failures(3), incidents: [run(1, 0)], incidentsOmitted: n })),
    [null, '1 more incident is counted above', '2 more incidents are counted above'],
  ],
  [
    'attempts and tool calls on a timeline',
    (n) => page(report({ ...failures(1), incidents: [run(n, n)] })),
    [null, '1 attempt, 1 tool call, over', '2 attempts, 2 tool calls, over'],
  ],
  [
    'lines of an input with no span',
    (n) => page(report({ input: { lines: n, spans: 0, traces: 0 } })),
    [
      'The input is empty: there are no runs',
      'Read 1 line, none with a span: there are no runs',
      'Read 2 lines, none with a span: there are no runs',
    ],
  ],
];

it('a table of no runs is one line with nothing after the count', () => {
  expect(renderSummary(report())).toBe('0 runs');
});

describe.each([
  ['the terminal', TEXT],
  ['the HTML page', HTML],
] as const)('counts agree with their nouns in %s', (_where, rows) => {
  it.each(rows.flatMap(([what, render, expected]) => expected.map((text, n) => ({ what, n, render, text }))))(
    '$what: $n',
    ({ n, render, text }) => {
      const out = render(n);
      if (text !== null) expect(out).toContain(text);
      // No count written with the wrong form of its noun, anywhere in the output.
      expect(out).not.toMatch(
        /(?<![\d,.])1 (runs|incidents|lines|spans|traces|attempts|tool calls|distinct causes|distinct phases)\b/,
      );
      expect(out).not.toMatch(
        /(?<![\d,.])([02-9]|\d\d+) (run|incident|line|span|trace|attempt|tool call|distinct cause|distinct phase)\b/,
      );
    },
  );
});

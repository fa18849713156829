/** The incident list and notes `report` prints (src/report/incident-list.ts): lines per incident, trace links, what the report judged itself, empty input. */
import { describe, expect, it } from 'vitest';
import {
  jaegerTraceUrl,
  noSpansMessage,
  renderIncidentList,
  renderReportNotes,
} from '../../src/report/incident-list.js';
import type { IncidentReport, ReportRun } from '../../src/report/report-model.js';
import type { SummaryStyle } from '../../src/report/summary-table.js';
import { emptyReport } from './report-fixtures.js';

const T1 = '4bf92f3577b34da6a3ce929d0e0e4736';
const T2 = '0af7651916cd43dd8448eb211c80319c';

function run(over: Partial<ReportRun> = {}): ReportRun {
  return {
    outcome: 'failed',
    cause: 'provider_api_error',
    causeDetail: 'rate_limited',
    phase: 'model_request',
    retrySafety: 'auto_retry',
    traceId: T1,
    spanId: '00f067aa0ba902b7',
    startUnixMillis: Date.parse('2026-11-26T04:59:00.123Z'),
    source: 'file',
    timeline: [],
    ...over,
  };
}

const report = emptyReport;

const TAGGED: SummaryStyle = { colour: (c, text) => `<${c}:${text}>` };

describe('jaegerTraceUrl', () => {
  it.each([
    ['http://127.0.0.1:16686', `http://127.0.0.1:16686/trace/${T1}?uiFind=00f067aa0ba902b7`],
    ['http://j:16686/', `http://j:16686/trace/${T1}?uiFind=00f067aa0ba902b7`],
    ['http://j/ui///', `http://j/ui/trace/${T1}?uiFind=00f067aa0ba902b7`],
  ])('%s → %s', (base, url) => {
    expect(jaegerTraceUrl(base, run())).toBe(url);
  });
});

describe('renderIncidentList', () => {
  it('is empty when there are no incidents, or none are asked for', () => {
    expect(renderIncidentList(report())).toBe('');
    expect(renderIncidentList(report({ incidents: [run()] }), { count: 0 })).toBe('');
  });

  it('writes one aligned line per incident with its start, trace and verdict', () => {
    const out = renderIncidentList(
      report({
        incidents: [
          run(),
          run({
            traceId: T2,
            outcome: 'incomplete',
            cause: undefined,
            causeDetail: undefined,
            phase: undefined,
            retrySafety: undefined,
            startUnixMillis: undefined,
          }),
        ],
      }),
    );
    expect(out.split('\n')).toEqual([
      'Incidents, most recent first',
      '',
      'started (UTC)         trace id                          outcome     cause(detail)                     phase          retry safety',
      `2026-11-26 04:59:00Z  ${T1}  failed      provider_api_error(rate_limited)  model_request  auto_retry`,
      `-                     ${T2}  incomplete  -                                 -              -`,
    ]);
  });

  it('says how many of how many it shows when the list is cut, counting omitted ones', () => {
    const incidents = [run(), run({ spanId: 'b' }), run({ spanId: 'c' })];
    expect(renderIncidentList(report({ incidents }), { count: 2 }).split('\n')[0]).toBe(
      'Most recent 2 of 3 incidents, most recent first',
    );
    expect(renderIncidentList(report({ incidents: [run()], incidentsOmitted: 4 })).split('\n')[0]).toBe(
      'Most recent 1 of 5 incidents, most recent first',
    );
  });

  it('shows 20 incidents by default', () => {
    const incidents = Array.from({ length: 25 }, (_, i) => run({ spanId: String(i) }));
    const lines = renderIncidentList(report({ incidents })).split('\n');
    expect(lines[0]).toBe('Most recent 20 of 25 incidents, most recent first');
    expect(lines).toHaveLength(3 + 20);
  });

  it('adds a link to each trace, its verdict span found, when a Jaeger address is given', () => {
    const lines = renderIncidentList(report({ incidents: [run()] }), { jaegerUrl: 'http://j:16686/' }).split('\n');
    expect(lines.slice(3)).toEqual([
      expect.stringContaining(T1),
      `  http://j:16686/trace/${T1}?uiFind=00f067aa0ba902b7`,
    ]);
  });

  it('colours the outcome and the retry safety, unknown values gray', () => {
    const lines = renderIncidentList(
      report({ incidents: [run({ outcome: 'weird', retrySafety: 'do_not_retry' })] }),
      {},
      TAGGED,
    ).split('\n');
    expect(lines[0]).toBe('<bold:Incidents, most recent first>');
    expect(lines[3]).toContain('<gray:weird  >');
    expect(lines[3]).toMatch(/<red:do_not_retry>$/);
  });

  it('shows a start outside the range of a date as unknown and escapes control characters', () => {
    const out = renderIncidentList(
      report({
        incidents: [run({ startUnixMillis: 1e300, traceId: 'x\u001b[31m', cause: 'c\u0007', causeDetail: undefined })],
      }),
    );
    const line = out.split('\n')[3]!;
    expect(line.startsWith('-  ')).toBe(true);
    expect(line).toContain('x\\x1b[31m');
    expect(line).toContain('c\\x07');
    expect([...out].filter((ch) => ch === '\u0007' || ch === '\u001b' || ch === '\r')).toEqual([]);
  });
});

describe('renderReportNotes', () => {
  it('is empty when there is nothing to say', () => {
    expect(renderReportNotes(report({ runs: 3, input: { lines: 3, spans: 9, traces: 3 } }))).toBe('');
  });

  it.each<[string, Partial<IncidentReport>, string]>([
    [
      'spans but no run it recognises',
      { input: { lines: 2, spans: 1, traces: 1 } },
      'No agent run this report recognises in 1 span of 1 trace: nothing to judge.',
    ],
    [
      'one run judged from its spans',
      { runs: 4, folded: 1, input: { lines: 1, spans: 1, traces: 1 } },
      '1 of 4 runs carried no verdict (exported without the processor or the gateway) and was judged here from its spans.',
    ],
    [
      'runs judged from their spans',
      { runs: 4, folded: 3, input: { lines: 1, spans: 1, traces: 1 } },
      '3 of 4 runs carried no verdict (exported without the processor or the gateway) and were judged here from their spans.',
    ],
  ])('%s', (_, over, note) => {
    expect(renderReportNotes(report(over))).toBe(note);
  });

  it('says when traces were judged early because the window was full, and when traces came again', () => {
    const notes = renderReportNotes(
      report({
        runs: 5,
        input: { lines: 9, spans: 9, traces: 3 },
        window: { maxSpans: 1000, idleLines: 1, tracesJudgedEarly: 2, runsJudgedEarly: 1, tracesSeenAgain: 1 },
      }),
    ).split('\n');
    expect(notes).toEqual([
      '1 run in 2 traces was judged before its trace may have been complete (more than 1000 spans held at once): judged as incomplete, never success; raise --max-spans to hold more.',
      '1 trace had spans after it was judged (more than 1 line after the rest, or after the window was full): the later spans joined the runs already counted (a verdict in the file replaces one made up here), each run counted once; raise --idle-lines to hold traces longer.',
    ]);
  });
});

describe('noSpansMessage', () => {
  it.each<[number, number, string, string | undefined]>([
    [0, 0, 'x.jsonl', 'no spans in x.jsonl (it is empty)'],
    [2, 0, 'stdin', 'no spans in stdin (2 lines, none with a span)'],
    [1, 0, 'a.gz', 'no spans in a.gz (1 line, none with a span)'],
    [5, 3, 'x.jsonl', undefined],
  ])('%d lines, %d spans, %s → %j', (lines, spans, name, message) => {
    expect(noSpansMessage(report({ input: { lines, spans, traces: 0 } }), name)).toBe(message);
  });

  it('escapes control characters in the file name', () => {
    expect(noSpansMessage(report(), 'a\u001b[2Jb')).toBe('no spans in a\\x1b[2Jb (it is empty)');
  });
});

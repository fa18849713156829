/**
 * The most recent incidents of a report as terminal lines, one per run, with
 * the trace id (and a link to the trace viewer when its address is given),
 * so each can be looked up; then what the report judged itself; and what
 * `report` says of an input with no span in it.
 */
import { counted, plural } from './plural.js';
import type { IncidentReport, ReportRun } from './report-model.js';
import type { SummaryStyle } from './summary-table.js';
import { OUTCOME_COLOUR, pad, PLAIN, SAFETY_COLOUR, terminalSafe } from './summary-table.js';

/** How the incident list is drawn. */
export interface IncidentListOptions {
  /** Incidents shown. @default 20 */
  readonly count?: number;
  /** Jaeger UI base address (e.g. http://127.0.0.1:16686): each incident gets a link to its trace, its verdict span highlighted. @default none */
  readonly jaegerUrl?: string;
}

/** The Jaeger UI address of a run's trace, its verdict span found (`uiFind`). */
export function jaegerTraceUrl(jaegerUrl: string, run: Pick<ReportRun, 'traceId' | 'spanId'>): string {
  return `${jaegerUrl.replace(/\/+$/, '')}/trace/${run.traceId}?uiFind=${run.spanId}`;
}

function when(run: ReportRun): string {
  const date = run.startUnixMillis === undefined ? undefined : new Date(run.startUnixMillis);
  // A time outside the range of a Date (a garbage timestamp in the file) is shown as unknown.
  return date === undefined || Number.isNaN(date.getTime())
    ? '-'
    : date
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, 'Z');
}

/** The list of the most recent incidents, as lines of text; empty when there are none. */
export function renderIncidentList(
  report: IncidentReport,
  options: IncidentListOptions = {},
  style: SummaryStyle = PLAIN,
): string {
  const c = style.colour;
  const shown = report.incidents.slice(0, options.count ?? 20);
  if (shown.length === 0) return '';
  const total = report.incidents.length + report.incidentsOmitted;
  const rows = shown.map((run) => ({
    run,
    started: when(run),
    traceId: terminalSafe(run.traceId),
    outcome: terminalSafe(run.outcome),
    cause: terminalSafe(run.causeDetail ? `${run.cause}(${run.causeDetail})` : (run.cause ?? '-')),
    phase: terminalSafe(run.phase ?? '-'),
    safety: terminalSafe(run.retrySafety ?? '-'),
  }));
  const headers = ['started (UTC)', 'trace id', 'outcome', 'cause(detail)', 'phase', 'retry safety'];
  const widths = [
    Math.max(headers[0]!.length, ...rows.map((r) => r.started.length)),
    32,
    Math.max(headers[2]!.length, ...rows.map((r) => r.outcome.length)),
    Math.max(headers[3]!.length, ...rows.map((r) => r.cause.length)),
    Math.max(headers[4]!.length, ...rows.map((r) => r.phase.length)),
  ];
  const lines = [
    c(
      'bold',
      `${shown.length === total ? 'Incidents' : `Most recent ${shown.length} of ${counted(total, 'incident')}`}, most recent first`,
    ),
    '',
  ];
  lines.push(
    c(
      'bold',
      headers
        .slice(0, 5)
        .map((h, i) => pad(h, widths[i]!))
        .join('  ') +
        '  ' +
        headers[5],
    ),
  );
  for (const r of rows) {
    lines.push(
      [
        pad(r.started, widths[0]!),
        r.traceId,
        c(OUTCOME_COLOUR[r.run.outcome as keyof typeof OUTCOME_COLOUR] ?? 'gray', pad(r.outcome, widths[2]!)),
        pad(r.cause, widths[3]!),
        pad(r.phase, widths[4]!),
        c(SAFETY_COLOUR[r.safety as keyof typeof SAFETY_COLOUR] ?? 'gray', r.safety),
      ].join('  '),
    );
    if (options.jaegerUrl) lines.push(c('gray', `  ${terminalSafe(jaegerTraceUrl(options.jaegerUrl, r.run))}`));
  }
  return lines.join('\n');
}

/** What the report judged itself and how it held the input, as sentences; empty when there is nothing to say. */
export function renderReportNotes(report: IncidentReport): string {
  const notes: string[] = [];
  if (report.runs === 0 && report.input.spans > 0) {
    notes.push(
      `No agent run this report recognises in ${counted(report.input.spans, 'span')} of ${counted(report.input.traces, 'trace')}: nothing to judge.`,
    );
  }
  if (report.folded > 0) {
    const n = report.folded;
    notes.push(
      `${n} of ${counted(report.runs, 'run')} carried no verdict (exported without the processor or the gateway) and ${plural(n, 'was', 'were')} judged here from ${plural(n, 'its', 'their')} spans.`,
    );
  }
  const w = report.window;
  if (w.tracesJudgedEarly > 0) {
    const n = w.runsJudgedEarly;
    notes.push(
      `${counted(n, 'run')} in ${counted(w.tracesJudgedEarly, 'trace')} ${plural(n, 'was', 'were')} judged before ${plural(n, 'its', 'their')} trace may have been complete (more than ${counted(w.maxSpans, 'span')} held at once): judged as incomplete, never success; raise --max-spans to hold more.`,
    );
  }
  if (w.tracesSeenAgain > 0) {
    const n = w.tracesSeenAgain;
    notes.push(
      `${counted(n, 'trace')} had spans after ${plural(n, 'it was', 'they were')} judged (more than ${counted(w.idleLines, 'line')} after the rest, or after the window was full): the later spans joined the runs already counted (a verdict in the file replaces one made up here), each run counted once; raise --idle-lines to hold traces longer.`,
    );
  }
  return notes.map(terminalSafe).join('\n');
}

/**
 * What `report` says when its input held no span at all (an empty file or
 * stream, blank lines only, a gzip of nothing, OTLP/JSON requests without
 * spans), instead of a table of zeros: `no spans in FILE (it is empty)`,
 * `no spans in FILE (2 lines, none with a span)`. `inputName` is the file as
 * given, or `stdin`. Undefined when the input held spans.
 */
export function noSpansMessage(report: IncidentReport, inputName: string): string | undefined {
  if (report.input.spans > 0) return undefined;
  const lines = report.input.lines;
  return terminalSafe(
    `no spans in ${inputName} (${lines === 0 ? 'it is empty' : `${counted(lines, 'line')}, none with a span`})`,
  );
}

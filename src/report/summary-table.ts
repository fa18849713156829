/**
 * Renders a report as the readable summary the CLI prints: runs by outcome,
 * then one line per (outcome, cause, phase, retry safety) with counts.
 */
import { counted } from './plural.js';
import type { IncidentReport } from './report-model.js';

/** How the summary is drawn. */
export interface SummaryStyle {
  /** Wraps text in a terminal colour; identity when colour is off. */
  readonly colour: (colour: 'red' | 'green' | 'yellow' | 'cyan' | 'gray' | 'bold', text: string) => string;
}

/** No colour at all (files, pipes, `NO_COLOR`). */
export const PLAIN: SummaryStyle = { colour: (_c, text) => text };

/** Terminal colour of each outcome. */
export const OUTCOME_COLOUR = {
  success: 'green',
  recovered: 'cyan',
  failed: 'red',
  cancelled: 'yellow',
  incomplete: 'red',
} as const;
/** Terminal colour of each retry safety. */
export const SAFETY_COLOUR = {
  auto_retry: 'green',
  offer_continue: 'cyan',
  ask_user_before_retry: 'yellow',
  do_not_retry: 'red',
  unknown: 'gray',
} as const;

// C0 and C1 control characters and DEL: a value from the file must not drive the terminal (ANSI escapes, bells, titles).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** `text` safe to print on a terminal: every C0/C1 control character shown as a visible `\xNN` escape. */
export function terminalSafe(text: string): string {
  return text.replace(CONTROL, (ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** `text` padded with spaces to `width`. */
export function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - text.length));
}

/** The summary table of a report as lines of text: runs by outcome, then one line per kind of incident with its count. */
export function renderSummary(report: IncidentReport, style: SummaryStyle = PLAIN): string {
  const c = style.colour;
  const lines: string[] = [];
  lines.push(
    [
      c('bold', counted(report.runs, 'run')),
      ...report.byOutcome.map(([o, n]) =>
        c(OUTCOME_COLOUR[o as keyof typeof OUTCOME_COLOUR] ?? 'gray', `${terminalSafe(o)} ${n}`),
      ),
    ].join('  '),
  );
  if (report.byKind.length === 0) return lines.join('\n');
  const groups = report.byKind.map((k) => ({
    outcome: terminalSafe(k.outcome),
    causeText: terminalSafe(k.causeDetail ? `${k.cause}(${k.causeDetail})` : (k.cause ?? '-')),
    phase: terminalSafe(k.phase ?? '-'),
    safety: terminalSafe(k.retrySafety ?? '-'),
    n: k.runs,
  }));
  const headers = ['outcome', 'cause(detail)', 'phase', 'retry safety', 'runs'];
  const widths = [
    Math.max(headers[0]!.length, ...groups.map((g) => g.outcome.length)),
    Math.max(headers[1]!.length, ...groups.map((g) => g.causeText.length)),
    Math.max(headers[2]!.length, ...groups.map((g) => g.phase.length)),
    Math.max(headers[3]!.length, ...groups.map((g) => g.safety.length)),
  ];
  lines.push('');
  lines.push(
    c(
      'bold',
      headers
        .slice(0, 4)
        .map((h, i) => pad(h, widths[i]!))
        .join('  ') +
        '  ' +
        headers[4],
    ),
  );
  for (const g of groups) {
    lines.push(
      [
        c(OUTCOME_COLOUR[g.outcome as keyof typeof OUTCOME_COLOUR] ?? 'gray', pad(g.outcome, widths[0]!)),
        pad(g.causeText, widths[1]!),
        pad(g.phase, widths[2]!),
        c(SAFETY_COLOUR[g.safety as keyof typeof SAFETY_COLOUR] ?? 'gray', pad(g.safety, widths[3]!)),
        String(g.n).padStart(4),
      ].join('  '),
    );
  }
  const incidents = report.byKind.reduce((sum, k) => sum + k.runs, 0);
  const causes = report.byCause.filter(([cause]) => cause !== '').length;
  const phases = report.byPhase.filter(([phase]) => phase !== '').length;
  lines.push('');
  lines.push(
    c(
      'gray',
      `${counted(causes, 'distinct cause')}, ${counted(phases, 'distinct phase')} across ${counted(incidents, 'incident')}`,
    ),
  );
  return lines.join('\n');
}

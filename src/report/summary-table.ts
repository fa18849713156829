/**
 * Renders run rows as the readable summary the CLI prints: runs by outcome,
 * then one line per (outcome, cause, phase, retry safety) with counts.
 */
import type { RunRow } from './otlp-json.js';

/** How the summary is drawn. */
export interface SummaryStyle {
  /** Wraps text in a terminal colour; identity when colour is off. */
  readonly colour: (colour: 'red' | 'green' | 'yellow' | 'cyan' | 'gray' | 'bold', text: string) => string;
}

/** No colour at all (files, pipes, `NO_COLOR`). */
export const PLAIN: SummaryStyle = { colour: (_c, text) => text };

const OUTCOME_COLOUR = { success: 'green', recovered: 'cyan', failed: 'red', cancelled: 'yellow', incomplete: 'red' } as const;
const SAFETY_COLOUR = { auto_retry: 'green', offer_continue: 'cyan', ask_user_before_retry: 'yellow', do_not_retry: 'red', unknown: 'gray' } as const;

function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - text.length));
}

/** Counts of distinct values, most frequent first, ties by name. */
export function countBy<T>(items: readonly T[], key: (item: T) => string): [string, number][] {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** The summary table of `rows` as lines of text. */
export function renderSummary(rows: readonly RunRow[], style: SummaryStyle = PLAIN): string {
  const c = style.colour;
  const lines: string[] = [];
  const outcomes = countBy(rows, (r) => r.outcome);
  lines.push(c('bold', `${rows.length} runs`) + '  ' + outcomes.map(([o, n]) => c(OUTCOME_COLOUR[o as keyof typeof OUTCOME_COLOUR] ?? 'gray', `${o} ${n}`)).join('  '));
  const incidents = rows.filter((r) => r.outcome !== 'success');
  if (incidents.length === 0) return lines.join('\n');
  const cause = (r: RunRow) => (r.causeDetail ? `${r.cause}(${r.causeDetail})` : (r.cause ?? '-'));
  const groups = countBy(incidents, (r) => [r.outcome, cause(r), r.phase ?? '-', r.retrySafety ?? '-'].join('\u0000')).map(([k, n]) => {
    const [outcome = '', causeText = '', phase = '', safety = ''] = k.split('\u0000');
    return { outcome, causeText, phase, safety, n };
  });
  const headers = ['outcome', 'cause(detail)', 'phase', 'retry safety', 'runs'];
  const widths = [
    Math.max(headers[0]!.length, ...groups.map((g) => g.outcome.length)),
    Math.max(headers[1]!.length, ...groups.map((g) => g.causeText.length)),
    Math.max(headers[2]!.length, ...groups.map((g) => g.phase.length)),
    Math.max(headers[3]!.length, ...groups.map((g) => g.safety.length)),
  ];
  lines.push('');
  lines.push(c('bold', headers.slice(0, 4).map((h, i) => pad(h, widths[i]!)).join('  ') + '  ' + headers[4]));
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
  const causes = new Set(incidents.map((r) => r.cause).filter(Boolean));
  const phases = new Set(incidents.map((r) => r.phase).filter(Boolean));
  lines.push('');
  lines.push(c('gray', `${causes.size} distinct causes, ${phases.size} distinct phases across ${incidents.length} incidents`));
  return lines.join('\n');
}

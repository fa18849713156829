/**
 * The terminal section of what incidents cost (docs/cli.md#lost-usage): the
 * tokens and cost of the attempts that did not make their run's answer, by
 * cause and by retry safety, with a total line. A figure that is a floor is
 * marked `≥` and a footnote says why, so a cut stream's missing usage never
 * reads as zero.
 */
import { counted } from './plural.js';
import type { LostFigures, LostReport } from './report-model.js';
import type { SummaryStyle } from './summary-table.js';
import { pad, PLAIN, SAFETY_COLOUR, terminalSafe } from './summary-table.js';

const NUMBER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const CENTS = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const SMALL = new Intl.NumberFormat('en-US', { minimumFractionDigits: 4, maximumFractionDigits: 4 });

/** A token count with thousands separators: `12,400`. */
export function formatTokens(n: number): string {
  return NUMBER.format(n);
}

/** US dollars as people read them: cents from a dollar up (`$1,204.50`), else to a hundredth of a cent (`$0.0042`). */
export function formatUsd(usd: number): string {
  return `$${(usd >= 1 ? CENTS : SMALL).format(usd)}`;
}

/** The mark of a figure that is a floor. */
export const AT_LEAST = '≥ ';

/** The cells of one row: runs, attempts, input, output and (when `withCost`) cost, a floor marked. */
function cells(f: LostFigures, withCost: boolean): string[] {
  const floor = f.lowerBound ? AT_LEAST : '';
  const row = [formatTokens(f.runs), formatTokens(f.attempts), floor + formatTokens(f.inputTokens)];
  row.push(floor + formatTokens(f.outputTokens));
  if (withCost) row.push(f.costUsd === undefined ? '-' : floor + formatUsd(f.costUsd));
  return row;
}

/**
 * The lost-usage section as lines of text; `''` when no run lost an attempt.
 * Rows by cause, then by retry safety (an absent value reads `none`), then
 * the total; the cost column only when some run reported a cost.
 */
export function renderLostUsage(lost: LostReport, style: SummaryStyle = PLAIN): string {
  const { total } = lost;
  if (total.runs <= 0) return '';
  const c = style.colour;
  const withCost = total.costUsd !== undefined;
  const headers = ['runs', 'attempts', 'input tokens', 'output tokens', ...(withCost ? ['cost'] : [])];
  const label = (value: string) => `  ${value === '' ? 'none' : terminalSafe(value)}`;
  const rows: { kind: 'title' | 'row' | 'total'; label: string; cells: string[]; safety?: string }[] = [
    { kind: 'title', label: 'by cause', cells: [] },
    ...lost.byCause.map((g) => ({ kind: 'row' as const, label: label(g.value), cells: cells(g, withCost) })),
    { kind: 'title', label: 'by retry safety', cells: [] },
    ...lost.byRetrySafety.map((g) => ({
      kind: 'row' as const,
      label: label(g.value),
      cells: cells(g, withCost),
      safety: g.value,
    })),
    { kind: 'total', label: 'total', cells: cells(total, withCost) },
  ];
  const heading = 'tokens lost to incidents';
  const first = Math.max(heading.length, ...rows.map((r) => r.label.length));
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r.cells[i]?.length ?? 0)));
  const line = (text: string, row: readonly string[]) =>
    [pad(text, first), ...row.map((cell, i) => cell.padStart(widths[i]!))].join('  ');
  const lines = [c('bold', line(heading, headers))];
  for (const row of rows) {
    if (row.kind === 'title') lines.push(c('gray', row.label));
    else if (row.kind === 'total') lines.push(c('bold', line(row.label, row.cells)));
    else if (row.safety === undefined) lines.push(line(row.label, row.cells));
    else {
      const tone = SAFETY_COLOUR[row.safety as keyof typeof SAFETY_COLOUR] ?? 'gray';
      lines.push(c(tone, pad(row.label, first)) + line('', row.cells).slice(first));
    }
  }
  const notes: string[] = [];
  if (total.reasoningTokens !== undefined)
    notes.push(`${formatTokens(total.reasoningTokens)} of the output tokens were reasoning`);
  if (total.cachedInputTokens !== undefined)
    notes.push(`${formatTokens(total.cachedInputTokens)} of the input tokens were read from a prompt cache`);
  if (notes.length > 0) lines.push(c('gray', `${notes.join('; ')}.`));
  // Why the marked figures are a floor, each reason with how many runs it is true of.
  const floors: string[] = [];
  if (total.lowerBoundRuns > 0)
    floors.push(
      `${counted(total.lowerBoundRuns, 'run')} had an attempt that reported no usage (a cut stream often carries none) or facts that may be lost`,
    );
  if (total.costRuns > 0 && total.costRuns < total.runs)
    floors.push(`${formatTokens(total.costRuns)} of ${counted(total.runs, 'run')} reported a cost`);
  if (floors.length > 0) lines.push(c('gray', `${AT_LEAST}at least: ${floors.join('; ')}.`));
  return lines.join('\n');
}

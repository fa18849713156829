/**
 * What incidents cost, on the report page (docs/cli.md#lost-usage): the
 * tokens and cost of attempts that did not make their run's answer, as one
 * table by cause and one by retry safety, each with its total, and one line
 * per incident card. A floor reads `≥` (an `<abbr>` saying "at least") and a
 * note says why, so a cut stream's missing usage never reads as zero.
 */
import type { LostUsage } from '../../model/incident.js';
import { AT_LEAST, formatTokens, formatUsd } from '../lost-usage-table.js';
import type { LostFigures, LostGroup, LostReport } from '../report-model.js';
import type { Html } from './markup.js';
import { html } from './markup.js';
import { count, counting, shown, toneClass } from './shown-values.js';
import { nonNegative } from './timeline.js';

const FLOOR = html`<abbr class="floor" title="at least: some usage was not reported">${AT_LEAST.trim()}</abbr> `;

/** One figure cell: a token count, or a cost (`-` when none was reported); a floor marked. */
function figure(value: number | undefined, floor: boolean, format: (n: number) => string): Html {
  if (value === undefined) return html`<td class="num is-none">-</td>`;
  return html`<td class="num${floor ? ' is-floor' : ''}">${floor ? FLOOR : ''}${format(nonNegative(value))}</td>`;
}

function cells(f: LostFigures, withCost: boolean): Html {
  return html`<td class="num">${count(f.runs)}</td><td class="num">${count(f.attempts)}</td>${figure(f.inputTokens, f.lowerBound, formatTokens)}${figure(f.outputTokens, f.lowerBound, formatTokens)}${withCost ? figure(f.costUsd, f.lowerBound, formatUsd) : ''}`;
}

function table(
  column: string,
  groups: readonly LostGroup[],
  total: LostFigures,
  dimension: 'retrySafety' | 'other',
  id: string,
): Html {
  const withCost = total.costUsd !== undefined;
  const rows = groups.map(
    (g) => html`<tr data-value="${g.value}"${g.lowerBound ? html` data-floor="true"` : ''}>
<th scope="row"><span class="dot${toneClass(dimension, g.value)}"></span>${shown(g.value)}</th>${cells(g, withCost)}
</tr>`,
  );
  return html`<section class="lost-table" id="${id}">
<table>
<caption>Lost by ${column.toLowerCase()} <span class="muted">· ${counting(total.runs, 'run')}</span></caption>
<thead><tr><th scope="col">${column}</th><th scope="col">Runs</th><th scope="col">Attempts</th><th scope="col">Input tokens</th><th scope="col">Output tokens</th>${withCost ? html`<th scope="col">Cost</th>` : ''}</tr></thead>
<tbody>
${rows}
</tbody>
<tfoot><tr data-value="total"${total.lowerBound ? html` data-floor="true"` : ''}><th scope="row">Total</th>${cells(total, withCost)}</tr></tfoot>
</table>
</section>`;
}

/** Why the marked figures are a floor, each reason with how many runs it is true of; '' when none is. */
function floorNote(total: LostFigures): Html | '' {
  const reasons: string[] = [];
  if (total.lowerBoundRuns > 0)
    reasons.push(
      `${counting(total.lowerBoundRuns, 'run')} had an attempt that reported no usage (a cut stream often carries none) or facts that may be lost`,
    );
  if (total.costRuns > 0 && total.costRuns < total.runs)
    reasons.push(`${count(total.costRuns)} of ${counting(total.runs, 'run')} reported a cost`);
  if (reasons.length === 0) return '';
  return html`<p class="note" id="lost-floor">${FLOOR}At least: ${reasons.join('; ')}. The figures marked are a floor, never a silent zero.</p>`;
}

/** The page's "Tokens lost" section: the tables by cause and by retry safety, or a sentence when no run lost an attempt. */
export function lostSection(lost: LostReport): Html {
  const { total } = lost;
  const body =
    nonNegative(total.runs) === 0
      ? html`<p class="note" id="lost-none">No run lost an attempt: every attempt made its run's answer.</p>`
      : html`<div class="lost-tables">
${table('Cause', lost.byCause, total, 'other', 'lost-cause')}
${table('Retry safety', lost.byRetrySafety, total, 'retrySafety', 'lost-retry-safety')}
</div>
${
  total.reasoningTokens !== undefined || total.cachedInputTokens !== undefined
    ? html`<p class="muted" id="lost-details">${[
        total.reasoningTokens !== undefined &&
          `${formatTokens(total.reasoningTokens)} of the output tokens were reasoning.`,
        total.cachedInputTokens !== undefined &&
          ` ${formatTokens(total.cachedInputTokens)} of the input tokens were read from a prompt cache.`,
      ]}</p>`
    : ''
}
${floorNote(total)}`;
  return html`<section aria-labelledby="lost-heading" id="lost">
<h2 id="lost-heading">Tokens lost</h2>
<p class="muted">What the attempts that did not make their run's answer used: every attempt of a failed, incomplete or cancelled run, and the failed, cut-off or retried attempts of a run that succeeded or recovered.</p>
${body}
</section>`;
}

/** What one run lost, in a line: `2 attempts: 2,700 input and 120 output tokens, $0.0100`, `at least …` when a floor. */
export function lostLine(lost: LostUsage): string {
  const costText = lost.costUsd === undefined ? '' : `, ${formatUsd(nonNegative(lost.costUsd))}`;
  const figures = `${formatTokens(nonNegative(lost.inputTokens))} input and ${formatTokens(nonNegative(lost.outputTokens))} output tokens${costText}`;
  return `${counting(lost.attempts, 'attempt')}: ${lost.lowerBound ? `at least ${figures}` : figures}`;
}

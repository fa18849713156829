/**
 * A count of runs by one dimension (outcome, cause, phase, retry safety) as a
 * bar chart that is also a table, and the same counts as the options of the
 * page's filter.
 */
import type { Counts } from '../report-model.js';
import type { Html } from './markup.js';
import { html } from './markup.js';
import { count, shown, toneClass } from './shown-values.js';
import { nonNegative } from './timeline.js';
/** The chart of `counts`, titled `title` and counted `over` the runs it says. */
export function chart(
  title: string,
  over: string,
  counts: Counts,
  dimension: 'outcome' | 'retrySafety' | 'other',
  id: string,
): Html {
  const max = Math.max(1, ...counts.map(([, n]) => nonNegative(n)));
  const rows = counts.map(
    ([value, n]) => html`<tr data-value="${value}">
<th scope="row">${shown(value)}</th>
<td class="share"><span class="bar${toneClass(dimension, value)}" style="width:${((nonNegative(n) / max) * 100).toFixed(2)}%"></span></td>
<td class="num">${count(n)}</td>
</tr>`,
  );
  return html`<section class="chart" id="${id}">
<table>
<caption>${title} <span class="muted">· ${over}</span></caption>
<thead class="visually-hidden"><tr><th scope="col">${title.replace(/^By /, '')}</th><th scope="col">Share</th><th scope="col">Runs</th></tr></thead>
<tbody>
${counts.length > 0 ? rows : html`<tr><td colspan="3" class="muted">nothing to count</td></tr>`}
</tbody>
</table>
</section>`;
}

/** A filter `<select>` named `name` with one option per counted value. */
export function filterOptions(name: string, label: string, counts: Counts): Html {
  return html`<label>${label}<select name="${name}"><option value="*">all</option>${counts.map(
    ([value, n]) => html`<option value="${value}">${value === '' ? 'none' : value} (${count(n)})</option>`,
  )}</select></label>`;
}

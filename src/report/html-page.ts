/**
 * `agent-incidents report --html`: one self-contained page of a report.
 * Counts by outcome, cause, phase and retry safety as bar charts that are also
 * tables; the tokens and cost lost, by cause and by retry safety; then each listed incident with what a user would be told
 * (presentIncident), its closed values as badges, its trace and a timeline of
 * its attempts and tool calls. Pure: a report in, a string out.
 *
 * Everything read from the input is escaped ({@link html}); classes, colours
 * and the user-facing text come only from values checked against the closed
 * lists of enums.ts, so an unknown value shows as text and changes nothing
 * else. The page fetches nothing: its CSP is `default-src 'none'` with the
 * inline styles and the one filter script (by hash) allowed.
 *
 * The page's parts are in html/: the charts (count-chart.ts), the lost usage
 * (lost-usage.ts), the incident cards (incident-card.ts), the CSS and script (assets.ts).
 */
import { createHash } from 'node:crypto';
import { isOneOf } from '../model/enums.js';
import { PRESENTATION_LOCALES } from '../presentation/present-incident.js';
import type { PresentationLocale } from '../presentation/present-incident.js';
import { FILTER_SCRIPT, PAGE_CSS } from './html/assets.js';
import { chart, filterOptions } from './html/count-chart.js';
import { incidentCard } from './html/incident-card.js';
import { lostSection } from './html/lost-usage.js';
import type { Html } from './html/markup.js';
import { html, trusted } from './html/markup.js';
import { count, counting } from './html/shown-values.js';
import { nonNegative } from './html/timeline.js';
import { plural } from './plural.js';
import type { IncidentReport } from './report-model.js';

const SCRIPT_HASH = createHash('sha256').update(FILTER_SCRIPT).digest('base64');
const CSP = `default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${SCRIPT_HASH}'; img-src data:; base-uri 'none'; form-action 'none'`;

/** The Jaeger base URL without trailing slashes; throws a `TypeError` when it is not http(s). */
function jaegerBase(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(
      `jaegerUrl must be an http(s) URL such as http://127.0.0.1:16686 (actual: ${JSON.stringify(value)})`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(
      `jaegerUrl must be an http(s) URL such as http://127.0.0.1:16686 (actual: ${JSON.stringify(value)})`,
    );
  }
  return value.trim().replace(/\/+$/, '');
}

/** Options of {@link renderIncidentPage}. */
export interface IncidentPageOptions {
  /** Jaeger UI base address: each incident links to its trace. @default none */
  readonly jaegerUrl?: string;
  /** When the page was made. @default now */
  readonly generatedAt?: Date;
  /** Language of the incident text. @default 'en' */
  readonly locale?: PresentationLocale;
  /** The input as the user named it (a file, `stdin`), said on the page of an input with no span. @default 'the input' */
  readonly inputName?: string;
}

/** What each total at the top of the page counts, in words, under its number (so the page explains itself without JavaScript). */
const TOTALS_EXPLAINED = {
  runs: 'agent runs in the input, incidents or not',
  incidents: 'runs that did not simply succeed: recovered, failed, cancelled or incomplete',
  folded:
    "runs with no verdict in the file (exported without the agent-incidents processor or gateway), judged here from their spans; the rest kept the processor's or the gateway's verdict",
  listed: "incidents shown one by one below, most recent first, up to the report's limit",
} as const;

function head(title: string): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="agent-incidents">
<title>${title}</title>
<style>${trusted(PAGE_CSS)}</style>
</head>`;
}

function generatedText(generated: string): Html | '' {
  return generated
    ? html`Generated <time datetime="${generated}">${generated.slice(0, 16).replace('T', ' ')} UTC</time>.`
    : '';
}

const FOOTER = html`<footer>Made by agent-incidents from closed values only: no prompt, output or error text is shown. Self-contained; nothing on this page is fetched.</footer>`;

/** The page of an input that held no span: it says so, with no charts of zeros. */
function noSpansPage(report: IncidentReport, inputName: string, generated: string): string {
  const lines = Math.round(nonNegative(report.input.lines));
  return html`${head('Incident report · no spans')}
<body>
<main>
<header>
<p class="eyebrow">agent-incidents report</p>
<h1>No spans in ${inputName}</h1>
<p class="lede">${lines === 0 ? 'The input is empty' : `Read ${counting(lines, 'line')}, none with a span`}: there are no runs to count and no incidents to show.
${generatedText(generated)}</p>
</header>
<p class="note" id="no-spans">If you expected spans here, check that your app or collector exports to this file (the collector's file exporter, or <code>agent-incidents receive --out</code>) and that it had flushed when the report read it.</p>
${FOOTER}
</main>
</body>
</html>
`.value;
}

/**
 * The report as one self-contained HTML page: inline CSS, no external
 * requests, readable from `file://` and without JavaScript (a small inline
 * script only adds filters). Every string from the input is escaped. An input
 * with no span gets a page that says so instead of empty charts.
 *
 * @param report the report to show; `incidents` are listed in the order given.
 * @param options `jaegerUrl` (default none: no trace links; must be http(s),
 *   a trailing slash is dropped), `generatedAt` (default now), `locale` of the
 *   incident text (default `'en'`), `inputName` (default `the input`).
 * @throws TypeError when `jaegerUrl` is not an http(s) URL.
 */
export function renderIncidentPage(report: IncidentReport, options: IncidentPageOptions = {}): string {
  const jaeger = jaegerBase(options.jaegerUrl);
  const locale = isOneOf(PRESENTATION_LOCALES, options.locale) ? options.locale : undefined;
  const generatedAt = options.generatedAt ?? new Date();
  const generated = Number.isNaN(generatedAt.getTime()) ? '' : generatedAt.toISOString();
  if (nonNegative(report.input.spans) === 0) return noSpansPage(report, options.inputName ?? 'the input', generated);
  const incidentTotal = report.byOutcome.reduce(
    (sum, [value, n]) => (value === 'success' ? sum : sum + nonNegative(n)),
    0,
  );
  const listed = report.incidents.length;
  const omitted = nonNegative(report.incidentsOmitted);
  const folded = nonNegative(report.folded);
  const early = nonNegative(report.window?.runsJudgedEarly);
  const over = counting(incidentTotal, 'incident');
  const headline = `${over} in ${counting(report.runs, 'run')}`;

  const page = html`${head(`Incident report · ${headline}`)}
<body>
<main>
<header>
<p class="eyebrow">agent-incidents report</p>
<h1>${headline}</h1>
<p class="lede">Read ${counting(report.input.lines, 'line')}: ${counting(report.input.spans, 'span')} in ${counting(report.input.traces, 'trace')}.
${
  nonNegative(report.runs) === 0
    ? 'No agent run this report recognises is in them: nothing to judge.'
    : folded > 0
      ? `${count(folded)} of ${counting(report.runs, 'run')} carried no verdict (exported without the processor or the gateway) and ${plural(folded, 'was', 'were')} judged by this report from ${plural(folded, 'its', 'their')} spans.`
      : 'Every run carried its verdict in the file.'
}
${early > 0 ? `${count(early)} of them ${plural(early, 'was', 'were')} judged before ${plural(early, 'its', 'their')} trace may have been complete (the report's window was full), as incomplete, never as a success.` : ''}
${generatedText(generated)}</p>
<dl class="totals" id="totals">
<div><dt>Runs</dt><dd data-total="runs">${count(report.runs)}</dd><dd class="explain">${TOTALS_EXPLAINED.runs}</dd></div>
<div><dt>Incidents</dt><dd data-total="incidents">${count(incidentTotal)}</dd><dd class="explain">${TOTALS_EXPLAINED.incidents}</dd></div>
<div><dt>Judged by this report</dt><dd data-total="folded">${count(folded)}</dd><dd class="explain" id="folded-explained">${TOTALS_EXPLAINED.folded}</dd></div>
<div><dt>Listed below</dt><dd data-total="listed">${count(listed)}</dd><dd class="explain">${TOTALS_EXPLAINED.listed}</dd></div>
</dl>
</header>

<section aria-labelledby="counts-heading">
<h2 id="counts-heading">Counts</h2>
<div class="charts">
${chart('By outcome', counting(report.runs, 'run'), report.byOutcome, 'outcome', 'chart-outcome')}
${chart('By cause', over, report.byCause, 'other', 'chart-cause')}
${chart('By phase', over, report.byPhase, 'other', 'chart-phase')}
${chart('By retry safety', over, report.byRetrySafety, 'retrySafety', 'chart-retry-safety')}
</div>
</section>

${lostSection(report.lost)}

<section aria-labelledby="incidents-heading">
<h2 id="incidents-heading">Incidents</h2>
${
  listed === 0
    ? html`<p class="note">${incidentTotal === 0 ? 'No incidents: every run succeeded.' : 'No incidents are listed.'}</p>`
    : html`<p class="muted">Most recent first, ${count(listed)} listed.</p>`
}
${omitted > 0 ? html`<p class="note" id="omitted">${counting(omitted, 'more incident is', 'more incidents are')} counted above but not listed here (the report's limit).</p>` : ''}
${
  listed > 0
    ? html`<ul class="legend" aria-label="Timeline legend">
<li><span class="sw sw-attempt"></span>attempt (model request)</li>
<li><span class="sw sw-tool"></span>tool call</li>
<li><span class="sw sw-error"></span>failed</li>
<li><span class="sw sw-open"></span>never ended</li>
<li><span class="sw sw-side"></span>⚠ tool with side effects</li>
<li>✕ where the run broke</li>
</ul>
<form class="filters" id="filters" hidden aria-label="Filter incidents">
${filterOptions('cause', 'Cause', report.byCause)}
${filterOptions('phase', 'Phase', report.byPhase)}
${filterOptions('safety', 'Retry safety', report.byRetrySafety)}
<output id="filter-count" aria-live="polite"></output>
</form>
<div class="incidents">
${report.incidents.map((run, i) => incidentCard(run, i, jaeger, locale))}
</div>`
    : ''
}
</section>
${FOOTER}
</main>
${listed > 0 ? html`<script>${trusted(FILTER_SCRIPT)}</script>` : ''}
</body>
</html>
`;
  return page.value;
}

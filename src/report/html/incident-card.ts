/**
 * One listed incident on the report page: what a user would be told
 * (presentIncident, from the row's closed values only), its closed values as
 * badges, its trace (linked to Jaeger when asked) and the timeline of its
 * attempts and tool calls.
 */
import type { Cause } from '../../model/enums.js';
import {
  CAUSE_DETAILS,
  CAUSES,
  OUTCOMES,
  PHASES,
  RETRY_SAFETIES,
  RETRY_SAFETY_REASONS,
  SIDE_EFFECTS,
  isOneOf,
} from '../../model/enums.js';
import type { Incident } from '../../model/incident.js';
import type { PresentationLocale } from '../../presentation/present-incident.js';
import { presentIncident } from '../../presentation/present-incident.js';
import type { ReportRun } from '../report-model.js';
import type { Html } from './markup.js';
import { lostLine } from './lost-usage.js';
import { html, trusted } from './markup.js';
import { count, shown, toneClass } from './shown-values.js';
import { formatMillis, hasSideEffects, renderTimeline } from './timeline.js';
const TRACE_ID = /^[0-9a-f]{32}$/i;

/** The verdict of a row, from its closed values only: what presentIncident needs, nothing from free text. */
function verdictOf(run: ReportRun): Incident {
  const cause: Cause | undefined = isOneOf(CAUSES, run.cause) ? run.cause : undefined;
  return {
    outcome: isOneOf(OUTCOMES, run.outcome) ? run.outcome : 'failed',
    cause,
    causeDetail:
      cause !== undefined && isOneOf<string>(CAUSE_DETAILS[cause], run.causeDetail) ? run.causeDetail : undefined,
    phase: isOneOf(PHASES, run.phase) ? run.phase : undefined,
    retrySafety: isOneOf(RETRY_SAFETIES, run.retrySafety) ? run.retrySafety : undefined,
    retrySafetyReason: isOneOf(RETRY_SAFETY_REASONS, run.retrySafetyReason) ? run.retrySafetyReason : undefined,
    sideEffects: isOneOf(SIDE_EFFECTS, run.sideEffects) ? run.sideEffects : 'unknown',
    factsComplete: true,
    missingFacts: [],
    attempts: run.timeline.filter((i) => i.kind === 'attempt').length,
    recoveredAttempts: 0,
  };
}

function badge(key: string, value: string | undefined, tone = ''): Html {
  return html`<li class="badge${trusted(tone)}"><span class="k">${key}</span> ${shown(value)}</li>`;
}

function startedAt(millis: number | undefined): Html | undefined {
  if (typeof millis !== 'number' || !Number.isFinite(millis)) return undefined;
  const date = new Date(millis);
  if (Number.isNaN(date.getTime())) return undefined;
  const iso = date.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>`;
}

/** The card of incident `run`, the `index`th listed; `jaeger` is the base URL of trace links, if any. */
export function incidentCard(
  run: ReportRun,
  index: number,
  jaeger: string | undefined,
  locale: PresentationLocale | undefined,
): Html {
  const verdict = verdictOf(run);
  const text = presentIncident(verdict, { locale });
  const lang = locale ?? 'en';
  const id = `incident-${index + 1}`;
  const traceId = typeof run.traceId === 'string' ? run.traceId : '';
  const link = jaeger !== undefined && TRACE_ID.test(traceId) ? `${jaeger}/trace/${traceId.toLowerCase()}` : undefined;
  const sideEffectTools = run.timeline.filter(hasSideEffects).length;
  const cause = run.causeDetail ? `${run.cause ?? ''}(${run.causeDetail})` : run.cause;
  const meta: [string, Html | string | undefined][] = [
    ['Agent', run.agentName],
    ['Provider', run.provider],
    ['Service', run.serviceName],
    ['Started', startedAt(run.startUnixMillis)],
    ['Duration', run.durationMillis === undefined ? 'never ended' : formatMillis(run.durationMillis)],
    ['Verdict', run.source === 'folded' ? 'judged by this report from its spans' : 'recorded in the file'],
    ['Lost', run.lost === undefined ? undefined : lostLine(run.lost)],
  ];
  return html`<article class="incident sev-${text.severity}" id="${id}" aria-labelledby="${id}-title" data-cause="${run.cause ?? ''}" data-phase="${run.phase ?? ''}" data-safety="${run.retrySafety ?? ''}">
<span class="sev">${text.severity}</span>
<h3 id="${id}-title" lang="${lang}">${text.title}</h3>
<ul class="badges" aria-label="Verdict">
${badge('outcome', run.outcome, toneClass('outcome', run.outcome))}
${badge('cause', cause)}
${badge('phase', run.phase)}
${badge('retry', run.retrySafety, toneClass('retrySafety', run.retrySafety ?? ''))}
${run.retrySafetyReason ? badge('because', run.retrySafetyReason) : ''}
${run.sideEffects && run.sideEffects !== 'none' ? badge('side effects', run.sideEffects, run.sideEffects === 'read_only' ? '' : ' c-warn') : ''}
</ul>
<p class="message" lang="${lang}">${text.message}</p>
<p class="action" lang="${lang}"><strong>What to do:</strong> ${text.suggestedAction}</p>
<dl class="meta">
<div class="trace"><dt>Trace</dt><dd><code class="trace-id">${traceId || 'none'}</code>${link ? html` · <a class="trace-link" href="${link}" rel="noreferrer">Open in Jaeger</a>` : ''}</dd></div>
${meta.filter(([, v]) => v !== undefined && v !== '').map(([k, v]) => html`<div><dt>${k}</dt><dd>${v}</dd></div>`)}
${sideEffectTools > 0 ? html`<div><dt>Tool calls with side effects</dt><dd>${count(sideEffectTools)}</dd></div>` : ''}
</dl>
${renderTimeline(run, `${id}-timeline`)}
</article>`;
}

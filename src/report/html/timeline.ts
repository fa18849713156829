/**
 * The timeline of one run: its attempts and tool calls as bars placed by
 * start and duration on the run's own time scale, each also written out as
 * text (kind, name, start, duration, what went wrong), so the bars are never
 * the only way to read it.
 */
import { TOOL_SIDE_EFFECTS, isOneOf } from '../../model/enums.js';
import { counted } from '../plural.js';
import type { ReportRun, TimelineItem } from '../report-model.js';
import type { Html } from './markup.js';
import { html } from './markup.js';

/** A finite, non-negative number, else 0: a bad value from a file places a bar at the start, it does not break the page. */
export function nonNegative(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** A duration as people read it: `0.42 ms`, `850 ms`, `1.2 s`, `2 min 5 s`. */
export function formatMillis(millis: number): string {
  const ms = nonNegative(millis);
  if (ms === 0) return '0 ms';
  if (ms < 10) return `${Number(ms.toPrecision(2))} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return seconds === 0 ? `${minutes} min` : `${minutes} min ${seconds} s`;
}

function percent(value: number): string {
  return `${Math.min(100, Math.max(0, value)).toFixed(2)}%`;
}

/** Whether a tool call may have changed something: a side-effect class other than `read_only`. */
export function hasSideEffects(item: TimelineItem): boolean {
  return item.kind === 'tool' && typeof item.sideEffects === 'string' && item.sideEffects !== 'read_only';
}

function itemRow(item: TimelineItem, scaleMillis: number): Html {
  const start = nonNegative(item.startOffsetMillis);
  const status = item.status === 'error' || item.status === 'open' ? item.status : 'ok';
  const open = status === 'open' || item.durationMillis === undefined;
  const duration = open ? Math.max(0, scaleMillis - start) : nonNegative(item.durationMillis);
  const kind = item.kind === 'tool' ? 'tool' : 'attempt';
  const sideEffects = hasSideEffects(item);
  const sideClass = isOneOf(TOOL_SIDE_EFFECTS, item.sideEffects) ? item.sideEffects : 'unknown';
  const classes = [
    'tl-item',
    `tl-${kind}`,
    open ? 'is-open' : `is-${status}`,
    item.broke === true && 'is-broke',
    sideEffects && 'has-side-effects',
  ]
    .filter(Boolean)
    .join(' ');
  const left = percent((start / scaleMillis) * 100);
  const width = percent((duration / scaleMillis) * 100);
  const notes = [
    item.broke === true && html`<span class="mark mark-broke">✕ broke here</span>`,
    sideEffects && html`<span class="mark mark-side se-${sideClass}">⚠ side effects: ${item.sideEffects}</span>`,
    open && html`<span class="mark mark-open">◌ never ended</span>`,
    status === 'error' &&
      html`<span class="mark mark-error">failed${item.cause ? html`: <code>${item.cause}</code>` : ''}</span>`,
  ].filter(Boolean);
  return html`<li class="${classes}" data-span-id="${item.spanId}">
<span class="tl-label"><span class="tl-kind">${kind === 'tool' ? 'tool' : 'attempt'}</span> <span class="tl-name" title="span ${item.spanId}">${item.name || '(unnamed)'}</span></span>
<span class="tl-track" aria-hidden="true"><span class="tl-bar" style="left:${left};width:max(3px,${width})"></span></span>
<span class="tl-time">+${formatMillis(start)} · ${open ? 'open' : formatMillis(duration)}</span>
${notes.length > 0 ? html`<span class="tl-notes">${notes.map((n) => [n, ' '])}</span>` : ''}
</li>`;
}

/**
 * The time the timeline spans: the run's duration, or the end of its last
 * item; when an item never ended after that, a little past its start so its
 * bar shows. Never 0.
 */
export function timelineScale(run: ReportRun): number {
  let end = nonNegative(run.durationMillis);
  let lastOpenStart = -1;
  for (const item of run.timeline) {
    const start = nonNegative(item.startOffsetMillis);
    if (item.status === 'open' || item.durationMillis === undefined) lastOpenStart = Math.max(lastOpenStart, start);
    else end = Math.max(end, start + nonNegative(item.durationMillis));
  }
  if (lastOpenStart >= 0 && lastOpenStart >= end * 0.9) end = Math.max(lastOpenStart * 1.1, lastOpenStart + 1);
  return end > 0 ? end : 1;
}

/** The timeline of `run`, or a sentence saying it has no attempts or tool calls in the input. */
export function renderTimeline(run: ReportRun, headingId: string): Html {
  if (run.timeline.length === 0) {
    return html`<p class="tl-empty">No attempts or tool calls of this run are in the input.</p>`;
  }
  const scale = timelineScale(run);
  // What was seen, without the room left after an item that never ended.
  const seen = run.timeline.reduce(
    (end, i) => Math.max(end, nonNegative(i.startOffsetMillis) + nonNegative(i.durationMillis)),
    nonNegative(run.durationMillis),
  );
  const openEnded =
    run.durationMillis === undefined && run.timeline.some((i) => i.status === 'open' || i.durationMillis === undefined);
  const attempts = run.timeline.filter((i) => i.kind === 'attempt').length;
  const tools = run.timeline.length - attempts;
  return html`<div class="timeline">
<h4 id="${headingId}" class="tl-heading">Timeline <span class="muted">· ${counted(attempts, 'attempt')}, ${counted(tools, 'tool call')}, ${openEnded ? 'over at least' : 'over'} ${formatMillis(Math.max(seen, ...run.timeline.map((i) => nonNegative(i.startOffsetMillis))))}</span></h4>
<ol class="tl" aria-labelledby="${headingId}">
${run.timeline.map((item) => itemRow(item, scale))}
</ol>
<div class="tl-axis" aria-hidden="true"><span class="tl-ticks"><span>0</span><span>${formatMillis(scale / 2)}</span><span>${formatMillis(scale)}</span></span></div>
</div>`;
}

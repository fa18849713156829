/**
 * The timeline of one run as `report` shows it: its attempts and tool calls
 * in start order, with status, side effects, cause and where it broke. Read
 * from the spans under the run (not past a nested run, which has its own).
 */
import { stringAttr } from '../conventions/span-view.js';
import * as K from '../model/attributes.js';
import { NATIVE_ATTR } from '../model/native-convention.js';
import type { ReportSpan } from './report-span.js';
import type { TimelineItem } from './report-model.js';

/** The spans of one trace by parent span id. */
export type ChildrenIndex = ReadonlyMap<string, readonly ReportSpan[]>;

/** Indexes the spans of a trace by parent, once per trace. */
export function childrenOf(spans: readonly ReportSpan[]): ChildrenIndex {
  const children = new Map<string, ReportSpan[]>();
  for (const span of spans) {
    const parent = span.view.parentSpanId;
    if (parent === undefined) continue;
    const list = children.get(parent);
    if (list) list.push(span);
    else children.set(parent, [span]);
  }
  return children;
}

/** Where a timeline's causes come from besides the spans: the fold's attempt verdicts, for a run judged here. */
export interface TimelineContext {
  /** Start of the run, epoch milliseconds: offsets count from here. */
  readonly runStartMillis: number;
  /** True when the run's outcome is `success`: nothing broke. */
  readonly succeeded: boolean;
  /** Causes of failed attempts the fold found, by attempt span id. @default none */
  readonly attemptCauses?: ReadonlyMap<string, string>;
}

/**
 * The attempts and tool calls under `runSpanId` (a run span, or the missing
 * run span a stand-in verdict was judged for), in start order. The last one
 * that failed or never ended is where the run broke, unless it succeeded.
 */
export function runTimeline(runSpanId: string, children: ChildrenIndex, context: TimelineContext): TimelineItem[] {
  const found: ReportSpan[] = [];
  const stack = [...(children.get(runSpanId) ?? [])];
  const seen = new Set<string>();
  while (stack.length > 0) {
    const span = stack.pop() as ReportSpan;
    if (seen.has(span.view.spanId)) continue;
    seen.add(span.view.spanId);
    // A nested run is a run of its own, with its own timeline.
    if (span.role === 'run') continue;
    if (span.role === 'attempt' || span.role === 'tool') found.push(span);
    stack.push(...(children.get(span.view.spanId) ?? []));
  }
  found.sort((a, b) => a.view.startMillis - b.view.startMillis || (a.view.spanId < b.view.spanId ? -1 : 1));
  const items = found.map((span) => itemOf(span, context));
  if (!context.succeeded) {
    for (let i = items.length - 1; i >= 0; i -= 1) {
      const item = items[i] as TimelineItem;
      if (item.status !== 'ok' || item.cause !== undefined) {
        items[i] = { ...item, broke: true };
        break;
      }
    }
  }
  return items;
}

function itemOf(span: ReportSpan, context: TimelineContext): TimelineItem {
  const { view } = span;
  const status = view.endMillis === undefined ? 'open' : view.statusCode === 2 ? 'error' : 'ok';
  const cause =
    stringAttr(view.attributes, K.ATTR_INCIDENT_ATTEMPT_CAUSE) ??
    context.attemptCauses?.get(view.spanId) ??
    (status === 'error' ? stringAttr(view.attributes, K.ATTR_ERROR_TYPE) : undefined);
  const sideEffects = stringAttr(view.attributes, NATIVE_ATTR.TOOL_SIDE_EFFECTS);
  return {
    kind: span.role === 'tool' ? 'tool' : 'attempt',
    name: view.name,
    spanId: view.spanId,
    startOffsetMillis: Math.max(0, view.startMillis - context.runStartMillis),
    ...(view.endMillis === undefined ? {} : { durationMillis: Math.max(0, view.endMillis - view.startMillis) }),
    status,
    ...(cause === undefined ? {} : { cause }),
    ...(sideEffects === undefined ? {} : { sideEffects }),
    broke: false,
  };
}

/**
 * Folds one whole trace at once, for the edges that receive spans after the
 * fact (the gateway, `report`): the same {@link RunFolder} the SDK processor
 * and the recorder drive live, driven here by the trace's structure alone.
 *
 * Spans start parents first and end children first, whatever their
 * timestamps say: a child's recorded end may fall a millisecond after its
 * parent's when two clocks disagree, and that must not make it look cut off.
 * A span that arrived without an end time (never ended) is cut off when its
 * run ends; a span that arrived ended was ended by its owner. A run whose own
 * span never arrived (the agent died) is judged as never ended under a
 * stand-in that is never exported; its verdict goes on the topmost span that
 * did arrive.
 */
import type { ConventionAdapter } from '../conventions/adapter.js';
import { ADAPTERS, recognise } from '../conventions/index.js';
import type { SpanView } from '../conventions/span-view.js';
import type { Policy } from '../derive/policy.js';
import { DEFAULT_POLICY } from '../derive/policy.js';
import type { AttemptVerdict, Incident } from '../model/incident.js';
import { GEN_AI, OPERATION } from '../model/native-convention.js';
import type { Folded } from './run-folder.js';
import { RunFolder } from './run-folder.js';

/** Options of {@link foldTrace}. */
export interface TraceFoldOptions {
  /** The verdict rules' options. @default DEFAULT_POLICY */
  readonly policy?: Policy;
  /** Conventions to read. @default ADAPTERS */
  readonly adapters?: readonly ConventionAdapter[];
  /**
   * Span ids of runs an earlier fold already judged: spans that arrive late
   * under one of them get no stand-in and no verdict (the run's was written).
   * @default none
   */
  readonly judgedRuns?: { has(spanId: string): boolean };
  /**
   * Span ids an earlier fold judged under a stand-in (the run span had not
   * come): a run span with such an id arrives without the facts of its parts,
   * so its verdict says its evidence was cut off. @default none
   */
  readonly judgedAsStandIns?: { has(spanId: string): boolean };
  /**
   * Nested runs an earlier fold judged without their parent span (it had not
   * come): by the parent span's id, their worst side effects, which count for
   * the run that span belongs to. @default none
   */
  readonly nestedJudged?: {
    get(
      parentSpanId: string,
    ): { readonly sideEffects: 'read_only' | 'unsafe' | 'unknown'; readonly evidenceTruncated: boolean } | undefined;
  };
  /**
   * Spans of this trace may still come (the gateway refused a sender with a
   * retryable status and judges before it can be back): every run is judged
   * with its evidence possibly truncated, so none reads `success`.
   * @default false
   */
  readonly partsMayStillCome?: boolean;
}

/** What {@link foldTrace} found. */
export interface TraceFold {
  /** Each run's verdict, by the span that carries it: the run span, or the topmost span of a run whose span never came. */
  readonly runs: ReadonlyMap<string, Incident>;
  /** The verdict of each failed attempt, by attempt span id. */
  readonly attempts: ReadonlyMap<string, AttemptVerdict>;
  /** Spans that were still open when their run ended, cut off there: span id → the end time they get. */
  readonly cut: ReadonlyMap<string, number>;
  /** Span ids of the runs judged (the stand-ins' missing ids included). */
  readonly judgedRuns: readonly string[];
  /** Missing run span ids judged under a stand-in. */
  readonly standIns: readonly string[];
  /**
   * Runs judged here whose parent span is not in the trace (it may come
   * later, under another run): by that parent's id, what they pass up.
   */
  readonly orphanedNested: ReadonlyMap<
    string,
    { readonly sideEffects: 'read_only' | 'unsafe' | 'unknown'; readonly evidenceTruncated: boolean }
  >;
}

const STAND_IN_PARTS = new Set(['attempt', 'tool', 'call']);

/** Orders siblings by start, then span id, so the fold never depends on arrival order. */
function byStart(a: SpanView, b: SpanView): number {
  return a.startMillis - b.startMillis || (a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0);
}

/**
 * Folds the spans of one trace (any order, any batching) into the verdicts of
 * its runs. Pure and total: odd spans are passed over, never thrown on.
 */
export function foldTrace(spans: readonly SpanView[], options: TraceFoldOptions = {}): TraceFold {
  const policy = options.policy ?? DEFAULT_POLICY;
  const adapters = options.adapters ?? ADAPTERS;
  const folder = new RunFolder<SpanView>({ policy, adapters, maxOpenRuns: Number.POSITIVE_INFINITY });
  const byId = new Map<string, SpanView>();
  for (const span of spans) if (!byId.has(span.spanId)) byId.set(span.spanId, span);

  // Stand-ins for missing run spans: a missing parent of an attempt, a tool or a framework call.
  const standIns = new Map<string, SpanView>();
  const topmost = new Map<string, SpanView>();
  for (const span of byId.values()) {
    const parent = span.parentSpanId;
    // A remote parent is another process's span: that process judges its own runs.
    if (parent === undefined || byId.has(parent) || options.judgedRuns?.has(parent) || span.parentIsRemote) continue;
    const known = standIns.get(parent);
    if (known === undefined) {
      const role = recognise(span, adapters)?.role;
      if (role === undefined || !STAND_IN_PARTS.has(role)) continue;
      standIns.set(parent, {
        spanId: parent,
        name: OPERATION.RUN,
        attributes: { [GEN_AI.OPERATION_NAME]: OPERATION.RUN },
        startMillis: span.startMillis,
        events: [],
        links: [],
        statusCode: 0,
      });
    } else if (span.startMillis < known.startMillis) {
      standIns.set(parent, { ...known, startMillis: span.startMillis });
    }
  }
  for (const span of byId.values()) {
    const parent = span.parentSpanId;
    if (parent === undefined || !standIns.has(parent)) continue;
    const best = topmost.get(parent);
    if (!best || byStart(span, best) < 0) topmost.set(parent, span);
  }

  const children = new Map<string, SpanView[]>();
  const roots: SpanView[] = [...standIns.values()];
  for (const span of byId.values()) {
    const parent = span.parentSpanId;
    const present = parent !== undefined && (byId.has(parent) || standIns.has(parent));
    if (!present) {
      roots.push(span);
      continue;
    }
    const list = children.get(parent);
    if (list) list.push(span);
    else children.set(parent, [span]);
  }
  roots.sort(byStart);
  for (const list of children.values()) list.sort(byStart);

  let latest = Number.NEGATIVE_INFINITY;
  for (const span of byId.values()) latest = Math.max(latest, span.endMillis ?? span.startMillis, span.startMillis);

  const runs = new Map<string, Incident>();
  const attempts = new Map<string, AttemptVerdict>();
  const cut = new Map<string, number>();
  const judgedRuns: string[] = [];
  const orphanedNested = new Map<
    string,
    { sideEffects: 'read_only' | 'unsafe' | 'unknown'; evidenceTruncated: boolean }
  >();
  const record = (spanId: string, folded: Folded | undefined): void => {
    if (folded?.kind === 'attempt') attempts.set(spanId, folded.verdict);
    else if (folded?.kind === 'run') {
      judgedRuns.push(spanId);
      const parent = byId.get(spanId)?.parentSpanId;
      if (
        parent !== undefined &&
        !byId.has(parent) &&
        !standIns.has(parent) &&
        folded.incident.sideEffects !== 'none'
      ) {
        orphanedNested.set(parent, {
          sideEffects: folded.incident.sideEffects,
          evidenceTruncated: folded.facts.evidenceTruncated === true,
        });
      }
      const carrier = standIns.has(spanId) ? topmost.get(spanId)?.spanId : spanId;
      if (carrier !== undefined) runs.set(carrier, folded.incident);
    }
  };
  // A run span ends after the spans still open in it are cut off at its end.
  const endSpan = (view: SpanView, endMillis: number): void => {
    if (folder.isRun(view.spanId)) {
      for (const open of folder.cutOpenSpans(view.spanId)) {
        cut.set(open.spanId, endMillis);
        endSpan(open, endMillis);
      }
    }
    const ended = view.endMillis === endMillis ? view : { ...view, endMillis };
    record(view.spanId, folder.end(ended, view));
  };

  const begin = (span: SpanView): void => {
    folder.start(span, span);
    if (
      (options.partsMayStillCome === true || options.judgedAsStandIns?.has(span.spanId) === true) &&
      folder.isRun(span.spanId)
    )
      folder.markEvidenceTruncated(span.spanId);
    const nested = options.nestedJudged?.get(span.spanId);
    if (nested) folder.nestedRunJudged(span.spanId, nested.sideEffects, nested.evidenceTruncated, span.startMillis);
  };
  // Depth first, iteratively: parents start before their children, children end before their parents.
  const visited = new Set<string>();
  for (const root of roots) {
    const stack: { span: SpanView; next: number }[] = [{ span: root, next: 0 }];
    visited.add(root.spanId);
    begin(root);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { span: SpanView; next: number };
      const kids = children.get(top.span.spanId) ?? [];
      const child = kids[top.next];
      if (child !== undefined) {
        top.next += 1;
        if (visited.has(child.spanId)) continue;
        visited.add(child.spanId);
        begin(child);
        stack.push({ span: child, next: 0 });
        continue;
      }
      stack.pop();
      const end = top.span.endMillis;
      if (end !== undefined && !cut.has(top.span.spanId)) endSpan(top.span, end);
    }
  }
  // Runs still open never ended: their span never came, or came without an end.
  const endOfTrace = Number.isFinite(latest) ? latest : 0;
  for (const { handle } of folder.openRunHandles()) {
    if (!folder.isRun(handle.spanId)) continue; // ended with its parent above
    folder.markNeverEnded(handle.spanId);
    if (!standIns.has(handle.spanId)) cut.set(handle.spanId, endOfTrace);
    endSpan(handle, endOfTrace);
  }
  return { runs, attempts, cut, judgedRuns, standIns: [...standIns.keys()], orphanedNested };
}

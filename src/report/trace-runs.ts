// Over 300 lines: runsOfTrace and the readers of one run it needs (a verdict from the file, a verdict
// folded here, its times), kept together so that both kinds of run leave in one shape.
/**
 * The runs of one trace (or of one part of it, when its spans came in parts
 * far apart): each run once, with the verdict its span carries (written by
 * the processor or the gateway) or, for a run exported without one, the
 * verdict of the fold core over the trace's spans. Pure.
 */
import { stringAttr } from '../conventions/span-view.js';
import type { Policy } from '../derive/policy.js';
import { foldTrace } from '../fold/fold-trace.js';
import * as K from '../model/attributes.js';
import type { Incident } from '../model/incident.js';
import { GEN_AI } from '../model/native-convention.js';
import type { ReportRun, TimelineItem } from './report-model.js';
import type { ReportSpan } from './report-span.js';
import { lostOfAttributes } from './lost-usage-summary.js';
import { childrenOf, runTimeline } from './run-timeline.js';
import { isStandInVerdict, rememberedKey, resolveKeys } from './trace-keys.js';

/** A run of the trace: everything but its timeline, which is built only for the runs a report lists. */
export interface TraceRun {
  readonly run: Omit<ReportRun, 'timeline'>;
  readonly timeline: () => TimelineItem[];
  /** The run's key: its run span's id (the missing one for a stand-in verdict). */
  readonly key: string;
  /** Keys of runs an earlier part counted with a verdict made up here that this run's verdict replaces. */
  readonly replaces: readonly string[];
  /** The verdict was made up here under a stand-in (the run span had not come). */
  readonly standIn: boolean;
  /** The gateway's revision number of the verdict (`incident.revision.number`); 0 for a first verdict. */
  readonly revision: number;
}

/** A run an earlier part counted. */
export interface CountedRun {
  /** The verdict was made up here (folded), not read from the file. */
  readonly madeUp: boolean;
  /** Made up under a stand-in: the run span had not come. */
  readonly standIn: boolean;
  /** The revision number of the verdict counted (0: a first verdict); a higher revision replaces it. @default 0 */
  readonly revision?: number;
}

/** What earlier parts of the same trace left: runs counted, where their spans went, nested runs judged without their parent. */
export interface EarlierParts {
  /** The runs counted, by key. */
  readonly counted: ReadonlyMap<string, CountedRun>;
  /** Span id → run key of the spans of earlier parts; a missing ancestor's id maps to itself. */
  readonly runOf: ReadonlyMap<string, string>;
  /** Missing run span ids an earlier fold judged under a stand-in. */
  readonly standIns: ReadonlySet<string>;
  readonly nested: ReadonlyMap<
    string,
    { readonly sideEffects: 'read_only' | 'unsafe' | 'unknown'; readonly evidenceTruncated: boolean }
  >;
}

/** Options of {@link runsOfTrace}. */
export interface TraceRunsOptions {
  /** The verdict rules' options. @default DEFAULT_POLICY */
  readonly policy?: Policy;
  /**
   * The trace was judged before it may have been complete (the window was
   * full): every run folded here, of any convention, is judged as if its
   * evidence was cut off, so a missing part can only make a verdict more
   * cautious (never success). @default false
   */
  readonly cautious?: boolean;
  /** What earlier parts of this trace left. @default none */
  readonly earlier?: EarlierParts;
}

/** The runs found, and what a later part of the trace must know. */
export interface TraceRuns {
  readonly runs: TraceRun[];
  /** Runs judged by the fold here. */
  readonly folded: number;
  /** Span id → run key of this part's spans (missing ancestors map to themselves). */
  readonly runOf: ReadonlyMap<string, string>;
  /** Earlier made-up stand-in keys whose run turned out to be one counted already: no longer counted. */
  readonly retired: readonly string[];
  /** Earlier made-up stand-in keys whose run turned out to be another, not counted yet: [old key, new key]. */
  readonly rekeyed: readonly (readonly [string, string])[];
  readonly standIns: readonly string[];
  readonly nested: ReadonlyMap<
    string,
    { readonly sideEffects: 'read_only' | 'unsafe' | 'unknown'; readonly evidenceTruncated: boolean }
  >;
}

const PARTS = new Set(['attempt', 'tool', 'call']);
const ALL: { has(id: string): boolean } = { has: () => true };

/** Judges the spans of one trace part. */
export function runsOfTrace(spans: readonly ReportSpan[], options: TraceRunsOptions = {}): TraceRuns {
  const earlier = options.earlier;
  const byId = new Map<string, ReportSpan>();
  for (const span of spans) if (!byId.has(span.view.spanId)) byId.set(span.view.spanId, span);
  const earlierKey = (id: string) =>
    rememberedKey(earlier?.runOf, id) ?? (earlier?.counted.has(id) === true ? id : undefined);
  // A span whose parent came in an earlier part, under a run whose span is here: it hangs under that run span now.
  for (const span of byId.values()) {
    const parent = span.view.parentSpanId;
    if (parent === undefined || span.view.parentIsRemote || byId.has(parent)) continue;
    const key = earlierKey(parent);
    if (key !== undefined && key !== parent && byId.has(key))
      byId.set(span.view.spanId, { ...span, view: { ...span.view, parentSpanId: key } });
  }
  const children = childrenOf([...byId.values()]);
  const counted = new Map<string, TraceRun>();
  const runs: TraceRun[] = [];
  // A span of a run counted already (here or earlier), as far as earlier parts tell.
  const inCountedRun = (id: string) => {
    const key = earlierKey(id);
    return key !== undefined && (counted.has(key) || earlier?.counted.has(key) === true);
  };
  const parentRole = (s: ReportSpan): 'run' | 'other' | 'absent' => {
    const parent = s.view.parentSpanId as string;
    const here = byId.get(parent);
    if (here) return here.role === 'run' ? 'run' : 'other';
    const key = earlierKey(parent);
    return key === undefined || key === parent ? 'absent' : 'other';
  };
  // Whether a verdict for `key` counts here: not counted yet, or counted earlier with a verdict made up here that this one replaces.
  const take = (key: string, fromFile: boolean): { take: boolean; replaces: string[] } => {
    if (counted.has(key)) return { take: false, replaces: [] };
    const before = earlier?.counted.get(key);
    if (!before) return { take: true, replaces: [] };
    // A verdict in the file always wins over one made up here; a run span that came after its stand-in was judged replaces it too.
    if (before.madeUp && (fromFile || (before.standIn && byId.has(key)))) return { take: true, replaces: [key] };
    return { take: false, replaces: [] };
  };

  const keyOfVerdict = (span: ReportSpan) =>
    isStandInVerdict(span, parentRole(span)) ? (span.view.parentSpanId as string) : span.view.spanId;
  const revisions: ReportSpan[] = [];
  for (const span of byId.values()) {
    if (!span.judged) continue;
    if (revisionOf(span) !== undefined) {
      revisions.push(span);
      continue;
    }
    const key = keyOfVerdict(span);
    const t = take(key, true);
    if (!t.take) continue;
    const run = fileRun(span, key, children, byId, t.replaces);
    counted.set(key, run);
    runs.push(run);
  }
  // The gateway's corrections (docs/gateway.md#late-parts): the highest revision is the run's one verdict, so a
  // revision replaces the verdict counted for its run, here or in an earlier part, and is never a run of its own.
  revisions.sort((a, b) => revisionOf(a)!.number - revisionOf(b)!.number);
  for (const span of revisions) {
    const { of, number } = revisionOf(span)!;
    const carrier = byId.get(of);
    const key = carrier ? keyOfVerdict(carrier) : (rememberedKey(earlier?.runOf, of) ?? of);
    const here = counted.get(key);
    const before = here ? undefined : earlier?.counted.get(key);
    if ((here?.revision ?? before?.revision ?? -1) >= number) continue;
    const run = fileRun(span, key, children, byId, here ? [...here.replaces] : before ? [key] : [], { of, number });
    if (here) runs[runs.indexOf(here)] = run;
    else runs.push(run);
    counted.set(key, run);
  }

  // A fold is needed when some run may have no verdict: an un-judged run span
  // or framework call (a run of its own unless inside one), or a part whose
  // run span is absent and no verdict stands for it.
  const orphan = (s: ReportSpan) => {
    const parent = s.view.parentSpanId;
    return (
      parent !== undefined &&
      !byId.has(parent) &&
      !counted.has(parent) &&
      !inCountedRun(parent) &&
      !s.view.parentIsRemote
    );
  };
  const needsFold = [...byId.values()].some(
    (s) =>
      !s.judged && (s.role === 'run' || s.role === 'call' || (s.role !== undefined && PARTS.has(s.role) && orphan(s))),
  );
  let fold: ReturnType<typeof foldTrace> | undefined;
  let folded = 0;
  if (needsFold) {
    // A span whose descendants came in an earlier part: its run lost that evidence here (and so did every run above it).
    const truncated = new Set(earlier?.standIns ?? []);
    for (const s of byId.values()) {
      if (earlier?.runOf.get(s.view.spanId) !== s.view.spanId) continue;
      for (
        let at: ReportSpan | undefined = s, depth = 0;
        at !== undefined && depth < 256;
        at = byId.get(at.view.parentSpanId ?? ''), depth += 1
      )
        truncated.add(at.view.spanId);
    }
    fold = foldTrace(
      [...byId.values()].map((s) => s.view),
      {
        policy: options.policy,
        judgedRuns: { has: (id) => counted.has(id) || inCountedRun(id) },
        judgedAsStandIns: options.cautious ? ALL : truncated,
        nestedJudged: earlier?.nested,
      },
    );
    const standIns = new Set(fold.standIns);
    const attemptCauses = new Map([...fold.attempts].map(([id, verdict]) => [id, verdict.cause as string]));
    for (const [carrierId, incident] of fold.runs) {
      const carrier = byId.get(carrierId);
      if (!carrier || carrier.judged) continue;
      const parent = carrier.view.parentSpanId;
      const standIn = parent !== undefined && standIns.has(parent);
      // A framework call under a span of a run judged earlier is a late part of that run, not a run of its own.
      if (!standIn && carrier.role !== 'run' && parent !== undefined && !byId.has(parent) && inCountedRun(parent))
        continue;
      const key = standIn ? parent : carrierId;
      const t = take(key, false);
      if (!t.take) continue;
      folded += 1;
      const run = foldedRun(incident, carrier, key, children, byId, attemptCauses, t.replaces, standIn);
      counted.set(key, run);
      runs.push(run);
    }
  }

  // Where this part's spans went, and earlier stand-ins that turn out to be a span of another run.
  const keysHere = new Set([...counted.keys(), ...(fold?.judgedRuns ?? [])]);
  const resolve = resolveKeys(byId, (id) => keysHere.has(id), earlier?.runOf);
  const runOf = new Map<string, string>();
  for (const id of byId.keys()) {
    const key = resolve(id);
    if (key === undefined) continue;
    runOf.set(id, key);
    if (!byId.has(key)) runOf.set(key, key);
  }
  const retired: string[] = [];
  const rekeyed: [string, string][] = [];
  for (const span of byId.values()) {
    const id = span.view.spanId;
    const before = earlier?.counted.get(id);
    if (!before?.madeUp || !before.standIn || counted.has(id) || span.role === 'run') continue;
    const parent = span.view.parentSpanId;
    if (parent === undefined || span.view.parentIsRemote) continue;
    const real = resolve(parent) ?? parent;
    runOf.set(id, real);
    const here = counted.get(real);
    if (here) (here.replaces as string[]).push(id);
    else if (earlier?.counted.has(real)) retired.push(id);
    else rekeyed.push([id, real]);
  }
  return {
    runs,
    folded,
    runOf,
    retired,
    rekeyed,
    standIns: fold?.standIns ?? [],
    nested: fold?.orphanedNested ?? new Map(),
  };
}

/** The largest time a Date holds, in epoch milliseconds (ECMA-262 §21.4.1.1): a start past it is shown as unknown. */
const MAX_DATE_MILLIS = 8.64e15;

/** Start (when a Date can hold it) and duration of the run of `key`: its own span when present, else the carrier's start (the run never ended). */
function runTimes(
  carrier: ReportSpan,
  key: string,
  byId: ReadonlyMap<string, ReportSpan>,
): { startUnixMillis?: number; durationMillis?: number } {
  const own = byId.get(key);
  const { startMillis, endMillis } = (own ?? carrier).view;
  const start = Math.floor(startMillis);
  const startUnixMillis = Number.isFinite(start) && Math.abs(start) <= MAX_DATE_MILLIS ? start : undefined;
  const durationMillis =
    own && endMillis !== undefined && Number.isFinite(endMillis - startMillis)
      ? Math.max(0, endMillis - startMillis)
      : undefined;
  return {
    ...(startUnixMillis === undefined ? {} : { startUnixMillis }),
    ...(durationMillis === undefined ? {} : { durationMillis }),
  };
}

/** The first value of `key` on the carrier, else on the spans of its run. */
function attributeOfRun(
  carrier: ReportSpan,
  runKey: string,
  key: string,
  children: ReturnType<typeof childrenOf>,
): string | undefined {
  const own = stringAttr(carrier.view.attributes, key);
  if (own !== undefined) return own;
  for (const child of children.get(runKey) ?? []) {
    const value = stringAttr(child.view.attributes, key);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** What a verdict-revision span revises: the span id of the run's first verdict, and its revision number. */
function revisionOf(span: ReportSpan): { of: string; number: number } | undefined {
  const of = stringAttr(span.view.attributes, K.ATTR_INCIDENT_REVISION_OF);
  if (of === undefined) return undefined;
  const number = span.view.attributes[K.ATTR_INCIDENT_REVISION_NUMBER];
  return { of, number: typeof number === 'number' && Number.isFinite(number) ? number : 1 };
}

function fileRun(
  span: ReportSpan,
  key: string,
  children: ReturnType<typeof childrenOf>,
  byId: ReadonlyMap<string, ReportSpan>,
  replaces: string[],
  revision?: { readonly of: string; readonly number: number },
): TraceRun {
  const get = (k: string) => stringAttr(span.view.attributes, k);
  const outcome = get(K.ATTR_INCIDENT_OUTCOME) as string;
  // A revision stands for the run's first verdict: shown on that span, timed by it when it is here.
  const carrier = (revision && byId.get(revision.of)) || span;
  const times = runTimes(carrier, key, byId);
  // A revision carries the whole new verdict, its lost figures included: they replace the first verdict's.
  const lost = lostOfAttributes(span.view.attributes);
  const run: Omit<ReportRun, 'timeline'> = {
    outcome,
    cause: get(K.ATTR_INCIDENT_CAUSE),
    causeDetail: get(K.ATTR_INCIDENT_CAUSE_DETAIL),
    phase: get(K.ATTR_INCIDENT_PHASE),
    retrySafety: get(K.ATTR_INCIDENT_RETRY_SAFETY),
    retrySafetyReason: get(K.ATTR_INCIDENT_RETRY_SAFETY_REASON),
    sideEffects: get(K.ATTR_INCIDENT_SIDE_EFFECTS),
    provider: attributeOfRun(span, key, GEN_AI.PROVIDER_NAME, children),
    agentName: attributeOfRun(span, key, GEN_AI.AGENT_NAME, children),
    serviceName: span.serviceName,
    traceId: span.traceId,
    spanId: revision?.of ?? span.view.spanId,
    ...times,
    source: 'file',
    ...(lost ? { lost } : {}),
  };
  return {
    run,
    key,
    replaces,
    standIn: false,
    revision: revision?.number ?? 0,
    timeline: () =>
      runTimeline(key, children, { runStartMillis: times.startUnixMillis ?? 0, succeeded: outcome === 'success' }),
  };
}

function foldedRun(
  incident: Incident,
  carrier: ReportSpan,
  key: string,
  children: ReturnType<typeof childrenOf>,
  byId: ReadonlyMap<string, ReportSpan>,
  attemptCauses: ReadonlyMap<string, string>,
  replaces: string[],
  standIn: boolean,
): TraceRun {
  const times = runTimes(carrier, key, byId);
  const run: Omit<ReportRun, 'timeline'> = {
    outcome: incident.outcome,
    cause: incident.cause,
    causeDetail: incident.causeDetail,
    phase: incident.phase,
    retrySafety: incident.retrySafety,
    retrySafetyReason: incident.retrySafetyReason,
    sideEffects: incident.sideEffects,
    provider: attributeOfRun(carrier, key, GEN_AI.PROVIDER_NAME, children),
    agentName: attributeOfRun(carrier, key, GEN_AI.AGENT_NAME, children),
    serviceName: carrier.serviceName,
    traceId: carrier.traceId,
    spanId: carrier.view.spanId,
    ...times,
    source: 'folded',
    ...(incident.lost ? { lost: incident.lost } : {}),
  };
  return {
    run,
    key,
    replaces,
    standIn,
    revision: 0,
    timeline: () =>
      runTimeline(key, children, {
        runStartMillis: times.startUnixMillis ?? 0,
        succeeded: incident.outcome === 'success',
        attemptCauses,
      }),
  };
}

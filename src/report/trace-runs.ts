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
import { runKeyOf } from './report-span.js';
import { childrenOf, runTimeline } from './run-timeline.js';

/** A run of the trace: everything but its timeline, which is built only for the runs a report lists. */
export interface TraceRun {
  readonly run: Omit<ReportRun, 'timeline'>;
  readonly timeline: () => TimelineItem[];
}

/** What earlier parts of the same trace left: runs counted, stand-ins, nested runs judged without their parent. */
export interface EarlierParts {
  /** Keys of the runs counted (run span ids, and the missing run span ids of stand-in verdicts). */
  readonly runKeys: ReadonlySet<string>;
  /** Missing run span ids an earlier fold judged under a stand-in. */
  readonly standIns: ReadonlySet<string>;
  readonly nested: ReadonlyMap<string, { readonly sideEffects: 'read_only' | 'unsafe' | 'unknown'; readonly evidenceTruncated: boolean }>;
}

/** Options of {@link runsOfTrace}. */
export interface TraceRunsOptions {
  /** The verdict rules' options. @default DEFAULT_POLICY */
  readonly policy?: Policy;
  /**
   * The trace was judged before it may have been complete (the window was
   * full): its un-judged runs are judged as if their evidence was cut off,
   * so a missing part can only make a verdict more cautious (never success).
   * @default false
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
  /** Keys of the runs counted here. */
  readonly runKeys: readonly string[];
  readonly standIns: readonly string[];
  readonly nested: ReadonlyMap<string, { readonly sideEffects: 'read_only' | 'unsafe' | 'unknown'; readonly evidenceTruncated: boolean }>;
}

const PARTS = new Set(['attempt', 'tool', 'call']);

/** Judges the spans of one trace part. */
export function runsOfTrace(spans: readonly ReportSpan[], options: TraceRunsOptions = {}): TraceRuns {
  const earlier = options.earlier;
  const byId = new Map<string, ReportSpan>();
  for (const span of spans) if (!byId.has(span.view.spanId)) byId.set(span.view.spanId, span);
  const children = childrenOf([...byId.values()]);
  const counted = new Set<string>();
  const runs: TraceRun[] = [];
  const isCounted = (key: string) => counted.has(key) || earlier?.runKeys.has(key) === true;

  for (const span of byId.values()) {
    if (!span.judged) continue;
    const key = runKeyOf(span);
    if (isCounted(key)) continue;
    counted.add(key);
    runs.push(fileRun(span, key, children, byId));
  }

  // A fold is needed when some run may have no verdict: an un-judged run span
  // or framework call (a run of its own unless inside one), or a part whose
  // run span is absent and no verdict stands for it.
  const orphan = (s: ReportSpan) => {
    const parent = s.view.parentSpanId;
    return parent !== undefined && !byId.has(parent) && !isCounted(parent) && !s.view.parentIsRemote;
  };
  const needsFold = [...byId.values()].some((s) => !s.judged && (s.role === 'run' || s.role === 'call' || (s.role !== undefined && PARTS.has(s.role) && orphan(s))));
  if (!needsFold) return { runs, folded: 0, runKeys: [...counted], standIns: [], nested: new Map() };

  const known = new Set([...counted, ...(earlier?.runKeys ?? [])]);
  const truncated = new Set(earlier?.standIns ?? []);
  if (options.cautious) for (const s of byId.values()) if (s.role === 'run' && !s.judged) truncated.add(s.view.spanId);
  const fold = foldTrace(
    [...byId.values()].map((s) => s.view),
    { policy: options.policy, judgedRuns: known, judgedAsStandIns: truncated, nestedJudged: earlier?.nested },
  );
  const standIns = new Set(fold.standIns);
  const attemptCauses = new Map([...fold.attempts].map(([id, verdict]) => [id, verdict.cause as string]));
  let folded = 0;
  for (const [carrierId, incident] of fold.runs) {
    const carrier = byId.get(carrierId);
    if (!carrier || carrier.judged) continue;
    const parent = carrier.view.parentSpanId;
    const key = parent !== undefined && standIns.has(parent) ? parent : carrierId;
    if (isCounted(key)) continue;
    counted.add(key);
    folded += 1;
    runs.push(foldedRun(incident, carrier, key, children, byId, attemptCauses));
  }
  return { runs, folded, runKeys: [...counted], standIns: fold.standIns, nested: fold.orphanedNested };
}

/** Start and duration of the run of `key`: its own span when present, else the carrier's start (the run never ended). */
function runTimes(carrier: ReportSpan, key: string, byId: ReadonlyMap<string, ReportSpan>): { startUnixMillis: number; durationMillis?: number } {
  const own = byId.get(key);
  if (!own) return { startUnixMillis: Math.floor(carrier.view.startMillis) };
  const { startMillis, endMillis } = own.view;
  return endMillis === undefined ? { startUnixMillis: Math.floor(startMillis) } : { startUnixMillis: Math.floor(startMillis), durationMillis: Math.max(0, endMillis - startMillis) };
}

/** The first value of `key` on the carrier, else on the spans of its run. */
function attributeOfRun(carrier: ReportSpan, runKey: string, key: string, children: ReturnType<typeof childrenOf>): string | undefined {
  const own = stringAttr(carrier.view.attributes, key);
  if (own !== undefined) return own;
  for (const child of children.get(runKey) ?? []) {
    const value = stringAttr(child.view.attributes, key);
    if (value !== undefined) return value;
  }
  return undefined;
}

function fileRun(span: ReportSpan, key: string, children: ReturnType<typeof childrenOf>, byId: ReadonlyMap<string, ReportSpan>): TraceRun {
  const get = (k: string) => stringAttr(span.view.attributes, k);
  const outcome = get(K.ATTR_INCIDENT_OUTCOME) as string;
  const times = runTimes(span, key, byId);
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
    spanId: span.view.spanId,
    ...times,
    source: 'file',
  };
  return { run, timeline: () => runTimeline(key, children, { runStartMillis: times.startUnixMillis, succeeded: outcome === 'success' }) };
}

function foldedRun(
  incident: Incident,
  carrier: ReportSpan,
  key: string,
  children: ReturnType<typeof childrenOf>,
  byId: ReadonlyMap<string, ReportSpan>,
  attemptCauses: ReadonlyMap<string, string>,
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
  };
  return { run, timeline: () => runTimeline(key, children, { runStartMillis: times.startUnixMillis, succeeded: incident.outcome === 'success', attemptCauses }) };
}

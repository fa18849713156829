// Over 300 lines: judging a trace, judging a kept one again and the revision spans, kept together so that
// a run's first verdict and its corrections are written by the same code.
/**
 * Judges one received trace: folds its decoded spans with the fold core
 * (src/fold/), writes each verdict on the span that carries it, marks the
 * spans cut off at their run's end, sanitizes every span, and hands back
 * spans ready to encode. No tracer provider, no replay: the spans go out with
 * the ids, times, resource and scope they came with.
 */
import { randomBytes } from 'node:crypto';
import type { ConventionAdapter } from '../conventions/adapter.js';
import type { AttributeRecord } from '../derive/incident-attributes.js';
import { attemptVerdictAttributes, incidentAttributes, runSpanStatus } from '../derive/incident-attributes.js';
import type { Policy, PolicyInput } from '../derive/policy.js';
import { resolvePolicy } from '../derive/policy.js';
import { foldTrace } from '../fold/fold-trace.js';
import * as K from '../model/attributes.js';
import type { Incident } from '../model/incident.js';
import type { DecodedScope, DecodedSpan } from '../otlp/otlp-json-spans.js';
import { spanViewOfDecoded } from '../otlp/otlp-json-spans.js';
import type { SanitizationOptions, Sanitizer } from '../sanitize/sanitizer.js';
import { createSanitizer } from '../sanitize/sanitizer.js';
import { createTally } from '../sanitize/scrubber.js';
import type { GatewayConfig } from './config.js';
import { GatewayConfigError } from './config.js';
import type { ForwardedSpan } from './forwarded-span.js';
import { forwardedSpan } from './forwarded-span.js';
import { ReleasedRuns } from './released-runs.js';
import { ResourceCache } from './resource-cache.js';
import type { KeptTrace, RevisableTraces } from './revisable-traces.js';

/** What the judge needs, set once for the gateway. */
export interface TraceJudgeOptions {
  readonly policy: Policy;
  readonly adapters?: readonly ConventionAdapter[];
  readonly sanitizer: Sanitizer;
  readonly resources: ResourceCache;
  /** Runs judged by earlier folds, for spans that arrive after their run was judged. */
  readonly released: ReleasedRuns;
  /**
   * Traces judged while a part could still come, kept to correct their
   * verdicts; without it a late part is forwarded with no correction.
   * @default none
   */
  readonly revisable?: RevisableTraces;
}

/** How traces are judged: the policy and sanitizer of the configuration, and what is remembered between passes. */
export function traceJudgeOptions(config: GatewayConfig, revisable: RevisableTraces): TraceJudgeOptions {
  try {
    const policy = resolvePolicy(config.policy as PolicyInput);
    const sanitizer = createSanitizer(config.sanitization as SanitizationOptions);
    return {
      policy,
      sanitizer,
      resources: new ResourceCache(sanitizer),
      released: new ReleasedRuns(config.hold.maxHoldMillis),
      revisable,
    };
  } catch (error) {
    // resolvePolicy and createSanitizer name the bad option; it is a configuration error like any other.
    throw new GatewayConfigError(`invalid gateway config at policy or sanitization: ${(error as Error).message}`);
  }
}

/** A corrected verdict: the run's new outcome and cause, as the revision span carries them. */
export interface Revision {
  readonly outcome: string;
  readonly cause?: string;
}

/** What the attempts of a run that did not make its answer used, as its span says (docs/attributes.md#lost-usage). */
export interface JudgedLoss {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Absent when no lost attempt reported a cost. */
  readonly costUsd?: number;
  /** The figures are a floor (`incident.lost.lower_bound`). */
  readonly lowerBound: boolean;
}

/** A run judged in a trace, or judged upstream: its verdict as its span carries it. */
export interface JudgedRun {
  readonly outcome: string;
  readonly cause?: string;
  readonly retrySafety?: string;
  /** Absent when every attempt made the run's answer (no `incident.lost.attempts`). */
  readonly lost?: JudgedLoss;
}

/** A judged trace. */
export interface JudgedTrace {
  /** The spans to forward, sanitized (in the `ReadableSpan` shape too). */
  readonly spans: ForwardedSpan[];
  /** Every run judged in the trace, or judged upstream: outcome, cause, retry safety and lost usage. */
  readonly outcomes: JudgedRun[];
  /** Redactions made, by kind. */
  readonly redactions: ReadonlyMap<string, number>;
  /** Spans that arrived under a run an earlier fold judged. */
  readonly lateParts: number;
  /** Verdicts corrected: one `incident.verdict_revision` span each among {@link spans}. */
  readonly revisions: readonly Revision[];
}

/** The scope revision spans are exported under. */
const GATEWAY_SCOPE: DecodedScope = { name: 'agent-incidents-gateway', attributes: {} };

/**
 * Judges the spans of one trace (any order, any batching). A run span that
 * arrives already judged (`incident.outcome`, by an upstream processor that
 * saw the run in process) keeps its verdict; every span is sanitized either
 * way. With `partsMayStillCome` (a refused sender may still bring spans of
 * it) no run of the trace reads `success`: see `TraceFoldOptions`.
 */
export function judgeTrace(
  received: readonly DecodedSpan[],
  options: TraceJudgeOptions,
  now: number,
  partsMayStillCome = false,
  keepUntil = now,
): JudgedTrace {
  const traceId = received[0]?.traceId;
  // A part of a trace judged early: folded with everything its runs already had, so they are judged again whole.
  const kept = traceId === undefined ? undefined : options.revisable?.take(traceId);
  const again = kept ? new Set(kept.runIds) : undefined;
  const fold = foldTrace((kept ? [...kept.spans, ...received] : received).map(spanViewOfDecoded), {
    partsMayStillCome,
    policy: options.policy,
    adapters: options.adapters,
    judgedRuns: again ? { has: (id) => options.released.runs.has(id) && !again.has(id) } : options.released.runs,
    judgedAsStandIns: again
      ? { has: (id) => options.released.standIns.has(id) && !again.has(id) }
      : options.released.standIns,
    nestedJudged: options.released.nested,
  });
  let lateParts = 0;
  for (const span of received)
    if (
      span.parentSpanId !== undefined &&
      (again?.has(span.parentSpanId) === true || options.released.runs.has(span.parentSpanId))
    )
      lateParts += 1;
  options.released.remember(fold.judgedRuns, fold.standIns, fold.orphanedNested, now);
  const outcomes: JudgedTrace['outcomes'] = [];
  const tally = createTally();
  const spans: ForwardedSpan[] = [];
  for (const decoded of received) {
    const span = forwardedSpan(decoded, options.resources.envelopeOf(decoded));
    const prejudged = typeof decoded.attributes[K.ATTR_INCIDENT_OUTCOME] === 'string';
    const incident = fold.runs.get(decoded.spanId);
    if (incident && !prejudged) writeRunVerdict(span, incident);
    const attempt = fold.attempts.get(decoded.spanId);
    if (attempt && decoded.attributes[K.ATTR_INCIDENT_ATTEMPT_NUMBER] === undefined)
      Object.assign(span.attributes, attemptVerdictAttributes(attempt));
    const cutAt = fold.cut.get(decoded.spanId);
    if (cutAt !== undefined) {
      span.attributes[K.ATTR_INCIDENT_TRUNCATED] = true;
      if (decoded.endTimeUnixNano === undefined) span.endAt(cutAt);
    }
    const outcome = span.attributes[K.ATTR_INCIDENT_OUTCOME];
    if ((incident || prejudged) && typeof outcome === 'string') outcomes.push(judgedRun(outcome, span.attributes));
    sanitize(span, options.sanitizer, tally);
    spans.push(span);
  }
  const revisions = kept ? revise(kept, fold.runs, options, now, spans, tally) : [];
  // Kept only when a run in it could get a correction: a trace with no run never has a verdict to revise.
  if (
    options.revisable &&
    keepUntil > now &&
    (partsMayStillCome || kept) &&
    traceId !== undefined &&
    (fold.judgedRuns.length > 0 || kept)
  ) {
    options.revisable.keep(traceId, keptAfter(kept, received, fold.runs, fold.judgedRuns), keepUntil);
  }
  return { spans, outcomes, redactions: tally.byKind, lateParts, revisions };
}

/**
 * Judges a kept trace for the last time, once no refused sender can bring a
 * part of it: with every span that came, and no part left to wait for. The
 * runs whose verdict differs from the one delivered get a revision span.
 */
export function judgeKeptTrace(kept: KeptTrace, options: TraceJudgeOptions, now: number): JudgedTrace {
  const again = new Set(kept.runIds);
  const fold = foldTrace(kept.spans.map(spanViewOfDecoded), {
    policy: options.policy,
    adapters: options.adapters,
    judgedRuns: { has: (id) => options.released.runs.has(id) && !again.has(id) },
    judgedAsStandIns: { has: (id) => options.released.standIns.has(id) && !again.has(id) },
    nestedJudged: options.released.nested,
  });
  const tally = createTally();
  const spans: ForwardedSpan[] = [];
  const revisions = revise(kept, fold.runs, options, now, spans, tally);
  return { spans, outcomes: [], redactions: tally.byKind, lateParts: 0, revisions };
}

/** What stays kept after a fold: every span so far and the verdicts now delivered. */
function keptAfter(
  kept: KeptTrace | undefined,
  received: readonly DecodedSpan[],
  runs: ReadonlyMap<string, Incident>,
  judgedRuns: readonly string[],
): KeptTrace {
  const verdicts = new Map<string, AttributeRecord>(kept?.verdicts);
  const prejudged = new Set<string>();
  for (const span of [...(kept?.spans ?? []), ...received])
    if (typeof span.attributes[K.ATTR_INCIDENT_OUTCOME] === 'string') prejudged.add(span.spanId);
  for (const [carrier, incident] of runs)
    if (!prejudged.has(carrier)) verdicts.set(carrier, incidentAttributes(incident));
  return {
    spans: kept ? [...kept.spans, ...received] : received,
    verdicts,
    runIds: [...new Set([...(kept?.runIds ?? []), ...judgedRuns])],
    revisions: kept?.revisions ?? new Map(),
  };
}

/**
 * Appends a revision span to `out` for each run of `kept` whose verdict in
 * `runs` differs from the one delivered, and records it in `kept` (the
 * verdict delivered is now the revised one).
 */
function revise(
  kept: KeptTrace,
  runs: ReadonlyMap<string, Incident>,
  options: TraceJudgeOptions,
  now: number,
  out: ForwardedSpan[],
  tally: ReturnType<typeof createTally>,
): Revision[] {
  const revisions: Revision[] = [];
  const { verdicts, revisions: numbers } = kept;
  for (const [carrierId, incident] of runs) {
    const delivered = verdicts.get(carrierId);
    if (!delivered) continue; // a carrier that arrived with this fold got its verdict written on it
    const verdict = incidentAttributes(incident);
    if (sameVerdict(delivered, verdict)) continue;
    const carrier = kept.spans.find((span) => span.spanId === carrierId);
    if (!carrier) continue;
    const number = (numbers.get(carrierId) ?? 0) + 1;
    numbers.set(carrierId, number);
    verdicts.set(carrierId, verdict);
    const span = revisionSpan(carrier, incident, verdict, number, now, options);
    sanitize(span, options.sanitizer, tally);
    out.push(span);
    revisions.push({ outcome: incident.outcome, cause: incident.cause });
  }
  return revisions;
}

/** True when two verdicts write the same keys with the same values. */
function sameVerdict(a: AttributeRecord, b: AttributeRecord): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => JSON.stringify(a[key]) === JSON.stringify(b[key]));
}

/**
 * The span that carries a corrected verdict: a child of the span that
 * carries the first one, linked to it, in the same trace and resource, under
 * the gateway's scope, at the time of the correction.
 */
function revisionSpan(
  carrier: DecodedSpan,
  incident: Incident,
  verdict: AttributeRecord,
  number: number,
  now: number,
  options: TraceJudgeOptions,
): ForwardedSpan {
  const at = BigInt(Math.round(now)) * 1_000_000n;
  const attributes: Record<string, string> = {};
  const decoded: DecodedSpan = {
    traceId: carrier.traceId,
    spanId: randomBytes(8).toString('hex'),
    parentSpanId: carrier.spanId,
    name: K.VERDICT_REVISION_SPAN,
    kind: 1,
    startTimeUnixNano: at,
    endTimeUnixNano: at,
    attributes,
    events: [],
    links: [{ traceId: carrier.traceId, spanId: carrier.spanId, attributes: {} }],
    flags: (carrier.flags ?? 1) & 0xff,
    statusCode: 0,
    scope: GATEWAY_SCOPE,
    resource: carrier.resource,
    resourceEnvelope: carrier.resourceEnvelope,
  };
  const span = forwardedSpan(decoded, options.resources.envelopeOf(decoded));
  Object.assign(span.attributes, verdict, {
    [K.ATTR_INCIDENT_REVISION_OF]: carrier.spanId,
    [K.ATTR_INCIDENT_REVISION_NUMBER]: number,
  });
  const change = runSpanStatus(incident, { code: span.status.code, errorType: span.attributes[K.ATTR_ERROR_TYPE] });
  if (change.status) span.status = change.status;
  if (change.errorType !== undefined) span.attributes[K.ATTR_ERROR_TYPE] = change.errorType;
  return span;
}

/** The verdict's keys, status and `error.type`, as the SDK processor writes them. */
function writeRunVerdict(span: ForwardedSpan, incident: Parameters<typeof incidentAttributes>[0]): void {
  Object.assign(span.attributes, incidentAttributes(incident));
  // An `error.type` the span came with is its instrumentation's: kept as it is.
  const change = runSpanStatus(incident, { code: span.status.code, errorType: span.attributes[K.ATTR_ERROR_TYPE] });
  if (change.status) span.status = change.status;
  if (change.errorType !== undefined) span.attributes[K.ATTR_ERROR_TYPE] = change.errorType;
}

/** A run's verdict as its span carries it, written here or upstream (read before sanitization). */
function judgedRun(outcome: string, attributes: ForwardedSpan['attributes']): JudgedRun {
  const text = (key: string): string | undefined => {
    const value = attributes[key];
    return typeof value === 'string' ? value : undefined;
  };
  const run = { outcome, cause: text(K.ATTR_INCIDENT_CAUSE), retrySafety: text(K.ATTR_INCIDENT_RETRY_SAFETY) };
  if (count(attributes[K.ATTR_INCIDENT_LOST_ATTEMPTS]) === undefined) return run;
  const costUsd = count(attributes[K.ATTR_INCIDENT_LOST_COST_USD]);
  const lost: JudgedLoss = {
    inputTokens: count(attributes[K.ATTR_INCIDENT_LOST_INPUT_TOKENS]) ?? 0,
    outputTokens: count(attributes[K.ATTR_INCIDENT_LOST_OUTPUT_TOKENS]) ?? 0,
    ...(costUsd === undefined ? {} : { costUsd }),
    // A figure an upstream writer left out is counted as 0, so the sum is a floor.
    lowerBound:
      attributes[K.ATTR_INCIDENT_LOST_LOWER_BOUND] !== false ||
      count(attributes[K.ATTR_INCIDENT_LOST_INPUT_TOKENS]) === undefined ||
      count(attributes[K.ATTR_INCIDENT_LOST_OUTPUT_TOKENS]) === undefined,
  };
  return { ...run, lost };
}

/** A finite non-negative number under any wire type (an int, a bigint past 2^53, a double kept as a `Number`). */
function count(value: unknown): number | undefined {
  const n = typeof value === 'bigint' ? Number(value) : value instanceof Number ? value.valueOf() : value;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** Sanitizes a span like the processor does, judged or not, and counts what changed on it. */
function sanitize(span: ForwardedSpan, sanitizer: Sanitizer, total: ReturnType<typeof createTally>): void {
  if (sanitizer.mode === 'off') return;
  const tally = createTally();
  span.sanitize(sanitizer, tally);
  if (tally.changed > 0) span.attributes[K.ATTR_INCIDENT_REDACTIONS] = tally.changed;
  for (const [kind, n] of tally.byKind) total.byKind.set(kind, (total.byKind.get(kind) ?? 0) + n);
  total.changed += tally.changed;
}

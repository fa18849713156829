/**
 * Judges one received trace: folds its decoded spans with the fold core
 * (src/fold/), writes each verdict on the span that carries it, marks the
 * spans cut off at their run's end, sanitizes every span, and hands back
 * spans ready to encode. No tracer provider, no replay: the spans go out with
 * the ids, times, resource and scope they came with.
 */
import type { ConventionAdapter } from '../conventions/adapter.js';
import { attemptVerdictAttributes, incidentAttributes, runSpanStatus } from '../derive/incident-attributes.js';
import type { Policy } from '../derive/policy.js';
import { foldTrace } from '../fold/fold-trace.js';
import * as K from '../model/attributes.js';
import type { DecodedSpan } from '../otlp/otlp-json-spans.js';
import { spanViewOfDecoded } from '../otlp/otlp-json-spans.js';
import type { Sanitizer } from '../sanitize/sanitizer.js';
import { createTally } from '../sanitize/scrubber.js';
import type { ForwardedSpan } from './forwarded-span.js';
import { forwardedSpan } from './forwarded-span.js';
import type { ReleasedRuns } from './released-runs.js';
import type { ResourceCache } from './resource-cache.js';

/** What the judge needs, set once for the gateway. */
export interface TraceJudgeOptions {
  readonly policy: Policy;
  readonly adapters?: readonly ConventionAdapter[];
  readonly sanitizer: Sanitizer;
  readonly resources: ResourceCache;
  /** Runs judged by earlier folds, for spans that arrive after their run was judged. */
  readonly released: ReleasedRuns;
}

/** A judged trace. */
export interface JudgedTrace {
  /** The spans to forward, sanitized (in the `ReadableSpan` shape too). */
  readonly spans: ForwardedSpan[];
  /** The outcome (and cause) of every run judged in the trace, or judged upstream. */
  readonly outcomes: { readonly outcome: string; readonly cause?: string }[];
  /** Redactions made, by kind. */
  readonly redactions: ReadonlyMap<string, number>;
}

/**
 * Judges the spans of one trace (any order, any batching). A run span that
 * arrives already judged (`incident.outcome`, by an upstream processor that
 * saw the run in process) keeps its verdict; every span is sanitized either
 * way. With `partsMayStillCome` (a refused sender may still bring spans of
 * it) no run of the trace reads `success`: see `TraceFoldOptions`.
 */
export function judgeTrace(received: readonly DecodedSpan[], options: TraceJudgeOptions, now: number, partsMayStillCome = false): JudgedTrace {
  const fold = foldTrace(received.map(spanViewOfDecoded), {
    partsMayStillCome,
    policy: options.policy,
    adapters: options.adapters,
    judgedRuns: options.released.runs,
    judgedAsStandIns: options.released.standIns,
    nestedJudged: options.released.nested,
  });
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
    if (attempt && decoded.attributes[K.ATTR_INCIDENT_ATTEMPT_NUMBER] === undefined) Object.assign(span.attributes, attemptVerdictAttributes(attempt));
    const cutAt = fold.cut.get(decoded.spanId);
    if (cutAt !== undefined) {
      span.attributes[K.ATTR_INCIDENT_TRUNCATED] = true;
      if (decoded.endTimeUnixNano === undefined) span.endAt(cutAt);
    }
    const outcome = span.attributes[K.ATTR_INCIDENT_OUTCOME];
    if ((incident || prejudged) && typeof outcome === 'string') {
      const cause = span.attributes[K.ATTR_INCIDENT_CAUSE];
      outcomes.push({ outcome, cause: typeof cause === 'string' ? cause : undefined });
    }
    sanitize(span, options.sanitizer, tally);
    spans.push(span);
  }
  return { spans, outcomes, redactions: tally.byKind };
}

/** The verdict's keys, status and `error.type`, as the SDK processor writes them. */
function writeRunVerdict(span: ForwardedSpan, incident: Parameters<typeof incidentAttributes>[0]): void {
  Object.assign(span.attributes, incidentAttributes(incident));
  const change = runSpanStatus(incident, span.status);
  if (change.status) span.status = change.status;
  if (change.errorType === null) delete span.attributes[K.ATTR_ERROR_TYPE];
  else if (change.errorType !== undefined) span.attributes[K.ATTR_ERROR_TYPE] = change.errorType;
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

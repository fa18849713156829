/**
 * Turns verdicts into span attributes under the contract keys. Pure: the SDK
 * processor and the gateway write exactly these records.
 */
import * as K from '../model/attributes.js';
import type { AttemptVerdict, Incident, LostUsage } from '../model/incident.js';

/** A flat attribute record, as OpenTelemetry spans accept it. */
export type AttributeRecord = Record<string, string | number | boolean | string[]>;

/** The run-span attributes of an incident; keys that do not apply are absent. */
export function incidentAttributes(incident: Incident): AttributeRecord {
  const attributes: AttributeRecord = {
    [K.ATTR_INCIDENT_OUTCOME]: incident.outcome,
    [K.ATTR_INCIDENT_SIDE_EFFECTS]: incident.sideEffects,
    [K.ATTR_INCIDENT_FACTS_COMPLETE]: incident.factsComplete,
    [K.ATTR_INCIDENT_ATTEMPTS]: incident.attempts,
    [K.ATTR_INCIDENT_RECOVERED_ATTEMPTS]: incident.recoveredAttempts,
    [K.ATTR_INCIDENT_SCHEMA_VERSION]: K.SCHEMA_VERSION,
  };
  if (incident.missingFacts.length > 0) attributes[K.ATTR_INCIDENT_MISSING_FACTS] = [...incident.missingFacts];
  if (incident.recovery) {
    attributes[K.ATTR_INCIDENT_RECOVERY_ACTION] = incident.recovery.action;
    attributes[K.ATTR_INCIDENT_RECOVERY_REASON] = incident.recovery.reason;
    attributes[K.ATTR_INCIDENT_RECOVERY_STRATEGY] = incident.recovery.strategy;
  }
  if (incident.lost) writeLost(attributes, incident.lost, RUN_LOST_KEYS);
  if (incident.outcome === 'success') return attributes;
  if (incident.cause) attributes[K.ATTR_INCIDENT_CAUSE] = incident.cause;
  if (incident.causeDetail) attributes[K.ATTR_INCIDENT_CAUSE_DETAIL] = incident.causeDetail;
  if (incident.phase) attributes[K.ATTR_INCIDENT_PHASE] = incident.phase;
  if (incident.retrySafety) attributes[K.ATTR_INCIDENT_RETRY_SAFETY] = incident.retrySafety;
  if (incident.retrySafetyReason) attributes[K.ATTR_INCIDENT_RETRY_SAFETY_REASON] = incident.retrySafetyReason;
  if (incident.retryable !== undefined) attributes[K.ATTR_INCIDENT_RETRYABLE] = incident.retryable;
  if (incident.errorCode) attributes[K.ATTR_INCIDENT_ERROR_CODE] = incident.errorCode;
  return attributes;
}

/** The attempt-span attributes of a failed attempt's own verdict. */
export function attemptVerdictAttributes(verdict: AttemptVerdict): AttributeRecord {
  const attributes: AttributeRecord = {
    [K.ATTR_INCIDENT_ATTEMPT_NUMBER]: verdict.number,
    [K.ATTR_INCIDENT_ATTEMPT_CAUSE]: verdict.cause,
    [K.ATTR_INCIDENT_ATTEMPT_PHASE]: verdict.phase,
    [K.ATTR_INCIDENT_ATTEMPT_RETRY_SAFETY]: verdict.retrySafety,
    [K.ATTR_INCIDENT_ATTEMPT_RETRY_SAFETY_REASON]: verdict.retrySafetyReason,
  };
  if (verdict.causeDetail) attributes[K.ATTR_INCIDENT_ATTEMPT_CAUSE_DETAIL] = verdict.causeDetail;
  if (verdict.retryable !== undefined) attributes[K.ATTR_INCIDENT_ATTEMPT_RETRYABLE] = verdict.retryable;
  if (verdict.errorCode) attributes[K.ATTR_INCIDENT_ATTEMPT_ERROR_CODE] = verdict.errorCode;
  if (verdict.lost) writeLost(attributes, verdict.lost, ATTEMPT_LOST_KEYS);
  return attributes;
}

/** The keys of each lost-usage figure, on a run span or on a failed attempt's span. */
interface LostKeys {
  readonly attempts?: string;
  readonly inputTokens: string;
  readonly outputTokens: string;
  readonly reasoningTokens: string;
  readonly cachedInputTokens: string;
  readonly costUsd: string;
  readonly lowerBound: string;
}

const RUN_LOST_KEYS: LostKeys = {
  attempts: K.ATTR_INCIDENT_LOST_ATTEMPTS,
  inputTokens: K.ATTR_INCIDENT_LOST_INPUT_TOKENS,
  outputTokens: K.ATTR_INCIDENT_LOST_OUTPUT_TOKENS,
  reasoningTokens: K.ATTR_INCIDENT_LOST_REASONING_TOKENS,
  cachedInputTokens: K.ATTR_INCIDENT_LOST_CACHED_INPUT_TOKENS,
  costUsd: K.ATTR_INCIDENT_LOST_COST_USD,
  lowerBound: K.ATTR_INCIDENT_LOST_LOWER_BOUND,
};

const ATTEMPT_LOST_KEYS: LostKeys = {
  inputTokens: K.ATTR_INCIDENT_ATTEMPT_LOST_INPUT_TOKENS,
  outputTokens: K.ATTR_INCIDENT_ATTEMPT_LOST_OUTPUT_TOKENS,
  reasoningTokens: K.ATTR_INCIDENT_ATTEMPT_LOST_REASONING_TOKENS,
  cachedInputTokens: K.ATTR_INCIDENT_ATTEMPT_LOST_CACHED_INPUT_TOKENS,
  costUsd: K.ATTR_INCIDENT_ATTEMPT_LOST_COST_USD,
  lowerBound: K.ATTR_INCIDENT_ATTEMPT_LOST_LOWER_BOUND,
};

/** Writes `lost` under `keys`; a figure no attempt reported is left out. */
function writeLost(attributes: AttributeRecord, lost: LostUsage, keys: LostKeys): void {
  if (keys.attempts) attributes[keys.attempts] = lost.attempts;
  attributes[keys.inputTokens] = lost.inputTokens;
  attributes[keys.outputTokens] = lost.outputTokens;
  if (lost.reasoningTokens !== undefined) attributes[keys.reasoningTokens] = lost.reasoningTokens;
  if (lost.cachedInputTokens !== undefined) attributes[keys.cachedInputTokens] = lost.cachedInputTokens;
  if (lost.costUsd !== undefined) attributes[keys.costUsd] = lost.costUsd;
  attributes[keys.lowerBound] = lost.lowerBound;
}

/** What a run's verdict does to its span's status and `error.type` (docs/attributes.md#span-status-and-errortype). */
export interface RunSpanStatus {
  /** The status to set, when it changes. `code` uses the OTLP numbering: 0 unset, 1 ok, 2 error. */
  readonly status?: { readonly code: number; readonly message?: string };
  /** `error.type` to set, only ever on a span that has none; undefined leaves the span's as it is. */
  readonly errorType?: string;
}

/**
 * Failed and incomplete runs get ERROR (an existing ERROR keeps its message)
 * and, when the span has no `error.type`, `error.type` = the cause; a
 * cancelled run never counts as an error. An `error.type` already on the span
 * is its instrumentation's (the provider's or the client's error code, as
 * the GenAI conventions define it): it is never replaced nor removed.
 * `current.errorType`: the span's `error.type` now, if any.
 */
export function runSpanStatus(
  incident: Incident,
  current: { readonly code: number; readonly errorType?: unknown },
): RunSpanStatus {
  if (incident.outcome === 'failed' || incident.outcome === 'incomplete') {
    const cause = incident.cause ?? 'unknown_interruption';
    const message = `${cause}${incident.causeDetail ? ` (${incident.causeDetail})` : ''}`;
    const status = current.code === 2 ? undefined : { code: 2, message };
    return current.errorType === undefined || current.errorType === null ? { status, errorType: cause } : { status };
  }
  // A user stop is a choice, not an error: it must not inflate error rates.
  if (incident.outcome === 'cancelled') return current.code === 2 ? { status: { code: 0 } } : {};
  return {};
}

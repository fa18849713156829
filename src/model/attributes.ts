/**
 * Attribute keys agent-incidents writes. These are the public contract users
 * query and alert on; docs/attributes.md documents each one and a test keeps
 * that table and these constants in step.
 */

/**
 * Version of the attribute contract, written as `incident.schema_version`.
 * Bumped whenever a key or an enum value changes (see CHANGELOG.md).
 */
export const SCHEMA_VERSION = 8;

// Run-level keys, written on the run span (`invoke_agent`).
/** `success` | `recovered` | `failed` | `cancelled` | `incomplete`; on every run span. */
export const ATTR_INCIDENT_OUTCOME = 'incident.outcome';
/** The cause, only when the outcome is not `success`. */
export const ATTR_INCIDENT_CAUSE = 'incident.cause';
/** The closed detail of the cause. */
export const ATTR_INCIDENT_CAUSE_DETAIL = 'incident.cause.detail';
/** Where the terminal attempt was when it ended. */
export const ATTR_INCIDENT_PHASE = 'incident.phase';
/** What a runtime may do next. */
export const ATTR_INCIDENT_RETRY_SAFETY = 'incident.retry_safety';
/** Why that retry safety was chosen. */
export const ATTR_INCIDENT_RETRY_SAFETY_REASON = 'incident.retry_safety.reason';
/** Technical retryability of the terminal error alone (boolean). */
export const ATTR_INCIDENT_RETRYABLE = 'incident.retryable';
/** Worst side effect the run may have caused. */
export const ATTR_INCIDENT_SIDE_EFFECTS = 'incident.side_effects';
/** False when a fact the verdict needs is missing (boolean). */
export const ATTR_INCIDENT_FACTS_COMPLETE = 'incident.facts_complete';
/** Closed markers of the missing facts (string[]). */
export const ATTR_INCIDENT_MISSING_FACTS = 'incident.missing_facts';
/** Sanitized low-cardinality error code such as `UND_ERR_SOCKET` or `http_503`. */
export const ATTR_INCIDENT_ERROR_CODE = 'incident.error.code';
/** Provider attempts in the run (int). */
export const ATTR_INCIDENT_ATTEMPTS = 'incident.attempts';
/** Attempts that failed and were followed by a retry (int). */
export const ATTR_INCIDENT_RECOVERED_ATTEMPTS = 'incident.recovered_attempts';
/** What the runtime's recovery strategy did last: `retry`, `resume`, `reassign`, … (RECOVERY_ACTIONS). */
export const ATTR_INCIDENT_RECOVERY_ACTION = 'incident.recovery.action';
/** Why the strategy chose that action (RECOVERY_REASONS). */
export const ATTR_INCIDENT_RECOVERY_REASON = 'incident.recovery.reason';
/** Name of the strategy that acted; bounded by the strategies a runtime registers. */
export const ATTR_INCIDENT_RECOVERY_STRATEGY = 'incident.recovery.strategy';
/** Attempts of the run that did not make its answer (int; absent when none). */
export const ATTR_INCIDENT_LOST_ATTEMPTS = 'incident.lost.attempts';
/** Input tokens those attempts reported (int). */
export const ATTR_INCIDENT_LOST_INPUT_TOKENS = 'incident.lost.input_tokens';
/** Output tokens those attempts reported (int). */
export const ATTR_INCIDENT_LOST_OUTPUT_TOKENS = 'incident.lost.output_tokens';
/** Reasoning tokens those attempts reported (int; absent when none reported them). */
export const ATTR_INCIDENT_LOST_REASONING_TOKENS = 'incident.lost.reasoning_tokens';
/** Cached input tokens those attempts reported (int; absent when none reported them). */
export const ATTR_INCIDENT_LOST_CACHED_INPUT_TOKENS = 'incident.lost.cached_input_tokens';
/** Cost those attempts reported, in US dollars (double; absent when none reported one). */
export const ATTR_INCIDENT_LOST_COST_USD = 'incident.lost.cost_usd';
/** True when the `incident.lost.*` figures are a lower bound (boolean). */
export const ATTR_INCIDENT_LOST_LOWER_BOUND = 'incident.lost.lower_bound';
/** `SCHEMA_VERSION` (int). */
export const ATTR_INCIDENT_SCHEMA_VERSION = 'incident.schema_version';

// Attempt-level keys, written on failed attempt spans. They never collide with
// the run keys, so counting `incident.cause` counts runs, not attempts.
/** 1-based number of the attempt within its run (int). */
export const ATTR_INCIDENT_ATTEMPT_NUMBER = 'incident.attempt.number';
/** Cause of this attempt's failure. */
export const ATTR_INCIDENT_ATTEMPT_CAUSE = 'incident.attempt.cause';
/** Detail of this attempt's failure. */
export const ATTR_INCIDENT_ATTEMPT_CAUSE_DETAIL = 'incident.attempt.cause.detail';
/** Phase this attempt was in when it failed. */
export const ATTR_INCIDENT_ATTEMPT_PHASE = 'incident.attempt.phase';
/** Retry safety judged from this attempt alone. */
export const ATTR_INCIDENT_ATTEMPT_RETRY_SAFETY = 'incident.attempt.retry_safety';
/** Reason for the attempt-level retry safety. */
export const ATTR_INCIDENT_ATTEMPT_RETRY_SAFETY_REASON = 'incident.attempt.retry_safety.reason';
/** Technical retryability of this attempt's error (boolean). */
export const ATTR_INCIDENT_ATTEMPT_RETRYABLE = 'incident.attempt.retryable';
/** Sanitized error code of this attempt's failure. */
export const ATTR_INCIDENT_ATTEMPT_ERROR_CODE = 'incident.attempt.error.code';
/** Input tokens the failed attempt reported (int). */
export const ATTR_INCIDENT_ATTEMPT_LOST_INPUT_TOKENS = 'incident.attempt.lost.input_tokens';
/** Output tokens the failed attempt reported (int). */
export const ATTR_INCIDENT_ATTEMPT_LOST_OUTPUT_TOKENS = 'incident.attempt.lost.output_tokens';
/** Reasoning tokens the failed attempt reported (int; absent when it reported none). */
export const ATTR_INCIDENT_ATTEMPT_LOST_REASONING_TOKENS = 'incident.attempt.lost.reasoning_tokens';
/** Cached input tokens the failed attempt reported (int; absent when it reported none). */
export const ATTR_INCIDENT_ATTEMPT_LOST_CACHED_INPUT_TOKENS = 'incident.attempt.lost.cached_input_tokens';
/** Cost the failed attempt reported, in US dollars (double; absent when it reported none). */
export const ATTR_INCIDENT_ATTEMPT_LOST_COST_USD = 'incident.attempt.lost.cost_usd';
/** True when the failed attempt's `incident.attempt.lost.*` figures are a lower bound (boolean). */
export const ATTR_INCIDENT_ATTEMPT_LOST_LOWER_BOUND = 'incident.attempt.lost.lower_bound';

/** True on a span the processor ended because its run ended first (boolean). */
export const ATTR_INCIDENT_TRUNCATED = 'incident.truncated';
/** How many values sanitization removed or changed on this span (int; absent when none). */
export const ATTR_INCIDENT_REDACTIONS = 'incident.redactions';

/** Name of the span the gateway sends with a corrected verdict (docs/attributes.md, "Verdict revisions"). */
export const VERDICT_REVISION_SPAN = 'incident.verdict_revision';
/** On a verdict-revision span: the span id of the span that carries the run's first verdict (string). */
export const ATTR_INCIDENT_REVISION_OF = 'incident.revision.of';
/** On a verdict-revision span: 1 for a run's first correction, 2 for the next (int). */
export const ATTR_INCIDENT_REVISION_NUMBER = 'incident.revision.number';

/**
 * Stable `error.type` key: the instrumentation's (docs/attributes.md#span-status-and-errortype).
 * Set to the cause on failed and incomplete runs only when the span has none; never replaced nor removed.
 */
export const ATTR_ERROR_TYPE = 'error.type';

/** The run-level keys, in the order docs/attributes.md lists them. */
export const RUN_ATTRIBUTE_KEYS = [
  ATTR_INCIDENT_OUTCOME,
  ATTR_INCIDENT_CAUSE,
  ATTR_INCIDENT_CAUSE_DETAIL,
  ATTR_INCIDENT_PHASE,
  ATTR_INCIDENT_RETRY_SAFETY,
  ATTR_INCIDENT_RETRY_SAFETY_REASON,
  ATTR_INCIDENT_RETRYABLE,
  ATTR_INCIDENT_SIDE_EFFECTS,
  ATTR_INCIDENT_FACTS_COMPLETE,
  ATTR_INCIDENT_MISSING_FACTS,
  ATTR_INCIDENT_ERROR_CODE,
  ATTR_INCIDENT_ATTEMPTS,
  ATTR_INCIDENT_RECOVERED_ATTEMPTS,
  ATTR_INCIDENT_RECOVERY_ACTION,
  ATTR_INCIDENT_RECOVERY_REASON,
  ATTR_INCIDENT_RECOVERY_STRATEGY,
  ATTR_INCIDENT_LOST_ATTEMPTS,
  ATTR_INCIDENT_LOST_INPUT_TOKENS,
  ATTR_INCIDENT_LOST_OUTPUT_TOKENS,
  ATTR_INCIDENT_LOST_REASONING_TOKENS,
  ATTR_INCIDENT_LOST_CACHED_INPUT_TOKENS,
  ATTR_INCIDENT_LOST_COST_USD,
  ATTR_INCIDENT_LOST_LOWER_BOUND,
  ATTR_INCIDENT_SCHEMA_VERSION,
] as const;

/** The attempt-level and span-level keys, in the order docs/attributes.md lists them. */
export const ATTEMPT_ATTRIBUTE_KEYS = [
  ATTR_INCIDENT_ATTEMPT_NUMBER,
  ATTR_INCIDENT_ATTEMPT_CAUSE,
  ATTR_INCIDENT_ATTEMPT_CAUSE_DETAIL,
  ATTR_INCIDENT_ATTEMPT_PHASE,
  ATTR_INCIDENT_ATTEMPT_RETRY_SAFETY,
  ATTR_INCIDENT_ATTEMPT_RETRY_SAFETY_REASON,
  ATTR_INCIDENT_ATTEMPT_RETRYABLE,
  ATTR_INCIDENT_ATTEMPT_ERROR_CODE,
  ATTR_INCIDENT_ATTEMPT_LOST_INPUT_TOKENS,
  ATTR_INCIDENT_ATTEMPT_LOST_OUTPUT_TOKENS,
  ATTR_INCIDENT_ATTEMPT_LOST_REASONING_TOKENS,
  ATTR_INCIDENT_ATTEMPT_LOST_CACHED_INPUT_TOKENS,
  ATTR_INCIDENT_ATTEMPT_LOST_COST_USD,
  ATTR_INCIDENT_ATTEMPT_LOST_LOWER_BOUND,
  ATTR_INCIDENT_TRUNCATED,
  ATTR_INCIDENT_REDACTIONS,
] as const;

/** The keys only a verdict-revision span carries, besides the run-span keys of its new verdict, in the order docs/attributes.md lists them. */
export const REVISION_ATTRIBUTE_KEYS = [ATTR_INCIDENT_REVISION_OF, ATTR_INCIDENT_REVISION_NUMBER] as const;

/** Name of the counter of finished runs. */
export const METRIC_AGENT_RUNS = 'agent.runs';
/** Name of the counter of tokens spent on attempts that did not make their run's answer (docs/attributes.md#metrics-of-lost-usage). */
export const METRIC_TOKENS_LOST = 'agent_incidents.tokens.lost';
/** Name of the counter of US dollars spent on attempts that did not make their run's answer. */
export const METRIC_COST_LOST = 'agent_incidents.cost.lost';
/** Name of the counter of runs with lost usage, by whether their figures are a floor (`incident.lost.lower_bound`). */
export const METRIC_LOST_RUNS = 'agent_incidents.lost.runs';
/** Attribute of `METRIC_TOKENS_LOST`: `input` or `output`, as the GenAI metric `gen_ai.client.token.usage` names it. */
export const ATTR_GEN_AI_TOKEN_TYPE = 'gen_ai.token.type';
/** Name of the counter of redactions, by kind. */
export const METRIC_REDACTIONS = 'agent_incidents.redactions';
/** Attribute of `METRIC_REDACTIONS`: the redaction kind. */
export const ATTR_REDACTION_KIND = 'agent_incidents.redaction.kind';

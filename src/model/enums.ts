/**
 * The closed value sets of the incident contract (docs/attributes.md). Every
 * value written to a span or a metric comes from one of these lists, so
 * dashboards and alerts can rely on a bounded set. Changing a list is a
 * contract change: bump `SCHEMA_VERSION` and write a CHANGELOG entry.
 */
import { CAUSE_TABLE, causesOf, detailsOf } from './cause-table.js';

/** How a run ended. Written on every run span as `incident.outcome`. */
export const OUTCOMES = ['success', 'recovered', 'failed', 'cancelled', 'incomplete'] as const;
/** One of {@link OUTCOMES}. */
export type Outcome = (typeof OUTCOMES)[number];

/**
 * What ended the run (or, for `recovered`, the last recovered attempt), in the
 * order of the cause table (cause-table.ts), which describes each one.
 */
export const CAUSES = causesOf(CAUSE_TABLE);
/** One of {@link CAUSES}. */
export type Cause = (typeof CAUSES)[number];

/** The closed detail values of each cause, written as `incident.cause.detail` (from the cause table). */
export const CAUSE_DETAILS = detailsOf(CAUSE_TABLE);

/** The detail values allowed for cause `C`. */
export type CauseDetail<C extends Cause = Cause> = (typeof CAUSE_DETAILS)[C][number];
/** Transport-disconnect details. */
export type TransportDetail = CauseDetail<'provider_transport_disconnect'>;
/** Provider API error kinds. */
export type ApiErrorKind = CauseDetail<'provider_api_error'>;
/** Watchdog phases. */
export type WatchdogPhase = CauseDetail<'watchdog_timeout'>;
/** Where a user cancel came from. */
export type CancelOrigin = CauseDetail<'user_cancel'>;
/** Kinds of local lifecycle close. */
export type LifecycleKind = CauseDetail<'local_lifecycle_close'>;
/** Tool failure kinds. */
export type ToolFailureKind = CauseDetail<'tool_execution_failure'>;
/** Why an agent process ended. */
export type ProcessCloseReason = CauseDetail<'process_exit'>;

/** Where the terminal attempt was when it ended (`incident.phase`). */
export const PHASES = [
  'setup',
  'before_first_provider_progress',
  'reasoning_generation',
  'text_generation',
  'tool_input_generation',
  'tool_call_materialized',
  'tool_execution',
  'after_tool_result',
  'finalizing',
  'unknown',
] as const;
/** One of {@link PHASES}. */
export type Phase = (typeof PHASES)[number];

/** What a runtime may do next (`incident.retry_safety`). */
export const RETRY_SAFETIES = [
  'auto_retry',
  'offer_continue',
  'ask_user_before_retry',
  'do_not_retry',
  'unknown',
] as const;
/** One of {@link RETRY_SAFETIES}. */
export type RetrySafety = (typeof RETRY_SAFETIES)[number];

/** Why the retry safety was chosen (`incident.retry_safety.reason`). */
export const RETRY_SAFETY_REASONS = [
  'no_visible_output_or_tool_execution',
  'reasoning_only_without_final_text',
  'visible_output_without_tool_execution',
  'partial_tool_input_without_execution',
  'tool_call_materialized_without_execution',
  'tool_execution_started',
  'unsafe_side_effect_started',
  'side_effect_facts_incomplete',
  'user_cancel',
  'local_lifecycle_close',
  'not_retryable_error',
  'retry_budget_exhausted',
  'unknown',
] as const;
/** One of {@link RETRY_SAFETY_REASONS}. */
export type RetrySafetyReason = (typeof RETRY_SAFETY_REASONS)[number];

/** Side-effect class of a tool, as the runtime declares it. */
export const TOOL_SIDE_EFFECTS = ['read_only', 'unsafe', 'unknown'] as const;
/** One of {@link TOOL_SIDE_EFFECTS}. */
export type ToolSideEffects = (typeof TOOL_SIDE_EFFECTS)[number];

/** Worst side effect a run may have caused (`incident.side_effects`). */
export const SIDE_EFFECTS = ['none', 'read_only', 'unsafe', 'unknown'] as const;
/** One of {@link SIDE_EFFECTS}. */
export type SideEffects = (typeof SIDE_EFFECTS)[number];

/** Markers of facts the verdict needed but did not have (`incident.missing_facts`). */
export const MISSING_FACTS = [
  'side_effect_boundary_missing',
  'tool_execution_start_missing',
  'provider_progress_missing',
  'open_child_spans',
  'run_never_ended',
  'evidence_truncated',
  'terminal_event_missing',
] as const;
/** One of {@link MISSING_FACTS}. */
export type MissingFact = (typeof MISSING_FACTS)[number];

/**
 * What a recovery strategy did about a run (`incident.recovery.action`):
 * `retry` the request, `resume` from a checkpoint, `reassign` the task, leave
 * it `fail`ed for good, hand the choice to the user (`offer_continue`,
 * `ask_user`), `stop` (nothing may be retried), or `none` (nothing failed).
 */
export const RECOVERY_ACTIONS = [
  'retry',
  'resume',
  'reassign',
  'fail',
  'offer_continue',
  'ask_user',
  'stop',
  'none',
] as const;
/** One of {@link RECOVERY_ACTIONS}. */
export type RecoveryActionKind = (typeof RECOVERY_ACTIONS)[number];

/** Why a recovery strategy chose its action (`incident.recovery.reason`). */
export const RECOVERY_REASONS = [
  'auto_retry_allowed',
  'not_auto_retryable',
  'retry_budget_exhausted',
  'retry_after_too_long',
  'user_cancel',
  'local_lifecycle_close',
  'reassignable',
  'retries_exhausted',
  'reassign_disabled',
  'checkpoint_available',
  'no_checkpoint',
  'resume_attempts_exhausted',
  'side_effects_unconfirmed',
  'not_failed',
  'unknown',
] as const;
/** One of {@link RECOVERY_REASONS}. */
export type RecoveryReason = (typeof RECOVERY_REASONS)[number];

/** Returns true when `value` is one of `list`; a total type guard for untrusted input. */
export function isOneOf<T extends string>(list: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (list as readonly string[]).includes(value);
}

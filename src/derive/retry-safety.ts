/**
 * The retry-safety rules of docs/attributes.md#retry-safety-reasons, first
 * match wins. Pure: the same inputs
 * give the same answer in the SDK processor, the gateway and the runtime.
 */
import type { Cause, RetrySafety, RetrySafetyReason } from '../model/enums.js';
import type { AutoRetry } from '../model/cause-table.js';
import { CAUSE_TABLE } from '../model/cause-table.js';
import type { AttemptSummary } from './attempt-summary.js';
import type { Policy } from './policy.js';

/** Everything the rules read. */
export interface RetrySafetyInput {
  readonly cause: Cause;
  /** Technical retryability of the terminal error; undefined when unknown. */
  readonly retryable?: boolean;
  /** Facts of the terminal attempt; undefined when the run had no attempt. */
  readonly attempt?: AttemptSummary;
  /** A user cancel was seen anywhere in the run. */
  readonly userCancelSeen: boolean;
  /** A lifecycle close was seen anywhere in the run. */
  readonly lifecycleCloseSeen: boolean;
  /** Automatic retries the run used before the terminal attempt. */
  readonly retriesUsed: number;
  readonly policy: Policy;
}

/** A retry-safety verdict and its reason. */
export interface RetrySafetyVerdict {
  readonly retrySafety: RetrySafety;
  readonly reason: RetrySafetyReason;
}

function verdict(retrySafety: RetrySafety, reason: RetrySafetyReason): RetrySafetyVerdict {
  return { retrySafety, reason };
}

const AUTO_RETRY: ReadonlyMap<string, AutoRetry> = new Map(CAUSE_TABLE.map((row) => [row.cause, row.autoRetry]));

/** Causes that a runtime may retry automatically when nothing else forbids it (the cause table's `autoRetry`). */
function autoRetryable(cause: Cause, retryable: boolean | undefined): boolean {
  // deriveRetrySafety is exported: a cause outside the type (from JavaScript)
  // has no row and is never retried automatically (fail closed), as before.
  const rule = AUTO_RETRY.get(cause) ?? 'never';
  if (rule === 'unless_not_retryable') return retryable !== false;
  if (rule === 'if_retryable') return retryable === true;
  return false;
}

/**
 * Whether the attempt's side-effect facts are too incomplete to retry
 * (the `side_effect_facts_incomplete` rule). Before the first provider
 * progress no local tool can have run, so
 * only a provider-executed or external boundary (or no boundary, fail closed)
 * counts; after progress any unclassified tool does.
 */
function sideEffectFactsIncomplete(attempt: AttemptSummary, policy: Policy): boolean {
  const boundary = attempt.boundary;
  if (!boundary) return policy.missingBoundary === 'fail_closed';
  const remote = boundary.external || boundary.tools.some((t) => t.providerExecuted);
  if (!attempt.progress) return remote;
  return remote || boundary.tools.some((t) => t.sideEffects === 'unknown');
}

/** Applies the precedence of docs/attributes.md#retry-safety-reasons. */
export function deriveRetrySafety(input: RetrySafetyInput): RetrySafetyVerdict {
  const { cause, retryable, attempt, policy } = input;
  if (cause === 'user_cancel') return verdict('do_not_retry', 'user_cancel');
  if (cause === 'local_lifecycle_close') return verdict('do_not_retry', 'local_lifecycle_close');
  if (retryable === false) return verdict('do_not_retry', 'not_retryable_error');
  if (attempt) {
    if (attempt.executions.includes('unsafe')) return verdict('ask_user_before_retry', 'unsafe_side_effect_started');
    if (attempt.executions.length > 0) return verdict('ask_user_before_retry', 'tool_execution_started');
    if (attempt.materialized.length > 0) {
      if (
        attempt.materialized.some(
          (m) => m.sideEffects === 'unknown' || (m.providerExecuted && m.sideEffects !== 'read_only'),
        )
      ) {
        return verdict('ask_user_before_retry', 'side_effect_facts_incomplete');
      }
      return attempt.materialized.some((m) => m.sideEffects === 'unsafe')
        ? verdict('ask_user_before_retry', 'tool_call_materialized_without_execution')
        : verdict('offer_continue', 'tool_call_materialized_without_execution');
    }
    if (attempt.toolInputStarted) return verdict('offer_continue', 'partial_tool_input_without_execution');
    if (attempt.text || (attempt.reasoning && policy.reasoningCountsAsVisible)) {
      return verdict('offer_continue', 'visible_output_without_tool_execution');
    }
    if (sideEffectFactsIncomplete(attempt, policy))
      return verdict('ask_user_before_retry', 'side_effect_facts_incomplete');
  }
  if (input.userCancelSeen) return verdict('do_not_retry', 'user_cancel');
  if (input.lifecycleCloseSeen) return verdict('do_not_retry', 'local_lifecycle_close');
  if (autoRetryable(cause, retryable)) {
    if (input.retriesUsed >= policy.maxAutoRetries) return verdict('ask_user_before_retry', 'retry_budget_exhausted');
    return attempt?.reasoning
      ? verdict('auto_retry', 'reasoning_only_without_final_text')
      : verdict('auto_retry', 'no_visible_output_or_tool_execution');
  }
  return verdict('unknown', 'unknown');
}

/**
 * The retry-safety precedence of docs/attributes.md#retry-safety-reasons as a
 * decision table over the pure
 * rule function: each row is one rule winning over the rules after it.
 */
import { describe, expect, it } from 'vitest';
import type { AttemptSummary } from '../../src/derive/attempt-summary.js';
import type { RetrySafetyInput } from '../../src/derive/retry-safety.js';
import { DEFAULT_POLICY, resolvePolicy } from '../../src/derive/policy.js';
import { deriveRetrySafety } from '../../src/derive/retry-safety.js';
import { COMPLETE } from '../support/facts.js';

const clean: AttemptSummary = {
  progress: false,
  text: false,
  reasoning: false,
  toolInputStarted: false,
  materialized: [],
  executions: [],
  boundary: COMPLETE,
  phase: 'before_first_provider_progress',
};

function input(
  overrides: Omit<Partial<RetrySafetyInput>, 'attempt'> & { attempt?: Partial<AttemptSummary> | undefined } = {},
): RetrySafetyInput {
  const { attempt, ...rest } = overrides;
  return {
    cause: 'provider_transport_disconnect',
    retryable: true,
    attempt: 'attempt' in overrides && attempt === undefined ? undefined : { ...clean, ...attempt },
    userCancelSeen: false,
    lifecycleCloseSeen: false,
    retriesUsed: 0,
    policy: DEFAULT_POLICY,
    ...rest,
  };
}

const cases: Array<{ rule: string; name: string; given: RetrySafetyInput; want: [string, string] }> = [
  {
    rule: '1',
    name: 'a user cancel never retries, even after an unsafe tool',
    given: input({ cause: 'user_cancel', attempt: { executions: ['unsafe'] } }),
    want: ['do_not_retry', 'user_cancel'],
  },
  {
    rule: '2',
    name: 'a lifecycle close never retries',
    given: input({ cause: 'local_lifecycle_close', retryable: false }),
    want: ['do_not_retry', 'local_lifecycle_close'],
  },
  {
    rule: '3',
    name: 'a non-retryable error is final even with visible text',
    given: input({ cause: 'provider_api_error', retryable: false, attempt: { text: true } }),
    want: ['do_not_retry', 'not_retryable_error'],
  },
  {
    rule: '4',
    name: 'an unsafe execution beats a read-only one',
    given: input({ attempt: { executions: ['read_only', 'unsafe'] } }),
    want: ['ask_user_before_retry', 'unsafe_side_effect_started'],
  },
  {
    rule: '5',
    name: 'any execution, read-only included, asks the user',
    given: input({ attempt: { executions: ['read_only'], text: true } }),
    want: ['ask_user_before_retry', 'tool_execution_started'],
  },
  {
    rule: '5',
    name: 'an unknown-class execution asks the user',
    given: input({ attempt: { executions: ['unknown'] } }),
    want: ['ask_user_before_retry', 'tool_execution_started'],
  },
  {
    rule: '6',
    name: 'a read-only call materialized offers to continue',
    given: input({ attempt: { materialized: [{ sideEffects: 'read_only', providerExecuted: false }] } }),
    want: ['offer_continue', 'tool_call_materialized_without_execution'],
  },
  {
    rule: '6',
    name: 'an unsafe call materialized asks the user',
    given: input({ attempt: { materialized: [{ sideEffects: 'unsafe', providerExecuted: false }] } }),
    want: ['ask_user_before_retry', 'tool_call_materialized_without_execution'],
  },
  {
    rule: '6',
    name: 'an unknown call materialized is incomplete side-effect facts',
    given: input({
      attempt: {
        materialized: [
          { sideEffects: 'unknown', providerExecuted: false },
          { sideEffects: 'unsafe', providerExecuted: false },
        ],
      },
    }),
    want: ['ask_user_before_retry', 'side_effect_facts_incomplete'],
  },
  {
    rule: '6',
    name: 'a provider-executed unclassified call is incomplete side-effect facts',
    given: input({ attempt: { materialized: [{ sideEffects: 'unsafe', providerExecuted: true }] } }),
    want: ['ask_user_before_retry', 'side_effect_facts_incomplete'],
  },
  {
    rule: '7',
    name: 'partial tool input offers to continue, even after text',
    given: input({ attempt: { toolInputStarted: true, text: true } }),
    want: ['offer_continue', 'partial_tool_input_without_execution'],
  },
  {
    rule: '8',
    name: 'visible text offers to continue',
    given: input({ attempt: { text: true, progress: true } }),
    want: ['offer_continue', 'visible_output_without_tool_execution'],
  },
  {
    rule: '8',
    name: 'reasoning counts as visible when the policy says so',
    given: input({
      policy: resolvePolicy({ reasoningCountsAsVisible: true }),
      attempt: { reasoning: true, progress: true },
    }),
    want: ['offer_continue', 'visible_output_without_tool_execution'],
  },
  {
    rule: '9',
    name: 'no boundary fails closed',
    given: input({ attempt: { boundary: undefined } }),
    want: ['ask_user_before_retry', 'side_effect_facts_incomplete'],
  },
  {
    rule: '9',
    name: 'a provider-executed tool exposed is incomplete before progress',
    given: input({
      attempt: {
        boundary: { tools: [{ name: 'web', sideEffects: 'read_only', providerExecuted: true }], external: false },
      },
    }),
    want: ['ask_user_before_retry', 'side_effect_facts_incomplete'],
  },
  {
    rule: '9',
    name: 'an external boundary is incomplete before progress',
    given: input({ attempt: { boundary: { tools: [], external: true } } }),
    want: ['ask_user_before_retry', 'side_effect_facts_incomplete'],
  },
  {
    rule: '9',
    name: 'an unknown local tool is incomplete after progress',
    given: input({
      attempt: {
        progress: true,
        boundary: { tools: [{ name: 'mcp', sideEffects: 'unknown', providerExecuted: false }], external: false },
      },
    }),
    want: ['ask_user_before_retry', 'side_effect_facts_incomplete'],
  },
  {
    rule: '9',
    name: 'an unknown local tool is fine before progress (nothing can have run)',
    given: input({
      attempt: {
        boundary: { tools: [{ name: 'mcp', sideEffects: 'unknown', providerExecuted: false }], external: false },
      },
    }),
    want: ['auto_retry', 'no_visible_output_or_tool_execution'],
  },
  {
    rule: '9',
    name: 'a missing boundary is trusted when the policy assumes complete',
    given: input({ policy: resolvePolicy({ missingBoundary: 'assume_complete' }), attempt: { boundary: undefined } }),
    want: ['auto_retry', 'no_visible_output_or_tool_execution'],
  },
  {
    rule: '10',
    name: 'a cancel anywhere in the run blocks a retry',
    given: input({ userCancelSeen: true }),
    want: ['do_not_retry', 'user_cancel'],
  },
  {
    rule: '10',
    name: 'a lifecycle close anywhere in the run blocks a retry',
    given: input({ lifecycleCloseSeen: true }),
    want: ['do_not_retry', 'local_lifecycle_close'],
  },
  {
    rule: '11',
    name: 'reasoning only is auto-retried',
    given: input({ attempt: { reasoning: true, progress: true } }),
    want: ['auto_retry', 'reasoning_only_without_final_text'],
  },
  {
    rule: '12',
    name: 'a clean transport drop is auto-retried',
    given: input(),
    want: ['auto_retry', 'no_visible_output_or_tool_execution'],
  },
  {
    rule: '12',
    name: 'a watchdog is auto-retried',
    given: input({ cause: 'watchdog_timeout' }),
    want: ['auto_retry', 'no_visible_output_or_tool_execution'],
  },
  {
    rule: '12',
    name: 'a retryable process exit is auto-retried',
    given: input({ cause: 'process_exit', retryable: true }),
    want: ['auto_retry', 'no_visible_output_or_tool_execution'],
  },
  {
    rule: '12',
    name: 'the budget of automatic retries is enforced',
    given: input({ retriesUsed: 1 }),
    want: ['ask_user_before_retry', 'retry_budget_exhausted'],
  },
  {
    rule: '12',
    name: 'a larger budget allows another retry',
    given: input({ retriesUsed: 1, policy: resolvePolicy({ maxAutoRetries: 2 }) }),
    want: ['auto_retry', 'no_visible_output_or_tool_execution'],
  },
  {
    rule: '12',
    name: 'a budget of zero never auto-retries',
    given: input({ policy: resolvePolicy({ maxAutoRetries: 0 }) }),
    want: ['ask_user_before_retry', 'retry_budget_exhausted'],
  },
  {
    rule: '13',
    name: 'an api error of unknown retryability is unknown',
    given: input({ cause: 'provider_api_error', retryable: undefined }),
    want: ['unknown', 'unknown'],
  },
  {
    rule: '13',
    name: 'a setup failure without an attempt is unknown',
    given: input({ cause: 'request_setup_failure', retryable: undefined, attempt: undefined }),
    want: ['unknown', 'unknown'],
  },
  {
    rule: '13',
    name: 'a tool failure with a clean attempt is unknown',
    given: input({ cause: 'tool_execution_failure', retryable: undefined }),
    want: ['unknown', 'unknown'],
  },
];

describe('retry-safety precedence (first match wins)', () => {
  it.each(cases)('rule $rule: $name', ({ given, want }) => {
    const verdict = deriveRetrySafety(given);
    expect([verdict.retrySafety, verdict.reason]).toEqual(want);
  });
});

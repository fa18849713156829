/**
 * The retry-safety policy: every threshold and option of the verdict rules in
 * one object, validated once at construction.
 */
import { z } from 'zod';

/** Options of the verdict rules (README.md#options, docs/attributes.md#retry-safety-reasons). */
export interface Policy {
  /**
   * Automatic retries a run may use before an otherwise safe failure becomes
   * `ask_user_before_retry` / `retry_budget_exhausted`.
   * @default 1
   */
  readonly maxAutoRetries: number;
  /**
   * Count reasoning output as visible output (then a reasoning-only failure is
   * `offer_continue` instead of `auto_retry`).
   * @default false
   */
  readonly reasoningCountsAsVisible: boolean;
  /**
   * Tools treated as read-only when a span does not classify them (for
   * conventions that carry no side-effect class, such as plain GenAI spans).
   * @default []
   */
  readonly trustedReadOnlyTools: readonly string[];
  /**
   * What a missing side-effect boundary means. `fail_closed` treats it as
   * incomplete (`ask_user_before_retry`); `assume_complete` trusts it.
   * @default 'fail_closed'
   */
  readonly missingBoundary: 'fail_closed' | 'assume_complete';
}

/** The documented defaults of {@link Policy}. */
export const DEFAULT_POLICY: Policy = Object.freeze({
  maxAutoRetries: 1,
  reasoningCountsAsVisible: false,
  trustedReadOnlyTools: Object.freeze([]) as readonly string[],
  missingBoundary: 'fail_closed',
});

/** Schema of a partial policy as users pass it; unknown keys are rejected. */
export const policySchema = z
  .object({
    maxAutoRetries: z.number().int().min(0).max(100),
    reasoningCountsAsVisible: z.boolean(),
    trustedReadOnlyTools: z.array(z.string().min(1)).max(1000),
    missingBoundary: z.enum(['fail_closed', 'assume_complete']),
  })
  .partial()
  .strict();

/** A policy as users pass it: any subset of {@link Policy}. */
export type PolicyInput = Partial<Policy>;

/**
 * Fills `input` with {@link DEFAULT_POLICY}. Throws a `TypeError` naming the
 * option when a value is invalid; call it at setup, never on a hot path.
 */
export function resolvePolicy(input?: PolicyInput): Policy {
  // No options is the common case (a recorder per run): the defaults need no validation.
  if (input === undefined) return DEFAULT_POLICY;
  const parsed = policySchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = issue?.path.length ? `policy.${issue.path.join('.')}` : 'policy';
    throw new TypeError(`agent-incidents: invalid ${key}: ${issue?.message ?? 'invalid value'}`);
  }
  return Object.freeze({ ...DEFAULT_POLICY, ...parsed.data });
}

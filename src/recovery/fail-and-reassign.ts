/**
 * failAndReassign: the run's task moves to FAILED — not terminal — and may be
 * handed out again while its retry count is below `maxRetries`. Progress is
 * not kept; what is kept is a redacted snapshot of the failed run.
 */
import { integerOption } from './options.js';
import { assertRunOpen, preemptedAction } from './preempt.js';
import { recorded } from './record-action.js';
import { snapshotOf } from './snapshot.js';
import type { FailureAction, RecoveryAction, RecoveryContext, RecoveryStrategy } from './strategy.js';
import { moveTask } from './task.js';

/** Options of {@link failAndReassign}. */
export interface FailAndReassignOptions {
  /** Reassignments allowed after a failure; 0 means never. @default 1 */
  readonly maxRetries?: number;
}

/** The registered name of {@link failAndReassign}. */
export const FAIL_AND_REASSIGN = 'failAndReassign';

/**
 * The task FAILED, reassignable while its retry count is below `maxRetries`
 * (source system §D.7). `reason` replaces the own reason when another
 * strategy falls back to this one.
 * @throws InvalidTaskTransitionError for a task that cannot fail (CREATED, COMPLETED, CANCELLED)
 */
export function failTask(
  context: RecoveryContext,
  strategy: string,
  maxRetries: number,
  reason?: FailureAction['reason'],
): FailureAction {
  const task = moveTask(context.task, 'FAILED');
  const canReassign = task.retryCount < maxRetries;
  const own = maxRetries === 0 ? 'reassign_disabled' : canReassign ? 'reassignable' : 'retries_exhausted';
  return {
    kind: canReassign ? 'reassign' : 'fail',
    reason: reason ?? own,
    strategy,
    task,
    snapshot: snapshotOf(context),
    canReassign,
  };
}

/**
 * Creates the failAndReassign strategy. The action is `reassign` (the
 * caller then calls `reassignTask`, which counts the cycle) or `fail` when
 * the task used its reassignments; both carry the redacted snapshot, which
 * is also recorded on the run span. Call `recover` before `run.end()`.
 * @example
 * const action = await failAndReassign({ maxRetries: 1 }).recover(recoveryContext(run, task));
 * if (action.kind === 'reassign') queue.push(reassignTask(action.task));
 */
export function failAndReassign(options: FailAndReassignOptions = {}): RecoveryStrategy {
  const maxRetries = integerOption(FAIL_AND_REASSIGN, 'maxRetries', options.maxRetries ?? 1, 0);
  return {
    name: FAIL_AND_REASSIGN,
    async recover(context: RecoveryContext): Promise<RecoveryAction> {
      assertRunOpen(context, FAIL_AND_REASSIGN);
      return recorded(
        context,
        preemptedAction(context, FAIL_AND_REASSIGN) ?? failTask(context, FAIL_AND_REASSIGN, maxRetries),
      );
    },
    async finalize(): Promise<void> {
      // Keeps no counters: the retry count travels on the task.
    },
  };
}

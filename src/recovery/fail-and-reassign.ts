/**
 * failAndReassign: the run's task moves to FAILED — not terminal — and may be
 * handed out again while its retry count is below `maxRetries`. Progress is
 * not kept; what is kept is a redacted snapshot of the failed run.
 */
import { failTask, preemptedAction, recorded } from './decide.js';
import type { RecoveryAction, RecoveryContext, RecoveryStrategy } from './strategy.js';

/** Options of {@link failAndReassign}. */
export interface FailAndReassignOptions {
  /** Reassignments allowed after a failure; 0 means never. @default 1 */
  readonly maxRetries?: number;
}

/** The registered name of {@link failAndReassign}. */
export const FAIL_AND_REASSIGN = 'failAndReassign';

/** Validates `maxRetries` for both strategies that use it. */
export function checkMaxRetries(strategy: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`${strategy}: maxRetries must be an integer >= 0, got ${value}`);
  return value;
}

/**
 * Creates the failAndReassign strategy. The action is `reassign` (the
 * caller then calls `reassignTask`, which counts the cycle) or `fail` when
 * the task used its reassignments; both carry the redacted snapshot, which
 * is also recorded on the run span.
 * @example
 * const action = await failAndReassign({ maxRetries: 1 }).recover(recoveryContext(run, task));
 * if (action.kind === 'reassign') queue.push(reassignTask(action.task));
 */
export function failAndReassign(options: FailAndReassignOptions = {}): RecoveryStrategy {
  const maxRetries = checkMaxRetries(FAIL_AND_REASSIGN, options.maxRetries ?? 1);
  return {
    name: FAIL_AND_REASSIGN,
    async recover(context: RecoveryContext): Promise<RecoveryAction> {
      const action = preemptedAction(context, FAIL_AND_REASSIGN) ?? failTask(context, FAIL_AND_REASSIGN, maxRetries);
      return recorded(context, action);
    },
    async finalize(): Promise<void> {
      // Keeps no counters: the retry count travels on the task.
    },
  };
}

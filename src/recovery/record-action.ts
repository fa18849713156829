/** Writing a strategy's action onto the run it recovers. */
import type { RecoveryAction, RecoveryContext } from './strategy.js';

/**
 * Records `action` on the in-process run (if any) and returns it. `none` is
 * returned unrecorded: a run that did not fail keeps what was recorded before
 * (a recovered run keeps its `retry`).
 */
export function recorded<A extends RecoveryAction>(context: RecoveryContext, action: A): A {
  if (action.kind === 'none') return action;
  context.run?.recoveryAction({
    action: action.kind,
    reason: action.reason,
    strategy: action.strategy,
    taskRetryCount: action.task.retryCount,
    ...(action.kind === 'retry' ? { delayMillis: action.delayMillis } : {}),
    ...(action.kind === 'resume' ? { resumeAttempt: action.resumeAttempt } : {}),
    ...(action.kind === 'reassign' || action.kind === 'fail' ? { snapshot: action.snapshot } : {}),
  });
  return action;
}

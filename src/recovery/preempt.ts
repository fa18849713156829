/**
 * What is settled before any strategy has a say: a run that did not fail, a
 * user cancel, a lifecycle close — wherever in the run they were recorded —
 * and a strategy called on a run that already ended.
 */
import type { RunStopReason } from '../model/recovery.js';
import type { DeferAction, RecoveryContext } from './strategy.js';
import { settleTask } from './task.js';

/** The stop recorded anywhere in the run, from the verdict or the run's signal. */
export function stopOf(context: RecoveryContext): RunStopReason['cause'] | undefined {
  const { incident } = context;
  if (
    incident.outcome === 'cancelled' ||
    incident.cause === 'user_cancel' ||
    incident.retrySafetyReason === 'user_cancel'
  )
    return 'user_cancel';
  if (incident.cause === 'local_lifecycle_close' || incident.retrySafetyReason === 'local_lifecycle_close')
    return 'local_lifecycle_close';
  const signal = context.run?.signal;
  return signal?.aborted ? ((signal.reason as RunStopReason | undefined)?.cause ?? 'user_cancel') : undefined;
}

/** The `stop` for a run the user cancelled (task CANCELLED) or its host closed (task INTERRUPTED). */
export function stopAction(context: RecoveryContext, strategy: string, stop: RunStopReason['cause']): DeferAction {
  const task = settleTask(context.task, stop === 'user_cancel' ? 'CANCELLED' : 'INTERRUPTED');
  return { kind: 'stop', reason: stop, strategy, task };
}

/**
 * The action for a run no strategy may recover: one that succeeded
 * (`none`), or one the user cancelled or — unless `resumeAfterClose` — its
 * host closed (`stop`). Undefined when the strategy decides.
 */
export function preemptedAction(
  context: RecoveryContext,
  strategy: string,
  options: { readonly resumeAfterClose?: boolean } = {},
): DeferAction | undefined {
  const { incident, task } = context;
  if (incident.outcome === 'success' || incident.outcome === 'recovered')
    return { kind: 'none', reason: 'not_failed', strategy, task };
  const stop = stopOf(context);
  if (stop === 'user_cancel' || (stop === 'local_lifecycle_close' && !options.resumeAfterClose))
    return stopAction(context, strategy, stop);
  return undefined;
}

/**
 * Refuses a run that already ended: its span takes no more events, so the
 * action could not be recorded, and a retry has no run to continue.
 * @throws Error naming the strategy
 */
export function assertRunOpen(context: RecoveryContext, strategy: string): void {
  if (context.run?.ended)
    throw new Error(
      `${strategy}: recover(context) must be called before run.end(), so the action is recorded on the run span`,
    );
}

/**
 * Decisions every strategy shares: what happens before a strategy has a say
 * (a run that did not fail, a cancel, a lifecycle close), the redacted
 * snapshot, and recording an action on the run.
 */
import type { Incident } from '../model/incident.js';
import type { RunSnapshot } from '../model/recovery.js';
import type { DeferAction, FailureAction, RecoveryAction, RecoveryContext } from './strategy.js';
import type { Task } from './task.js';
import { moveTask } from './task.js';

/**
 * The action for a run no strategy may recover: one that succeeded
 * (`none`), was cancelled by the user (`stop`, task CANCELLED) or was closed
 * by its host (`stop`, task INTERRUPTED). Undefined when a strategy decides.
 */
export function preemptedAction(context: RecoveryContext, strategy: string): DeferAction | undefined {
  const { incident, task } = context;
  if (incident.outcome === 'success' || incident.outcome === 'recovered') {
    return { kind: 'none', reason: 'not_failed', strategy, task };
  }
  if (incident.cause === 'user_cancel' || incident.outcome === 'cancelled') {
    return { kind: 'stop', reason: 'user_cancel', strategy, task: moveTask(task, 'CANCELLED') };
  }
  if (incident.cause === 'local_lifecycle_close') {
    return { kind: 'stop', reason: 'local_lifecycle_close', strategy, task: moveTask(task, 'INTERRUPTED') };
  }
  return undefined;
}

/** The snapshot of the run, or one built from the verdict when the run is not in-process. */
export function snapshotOf(context: RecoveryContext): RunSnapshot {
  if (context.run) return context.run.snapshot();
  const { incident, attempts } = context;
  const durations = attempts.flatMap((a) => (a.endMillis !== undefined ? [Math.max(0, a.endMillis - a.startMillis)] : []));
  const first = attempts[0]?.startMillis;
  const last = attempts.reduce((end, a) => Math.max(end, a.endMillis ?? a.startMillis), first ?? 0);
  return {
    turns: attempts.filter((a) => a.endMillis !== undefined && a.verdict === undefined).length,
    attempts: incident.attempts,
    recoveredAttempts: incident.recoveredAttempts,
    inputTokens: 0,
    outputTokens: 0,
    durationMillis: first === undefined ? 0 : last - first,
    attemptDurationsMillis: durations,
    outcome: incident.outcome,
    ...(incident.cause ? { cause: incident.cause } : {}),
    ...(incident.causeDetail ? { causeDetail: incident.causeDetail } : {}),
    ...(incident.phase ? { phase: incident.phase } : {}),
  };
}

/**
 * Fail-and-reassign (the source system's default): the task moves to FAILED
 * and may be reassigned while its retry count is below `maxRetries`; 0 means
 * never. Shared by `failAndReassign` and `checkpointResume`'s fallback.
 */
export function failTask(
  context: RecoveryContext,
  strategy: string,
  maxRetries: number,
  reason?: FailureAction['reason'],
): FailureAction {
  const task: Task = moveTask(context.task, 'FAILED');
  const canReassign = task.retryCount < maxRetries;
  const own = maxRetries === 0 ? 'reassign_disabled' : canReassign ? 'reassignable' : 'retries_exhausted';
  return { kind: canReassign ? 'reassign' : 'fail', reason: reason ?? own, strategy, task, snapshot: snapshotOf(context), canReassign };
}

/**
 * True when the verdict says side effects may have happened in the attempt
 * that failed: an unsafe or unclassified tool started, or the facts to tell
 * are missing. A read-only tool that ran is not a side effect.
 */
export function sideEffectsMayHaveHappened(incident: Incident): boolean {
  const reason = incident.retrySafetyReason;
  if (reason === 'unsafe_side_effect_started' || reason === 'side_effect_facts_incomplete') return true;
  return reason === 'tool_execution_started' && incident.sideEffects !== 'none' && incident.sideEffects !== 'read_only';
}

/** Records `action` on the in-process run (if any) and returns it. */
export function recorded<A extends RecoveryAction>(context: RecoveryContext, action: A): A {
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

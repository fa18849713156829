/**
 * The recovery protocol: a strategy reads a context (the task, the verdict
 * and the attempt history) and answers with one action. Strategies never
 * classify anything themselves: the verdict they read comes from the same
 * pure functions the processor and the gateway use.
 */
import type { RecoveryActionKind, RecoveryReason } from '../model/enums.js';
import type { Incident } from '../model/incident.js';
import type { AttemptHistoryEntry, RecoverableRun, RunSnapshot } from '../model/recovery.js';
import type { Task } from './task.js';

/** What a strategy decides from. */
export interface RecoveryContext {
  readonly task: Task;
  /** The run's verdict now (for an in-process run: `run.incident()`). */
  readonly incident: Incident;
  /** The run's attempts in order, each with its own verdict. */
  readonly attempts: readonly AttemptHistoryEntry[];
  /**
   * The run itself, when recovery happens in-process: strategies record
   * their actions on it and wait on its signal. Absent for a run judged
   * from exported spans; then nothing is recorded and nothing waits.
   */
  readonly run?: RecoverableRun;
}

/** A runtime-supplied checkpoint: where a run can resume. */
export interface Checkpoint<T = unknown> {
  /** The runtime's id for it (never exported). */
  readonly id: string;
  /** Completed turns it holds. */
  readonly turn?: number;
  /** The runtime's own state; recovery never reads it. */
  readonly data: T;
}

interface ActionBase<K extends RecoveryActionKind> {
  readonly kind: K;
  readonly reason: RecoveryReason;
  /** Name of the strategy that decided. */
  readonly strategy: string;
  /** The task after the action (moved through the lifecycle table). */
  readonly task: Task;
}

/** Retry the failed request now: the backoff already elapsed. */
export interface RetryAction extends ActionBase<'retry'> {
  /** Number of the failed attempt being retried; 0 when the run failed with no provider attempt. */
  readonly attempt: number;
  /** The backoff that was waited. */
  readonly delayMillis: number;
}

/** Resume the run from `checkpoint` (the task stays IN_PROGRESS). */
export interface ResumeAction extends ActionBase<'resume'> {
  readonly checkpoint: Checkpoint;
  /** 1-based number of this resume within the task execution. */
  readonly resumeAttempt: number;
}

/** The task is FAILED; `reassign` may hand it out again (`reassignTask`), `fail` may not. */
export interface FailureAction extends ActionBase<'reassign' | 'fail'> {
  /** Redacted: counts, tokens, cost, durations and the cause; never content. */
  readonly snapshot: RunSnapshot;
  /** True for `reassign`: the task's retry count is below the strategy's `maxRetries`. */
  readonly canReassign: boolean;
}

/** Hand the choice to the user, stop for good, or nothing to do. */
export type DeferAction = ActionBase<'offer_continue' | 'ask_user' | 'stop' | 'none'>;

/** What a strategy decided. */
export type RecoveryAction = RetryAction | ResumeAction | FailureAction | DeferAction;

/** A recovery strategy, registered by name. */
export interface RecoveryStrategy {
  /** The name it is registered and recorded under (a safe token such as `safeRetry`). */
  readonly name: string;
  /**
   * Decides (and, for a retry, waits out the backoff) and records the action
   * on `context.run`. Call it before `run.end()`; on an ended run it throws.
   */
  recover(context: RecoveryContext): Promise<RecoveryAction>;
  /** Clears the counters of a task execution that completed. No-op when it keeps none. */
  finalize(task: Task): Promise<void>;
}

/** The context of an in-process run: its verdict and attempt history now. */
export function recoveryContext(run: RecoverableRun, task: Task): RecoveryContext {
  return { task, incident: run.incident(), attempts: run.attemptHistory(), run };
}

/**
 * `agent-incidents/recovery`: strategies that act on a verdict (safeRetry,
 * failAndReassign, checkpointResume) behind one protocol, chosen by
 * configuration, and the task lifecycle they move (docs/recovery.md).
 * Every export here is public API; add to it deliberately.
 */
export { backoffDelay } from './backoff.js';
export type { BackoffOptions } from './backoff.js';
export { InMemoryCounterStore } from './counter-store.js';
export type { CounterStore, InMemoryCounterStoreOptions } from './counter-store.js';
export { CHECKPOINT_RESUME, checkpointResume, sideEffectsMayHaveHappened } from './checkpoint-resume.js';
export type { CheckpointResumeOptions } from './checkpoint-resume.js';
export { FAIL_AND_REASSIGN, failAndReassign } from './fail-and-reassign.js';
export type { FailAndReassignOptions } from './fail-and-reassign.js';
export { createRecoveryRegistry, RecoveryConfigError, recoveryConfigSchema } from './registry.js';
export type { RecoveryRegistry } from './registry.js';
export type { RecoveryConfig, RecoveryServices, RecoveryStrategyFactory } from './registry.js';
export { SAFE_RETRY, safeRetry } from './safe-retry.js';
export type { SafeRetryOptions } from './safe-retry.js';
export { recoveryContext } from './strategy.js';
export type {
  Checkpoint,
  DeferAction,
  FailureAction,
  RecoveryAction,
  RecoveryContext,
  RecoveryStrategy,
  ResumeAction,
  RetryAction,
} from './strategy.js';
export { createTask, moveTask, reassignTask, settleTask } from './task.js';
export type { Task } from './task.js';
export type {
  AttemptHistoryEntry,
  AttemptUsage,
  RecoverableRun,
  RecoveryActionRecord,
  RunSnapshot,
  RunStopReason,
} from '../model/recovery.js';
// The lifecycle's verbs say what they move: tasks.
export {
  canTransition as canTransitionTask,
  InvalidTaskTransitionError,
  isTaskState,
  isTerminal as isTerminalTaskState,
  TASK_STATES,
  TASK_TRANSITIONS,
  transition as transitionTask,
} from '../model/task-lifecycle.js';
export type { TaskState } from '../model/task-lifecycle.js';

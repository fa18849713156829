/**
 * The task lifecycle: a closed set of states and an explicit transition table.
 * Pure functions over states only (no I/O, no clocks), so any scheduler or
 * router can share one definition of which moves are legal.
 *
 * Modelled on synthorg's `VALID_TRANSITIONS` (seed-taxonomy §C.5, §F.2) and
 * its fail-and-reassign recovery (§F.3, §D.7), without the review/blocked
 * states this package does not need. Changing the table is a contract change.
 */

/** Every state a task can be in. */
export const TASK_STATES = [
  'CREATED',
  'ASSIGNED',
  'IN_PROGRESS',
  'FAILED',
  'INTERRUPTED',
  'COMPLETED',
  'CANCELLED',
] as const;
/** One of {@link TASK_STATES}. */
export type TaskState = (typeof TASK_STATES)[number];

/**
 * For each state, the states it may move to. A move not listed here is
 * rejected by `transitionTask`. Rows with no targets are terminal.
 */
export const TASK_TRANSITIONS: Readonly<Record<TaskState, readonly TaskState[]>> = Object.freeze({
  // A new task can be handed to an agent, or withdrawn before anyone picks it up.
  CREATED: Object.freeze(['ASSIGNED', 'CANCELLED'] as const),
  // The agent starts work, the task is withdrawn, or it is unassigned back to
  // the pool. FAILED is added beyond the brief: synthorg added ASSIGNED→FAILED
  // (SO149, seed-taxonomy §F.2) for setup failures that happen before work
  // starts (cf. cause `request_setup_failure`); without it such a task could
  // only be faked through IN_PROGRESS or silently unassigned, losing the failure.
  // INTERRUPTED as in the source system (§F.2): a host shutting down before
  // the agent started still interrupts the task, and recovery restarts it.
  ASSIGNED: Object.freeze(['IN_PROGRESS', 'CANCELLED', 'CREATED', 'FAILED', 'INTERRUPTED'] as const),
  // Work ends in success, a failure, an interruption (shutdown, lost stream),
  // or a user cancel. A checkpoint resume stays IN_PROGRESS (§F.3), so it needs no row.
  IN_PROGRESS: Object.freeze(['COMPLETED', 'FAILED', 'INTERRUPTED', 'CANCELLED'] as const),
  // FAILED is not terminal: fail-and-reassign (§F.3) hands the task to a new
  // attempt. Whether reassignment is still allowed (retry_count < max_retries,
  // §D.7) is the caller's policy, not a state rule.
  FAILED: Object.freeze(['ASSIGNED', 'CANCELLED'] as const),
  // An interrupted attempt resumes where it stopped, is given up on as a
  // failure (e.g. resume attempts exhausted, §D.7, which then allows
  // reassignment through FAILED), or is withdrawn.
  INTERRUPTED: Object.freeze(['IN_PROGRESS', 'FAILED', 'CANCELLED'] as const),
  // Terminal: a finished task is never reopened; new work is a new task.
  COMPLETED: Object.freeze([] as const),
  // Terminal: a withdrawn task stays withdrawn, so a cancel cannot be undone by a late retry.
  CANCELLED: Object.freeze([] as const),
});

/** The lifecycle does not allow moving from `from` to `to`; the message names both. */
export class InvalidTaskTransitionError extends Error {
  /** The state the task was in. */
  readonly from: TaskState;
  /** The state the caller tried to move it to. */
  readonly to: TaskState;

  constructor(from: TaskState, to: TaskState) {
    const allowed = TASK_TRANSITIONS[from];
    super(
      `Invalid task transition ${from} -> ${to}: ` +
        (allowed.length === 0 ? `${from} is terminal` : `${from} may move only to ${allowed.join(', ')}`),
    );
    this.name = 'InvalidTaskTransitionError';
    this.from = from;
    this.to = to;
  }
}

/** True when `value` is one of {@link TASK_STATES}; total over any input, never throws. */
export function isTaskState(value: unknown): value is TaskState {
  return typeof value === 'string' && (TASK_STATES as readonly string[]).includes(value);
}

/** True when the table allows moving from `from` to `to`. */
export function canTransition(from: TaskState, to: TaskState): boolean {
  // Checked against the closed list first: callers passing unchecked strings
  // (e.g. 'toString', which a plain lookup would find on Object.prototype) get false, not a crash.
  return isTaskState(from) && isTaskState(to) && TASK_TRANSITIONS[from].includes(to);
}

/**
 * Returns `to` when the move is allowed; otherwise throws
 * {@link InvalidTaskTransitionError} naming both states.
 */
export function transition(from: TaskState, to: TaskState): TaskState {
  if (!canTransition(from, to)) throw new InvalidTaskTransitionError(from, to);
  return to;
}

/** True when `state` has no way out (COMPLETED, CANCELLED). */
export function isTerminal(state: TaskState): boolean {
  return TASK_TRANSITIONS[state].length === 0;
}

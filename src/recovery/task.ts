/**
 * The task a recovery strategy acts on: its lifecycle state and how many
 * failure-reassignment cycles it went through. Plain immutable data; every
 * state change goes through the transition table of the task lifecycle.
 */
import type { TaskState } from '../model/task-lifecycle.js';
import { canTransition, transition } from '../model/task-lifecycle.js';

/** A unit of agent work, as recovery sees it. */
export interface Task {
  /** Stable id; budgets and resume counters are kept per task execution under it. */
  readonly id: string;
  readonly state: TaskState;
  /** Failure-reassignment cycles before this execution. @default 0 */
  readonly retryCount: number;
}

/** A new task with no reassignments. @param state @default 'CREATED' */
export function createTask(id: string, state: TaskState = 'CREATED'): Task {
  return { id, state, retryCount: 0 };
}

/**
 * The task moved to `state`, or the task itself when it is already there.
 * @throws InvalidTaskTransitionError when the lifecycle forbids the move
 */
export function moveTask(task: Task, state: TaskState): Task {
  return task.state === state ? task : { ...task, state: transition(task.state, state) };
}

/**
 * The task moved to `state` when the lifecycle allows it, else unchanged: for
 * stops, where a task already FAILED or CANCELLED simply stays so.
 */
export function settleTask(task: Task, state: TaskState): Task {
  return canTransition(task.state, state) ? { ...task, state } : task;
}

/**
 * The next execution of a FAILED task: ASSIGNED again with its retry count
 * raised by one (the caller that hands the task out counts the cycle, as in
 * the source system). Whether it may be reassigned is the strategy's answer.
 * @throws InvalidTaskTransitionError when the task is not FAILED
 */
export function reassignTask(task: Task): Task {
  return { ...task, state: transition(task.state, 'ASSIGNED'), retryCount: task.retryCount + 1 };
}

/**
 * The store key of a strategy's counter for one task execution: a reassigned
 * task starts with fresh counters, and strategies sharing a store never share
 * a counter.
 */
export function counterKey(strategy: string, task: Task): string {
  return `${strategy}:${task.id}#${task.retryCount}`;
}

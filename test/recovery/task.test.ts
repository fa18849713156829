/**
 * Task helpers (src/recovery/task.ts): a task starts CREATED with no
 * reassignments, moves only by the lifecycle's table (a move to its own
 * state is none), settles where it can, counts reassignments, and its
 * counters are keyed per strategy, task and execution.
 */
import { describe, expect, it } from 'vitest';
import { InvalidTaskTransitionError } from '../../src/model/task-lifecycle.js';
import { counterKey, createTask, moveTask, reassignTask, settleTask } from '../../src/recovery/task.js';

describe('tasks', () => {
  it('createTask starts CREATED, or in the state given, with retryCount 0', () => {
    expect(createTask('t1')).toEqual({ id: 't1', state: 'CREATED', retryCount: 0 });
    expect(createTask('t1', 'IN_PROGRESS')).toEqual({ id: 't1', state: 'IN_PROGRESS', retryCount: 0 });
  });

  it('moveTask follows the table, returns the same task for its own state, and throws on an illegal move', () => {
    const task = createTask('t1');
    expect(moveTask(task, 'ASSIGNED')).toEqual({ id: 't1', state: 'ASSIGNED', retryCount: 0 });
    expect(moveTask(task, 'CREATED')).toBe(task);
    expect(() => moveTask(task, 'COMPLETED')).toThrow(InvalidTaskTransitionError);
  });

  it.each([
    ['moves when the table allows it', 'CREATED', 'CANCELLED', 'CANCELLED'],
    ['stays when it does not', 'CREATED', 'COMPLETED', 'CREATED'],
  ] as const)('settleTask %s', (_case, from, to, state) => {
    expect(settleTask(createTask('t', from), to).state).toBe(state);
  });

  it('reassignTask assigns a failed task again and counts it; an illegal reassignment throws', () => {
    expect(reassignTask(createTask('t', 'FAILED'))).toEqual({ id: 't', state: 'ASSIGNED', retryCount: 1 });
    expect(() => reassignTask(createTask('t', 'COMPLETED'))).toThrow(InvalidTaskTransitionError);
  });

  it('counterKey names strategy, task and execution', () => {
    expect(counterKey('safeRetry', { id: 'job-7', state: 'ASSIGNED', retryCount: 2 })).toBe('safeRetry:job-7#2');
  });
});

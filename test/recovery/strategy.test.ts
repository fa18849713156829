/**
 * recoveryContext (src/recovery/strategy.ts): the context of an in-process
 * run is its verdict and attempt history at the time of the call, the task,
 * and the run itself, on a run recorded through the real processor.
 */
import { describe, expect, it } from 'vitest';
import { recoveryContext } from '../../src/recovery/strategy.js';
import { createTask } from '../../src/recovery/task.js';
import { createPipeline, errors, LOCAL_TOOLS } from '../support/harness.js';

describe('recoveryContext', () => {
  it('reads the run now: its verdict, its attempts, the task and the run', () => {
    const run = createPipeline().startRun();
    const task = createTask('t1', 'IN_PROGRESS');
    const first = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
    first.fail(errors.socketDrop());
    const context = recoveryContext(run, task);
    expect(context.task).toBe(task);
    expect(context.run).toBe(run);
    expect(context.incident).toEqual(run.incident());
    expect(context.incident.outcome).not.toBe('success');
    expect(context.attempts.map((a) => [a.number, a.verdict !== undefined])).toEqual([[1, true]]);

    // A later context sees what happened since; the earlier one is a snapshot.
    run.startAttempt({ boundary: { tools: LOCAL_TOOLS } }).finish({ finishReasons: ['stop'] });
    expect(recoveryContext(run, task).attempts.map((a) => a.number)).toEqual([1, 2]);
    expect(context.attempts).toHaveLength(1);
    run.end();
  });
});

/**
 * What recovery settles before any strategy (src/recovery/preempt.ts): the
 * stop recorded anywhere in the run, the `none` for a run that did not fail,
 * the `stop` that settles the task, and the refusal of an ended run.
 */
import { describe, expect, it } from 'vitest';
import type { Incident } from '../../src/model/incident.js';
import type { RecoverableRun } from '../../src/model/recovery.js';
import { assertRunOpen, preemptedAction, stopAction, stopOf } from '../../src/recovery/preempt.js';
import type { RecoveryContext } from '../../src/recovery/strategy.js';
import type { Task } from '../../src/recovery/task.js';
import { createTask } from '../../src/recovery/task.js';

const FAILED = {
  outcome: 'failed',
  cause: 'provider_timeout',
  sideEffects: 'none',
  factsComplete: true,
  missingFacts: [],
  attempts: 1,
  recoveredAttempts: 0,
} as unknown as Incident;

/** A run that is only its signal and whether it ended. */
function run(ended = false, abort?: unknown): RecoverableRun {
  const controller = new AbortController();
  if (abort !== undefined) controller.abort(abort);
  return { signal: controller.signal, ended } as RecoverableRun;
}

function context(incident: Partial<Incident> = {}, options: { run?: RecoverableRun; task?: Task } = {}) {
  return {
    task: options.task ?? createTask('t1', 'IN_PROGRESS'),
    incident: { ...FAILED, ...incident } as Incident,
    attempts: [],
    run: options.run,
  } satisfies RecoveryContext;
}

describe('stopOf', () => {
  it.each([
    ['a failure with no stop', {}, undefined, undefined],
    ['a cancelled outcome', { outcome: 'cancelled' }, undefined, 'user_cancel'],
    ['a user_cancel cause', { cause: 'user_cancel' }, undefined, 'user_cancel'],
    ['a user_cancel safety reason', { retrySafetyReason: 'user_cancel' }, undefined, 'user_cancel'],
    ['a lifecycle close cause', { cause: 'local_lifecycle_close' }, undefined, 'local_lifecycle_close'],
    [
      'a lifecycle close safety reason',
      { retrySafetyReason: 'local_lifecycle_close' },
      undefined,
      'local_lifecycle_close',
    ],
    ['the signal aborted for a close', {}, run(false, { cause: 'local_lifecycle_close' }), 'local_lifecycle_close'],
    ['the signal aborted with no cause', {}, run(false, 'whatever'), 'user_cancel'],
    ['a signal not aborted', {}, run(), undefined],
    [
      'a cancel in the verdict over a close on the signal',
      { cause: 'user_cancel' },
      run(false, { cause: 'local_lifecycle_close' }),
      'user_cancel',
    ],
  ] as const)('reads %s', (_case, incident, r, stop) => {
    expect(stopOf(context(incident as Partial<Incident>, { run: r }))).toBe(stop);
  });
});

describe('stopAction', () => {
  it.each([
    ['user_cancel', 'CANCELLED'],
    ['local_lifecycle_close', 'INTERRUPTED'],
  ] as const)('a %s stop settles the task %s', (stop, state) => {
    expect(stopAction(context(), 'safeRetry', stop)).toEqual({
      kind: 'stop',
      reason: stop,
      strategy: 'safeRetry',
      task: { id: 't1', state, retryCount: 0 },
    });
  });

  it('leaves a task the lifecycle cannot move there (FAILED to INTERRUPTED) as it is', () => {
    const failed = createTask('t1', 'FAILED');
    expect(stopAction(context({}, { task: failed }), 's', 'local_lifecycle_close').task).toBe(failed);
  });
});

describe('preemptedAction', () => {
  it.each(['success', 'recovered'] as const)('answers none for a %s run, task untouched', (outcome) => {
    const c = context({ outcome, cause: undefined });
    expect(preemptedAction(c, 's')).toEqual({ kind: 'none', reason: 'not_failed', strategy: 's', task: c.task });
  });

  it('stops a cancelled run, even when resuming after close', () => {
    expect(preemptedAction(context({ cause: 'user_cancel' }), 's', { resumeAfterClose: true })).toMatchObject({
      kind: 'stop',
      reason: 'user_cancel',
      task: { state: 'CANCELLED' },
    });
  });

  it.each([
    [{}, { kind: 'stop', reason: 'local_lifecycle_close', task: { state: 'INTERRUPTED' } }],
    [{ resumeAfterClose: false }, { kind: 'stop', reason: 'local_lifecycle_close', task: { state: 'INTERRUPTED' } }],
    [{ resumeAfterClose: true }, undefined],
  ])('a lifecycle close with options %j: %j', (options, action) => {
    const result = preemptedAction(context({ cause: 'local_lifecycle_close' }), 's', options);
    if (action === undefined) expect(result).toBeUndefined();
    else expect(result).toMatchObject(action);
  });

  it('leaves an ordinary failure to the strategy', () => {
    expect(preemptedAction(context(), 's')).toBeUndefined();
  });
});

describe('assertRunOpen', () => {
  it('throws naming the strategy for an ended run', () => {
    expect(() => assertRunOpen(context({}, { run: run(true) }), 'safeRetry')).toThrow(
      'safeRetry: recover(context) must be called before run.end(), so the action is recorded on the run span',
    );
  });

  it.each([
    ['an open run', run(false)],
    ['no run (judged from exported spans)', undefined],
  ])('lets %s through', (_case, r) => {
    expect(assertRunOpen(context({}, { run: r }), 's')).toBeUndefined();
  });
});

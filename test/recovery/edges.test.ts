/**
 * The edges a review found: stops recorded after the failure, side effects
 * behind a final error, strategies sharing a store, a stop while the store
 * answers, tasks in states a strategy cannot move, calls after the run
 * ended, and what a recovered run keeps.
 */
import { describe, expect, it } from 'vitest';
import type { RunRecorder } from '../../src/index.js';
import type { CounterStore, RecoveryStrategy, Task } from '../../src/recovery/index.js';
import { NATIVE_ATTR } from '../../src/index.js';
import {
  checkpointResume,
  createTask,
  failAndReassign,
  InMemoryCounterStore,
  InvalidTaskTransitionError,
  recoveryContext,
  safeRetry,
} from '../../src/recovery/index.js';
import { createPipeline, errors, LOCAL_TOOLS } from '../support/harness.js';
import { waitFor } from '../support/wait-for.js';

const FAST = { baseDelayMillis: 1, maxDelayMillis: 1 } as const;
const checkpoint = { id: 'cp', data: {} };

/** A run whose only attempt dropped before any output: auto_retry on its own. */
function droppedRun(): RunRecorder {
  const run = createPipeline().startRun();
  run.startAttempt({ boundary: { tools: LOCAL_TOOLS } }).fail(errors.socketDrop());
  return run;
}

const strategies: { readonly name: string; readonly create: () => RecoveryStrategy }[] = [
  { name: 'safeRetry', create: () => safeRetry(FAST) },
  { name: 'failAndReassign', create: () => failAndReassign() },
  { name: 'checkpointResume', create: () => checkpointResume({ loadCheckpoint: () => checkpoint }) },
];

describe('a stop recorded after the failure (a cancel anywhere in the run blocks a retry)', () => {
  it.each(strategies)('a user cancel after a drop: $name stops and the task is CANCELLED', async ({ create }) => {
    const run = droppedRun();
    run.userCancel();
    expect(run.incident()).toMatchObject({
      cause: 'provider_transport_disconnect',
      retrySafety: 'do_not_retry',
      retrySafetyReason: 'user_cancel',
    });
    const action = await create().recover(recoveryContext(run, createTask('t', 'IN_PROGRESS')));
    expect(action).toMatchObject({ kind: 'stop', reason: 'user_cancel', task: { state: 'CANCELLED' } });
  });

  it.each([
    { name: 'safeRetry', create: strategies[0]!.create, kind: 'stop', state: 'INTERRUPTED' },
    { name: 'failAndReassign', create: strategies[1]!.create, kind: 'stop', state: 'INTERRUPTED' },
    // Resuming what the host closed is what checkpoints are for.
    { name: 'checkpointResume', create: strategies[2]!.create, kind: 'resume', state: 'IN_PROGRESS' },
  ])('a lifecycle close after a drop: $name → $kind, task $state', async ({ create, kind, state }) => {
    const run = droppedRun();
    run.lifecycleClose({ kind: 'instance_reload' });
    const action = await create().recover(recoveryContext(run, createTask('t', 'IN_PROGRESS')));
    expect(action).toMatchObject({ kind, task: { state } });
  });

  it('checkpointResume resumes a task INTERRUPTED by a shutdown, back to IN_PROGRESS', async () => {
    const run = createPipeline().startRun();
    run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
    run.lifecycleClose({ kind: 'shutdown' });
    const action = await checkpointResume({ loadCheckpoint: () => checkpoint }).recover(
      recoveryContext(run, createTask('t', 'INTERRUPTED')),
    );
    expect(action).toMatchObject({ kind: 'resume', task: { state: 'IN_PROGRESS' } });
  });
});

describe('checkpointResume and side effects', () => {
  it('an unsafe tool that ran before a final error (not retryable) still needs confirming', async () => {
    const run = createPipeline().startRun();
    const attempt = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
    run.startTool({ name: 'bash', sideEffects: 'unsafe', attempt }).complete();
    attempt.fail(errors.http(401, 'Unauthorized'));
    expect(run.incident()).toMatchObject({ retrySafetyReason: 'not_retryable_error', sideEffects: 'unsafe' });
    const action = await checkpointResume({ loadCheckpoint: () => checkpoint }).recover(
      recoveryContext(run, createTask('t', 'IN_PROGRESS')),
    );
    expect(action).toMatchObject({ kind: 'ask_user', reason: 'side_effects_unconfirmed' });
  });

  it('a read-only tool is no side effect to confirm', async () => {
    const run = createPipeline().startRun();
    const attempt = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
    run.startTool({ name: 'read', sideEffects: 'read_only', attempt }).complete();
    attempt.fail(errors.socketDrop());
    const action = await checkpointResume({ loadCheckpoint: () => checkpoint }).recover(
      recoveryContext(run, createTask('t', 'IN_PROGRESS')),
    );
    expect(action.kind).toBe('resume');
  });
});

describe('budgets', () => {
  it('strategies sharing one store keep separate counters', async () => {
    const store = new InMemoryCounterStore();
    const task = createTask('shared', 'IN_PROGRESS');
    await safeRetry({ ...FAST, store }).recover(recoveryContext(droppedRun(), task));
    const resume = checkpointResume({ loadCheckpoint: () => checkpoint, store, maxResumeAttempts: 1 });
    expect(await resume.recover(recoveryContext(droppedRun(), task))).toMatchObject({
      kind: 'resume',
      resumeAttempt: 1,
    });
    expect([store.get('safeRetry:shared#0'), store.get('checkpointResume:shared#0')]).toEqual([1, 1]);
  });

  it('a cancel that arrives while the store answers spends no budget and issues no retry', async () => {
    const run = droppedRun();
    const inner = new InMemoryCounterStore();
    const slow: CounterStore = {
      get: async (key) => {
        run.userCancel(); // the user stops while the budget is being read
        return inner.get(key);
      },
      increment: (key) => inner.increment(key),
      delete: (key) => inner.delete(key),
    };
    const action = await safeRetry({ ...FAST, store: slow }).recover(
      recoveryContext(run, createTask('slow', 'IN_PROGRESS')),
    );
    expect(action).toMatchObject({ kind: 'stop', reason: 'user_cancel' });
    expect(inner.size).toBe(0);
    expect(run.end()).toMatchObject({ retrySafety: 'do_not_retry', retrySafetyReason: 'user_cancel' });
  });

  it('a retry another worker took between the check and the increment is not taken twice', async () => {
    const inner = new InMemoryCounterStore();
    const racing: CounterStore = {
      get: (key) => inner.get(key),
      increment: (key) => {
        inner.increment(key); // the other worker's increment lands first
        return inner.increment(key);
      },
      delete: (key) => inner.delete(key),
    };
    const action = await safeRetry({ ...FAST, store: racing }).recover(
      recoveryContext(droppedRun(), createTask('race', 'IN_PROGRESS')),
    );
    expect(action).toMatchObject({ kind: 'ask_user', reason: 'retry_budget_exhausted' });
  });
});

describe('task states', () => {
  it('a FAILED task whose run the host closed stays FAILED; nothing throws', async () => {
    const run = droppedRun();
    run.lifecycleClose({ kind: 'shutdown' });
    const action = await safeRetry(FAST).recover(recoveryContext(run, createTask('f', 'FAILED')));
    expect(action).toMatchObject({ kind: 'stop', reason: 'local_lifecycle_close', task: { state: 'FAILED' } });
  });

  it('a task no run worked on (CREATED) is refused with the typed error, before anything is recorded', async () => {
    const run = droppedRun();
    await expect(failAndReassign().recover(recoveryContext(run, createTask('c')))).rejects.toThrow(
      InvalidTaskTransitionError,
    );
    expect(run.incident().recovery).toBeUndefined();
  });

  it.each(strategies)('$name refuses a run that already ended, naming itself', async ({ name, create }) => {
    const run = droppedRun();
    run.end();
    await expect(create().recover(recoveryContext(run, createTask('e', 'IN_PROGRESS')))).rejects.toThrow(
      `${name}: recover(context) must be called before run.end()`,
    );
  });
});

describe('what a run keeps', () => {
  it('recovering a recovered run again returns none and keeps the recorded retry', async () => {
    const run = droppedRun();
    const strategy = safeRetry(FAST);
    const task: Task = createTask('kept', 'IN_PROGRESS');
    expect((await strategy.recover(recoveryContext(run, task))).kind).toBe('retry');
    run.startAttempt({ boundary: { tools: LOCAL_TOOLS } }).finish();
    expect(await strategy.recover(recoveryContext(run, task))).toMatchObject({ kind: 'none', reason: 'not_failed' });
    expect(run.end()).toMatchObject({ outcome: 'recovered', recovery: { action: 'retry' } });
  });

  it('an abandoned retry links nothing: the attempt the user later asks for is not its retry', async () => {
    const pipeline = createPipeline();
    const run = pipeline.startRun();
    run.startAttempt({ boundary: { tools: LOCAL_TOOLS } }).fail(errors.socketDrop());
    const waiting = safeRetry({ baseDelayMillis: 5_000, maxDelayMillis: 5_000 }).recover(
      recoveryContext(run, createTask('a', 'IN_PROGRESS')),
    );
    await waitFor(() => run.attemptHistory()[0]?.retried === true, { what: 'the retry issued (in its backoff)' });
    run.userCancel();
    expect((await waiting).kind).toBe('stop');
    run.startAttempt({ boundary: { tools: LOCAL_TOOLS } }).finish();
    run.end();
    const second = pipeline.spans().filter((s) => s.name.startsWith('chat'))[1]!;
    expect(second.links).toEqual([]);
    expect(second.attributes[NATIVE_ATTR.RETRY_OF_ATTEMPT]).toBeUndefined();
  });

  it('a strategy name that is not a safe token is exported as custom', async () => {
    const pipeline = createPipeline();
    const run = pipeline.startRun();
    run.recoveryAction({ action: 'ask_user', reason: 'not_auto_retryable', strategy: 'ask Bob <bob@example.com>' });
    run.end();
    const event = pipeline.runSpans()[0]!.events.find((e) => e.name === 'agent_incidents.recovery_action')!;
    expect(event.attributes?.[NATIVE_ATTR.RECOVERY_STRATEGY]).toBe('custom');
  });
});

/**
 * checkpointResume (src/recovery/checkpoint-resume.ts) on contexts judged
 * from exported spans (no in-process run): when side effects may have
 * happened, the numbered resumes up to the bound, the fallback to
 * fail-and-reassign (no checkpoint, a loader that throws, resumes spent, a
 * resume another worker took), the side-effect confirmation, and the stops.
 * The same strategy on runs recorded in-process: test/recovery/fail-and-reassign.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Incident } from '../../src/model/incident.js';
import { checkpointResume, sideEffectsMayHaveHappened } from '../../src/recovery/checkpoint-resume.js';
import { InMemoryCounterStore } from '../../src/recovery/counter-store.js';
import type { Checkpoint, RecoveryAction, RecoveryContext } from '../../src/recovery/strategy.js';
import type { Task } from '../../src/recovery/task.js';
import { createTask } from '../../src/recovery/task.js';

const FAILED = {
  outcome: 'failed',
  cause: 'connection_dropped',
  sideEffects: 'none',
  retrySafety: 'safe',
  retrySafetyReason: 'no_side_effect_started',
  factsComplete: true,
  missingFacts: [],
  attempts: 2,
  recoveredAttempts: 0,
} as unknown as Incident;
const CHECKPOINT: Checkpoint = { id: 'cp-1', turn: 1, data: { secret: 'never read' } };

function context(incident: Partial<Incident> = {}, task: Task = createTask('t1', 'IN_PROGRESS')): RecoveryContext {
  return { task, incident: { ...FAILED, ...incident } as Incident, attempts: [] };
}

describe('sideEffectsMayHaveHappened', () => {
  it.each([
    ['no side effects', {}, false],
    ['read-only tools only', { sideEffects: 'read_only' }, false],
    ['an unsafe tool', { sideEffects: 'unsafe' }, true],
    ['unknown side effects', { sideEffects: 'unknown' }, true],
    ['an unsafe side effect started', { retrySafetyReason: 'unsafe_side_effect_started' }, true],
    ['side-effect facts incomplete', { retrySafetyReason: 'side_effect_facts_incomplete' }, true],
  ])('%s: %s', (_case, incident, may) => {
    expect(sideEffectsMayHaveHappened({ ...FAILED, ...incident } as Incident)).toBe(may);
  });
});

describe('checkpointResume.recover', () => {
  it('resumes from the checkpoint, numbered per task execution, then falls back once they are spent', async () => {
    const strategy = checkpointResume({ loadCheckpoint: () => CHECKPOINT });
    const actions: RecoveryAction[] = [];
    for (let i = 0; i < 3; i++) actions.push(await strategy.recover(context()));
    expect(actions[0]).toEqual({
      kind: 'resume',
      reason: 'checkpoint_available',
      strategy: 'checkpointResume',
      task: { id: 't1', state: 'IN_PROGRESS', retryCount: 0 },
      checkpoint: CHECKPOINT,
      resumeAttempt: 1,
    });
    expect(actions[1]).toMatchObject({ kind: 'resume', resumeAttempt: 2 });
    expect(actions[2]).toMatchObject({
      kind: 'reassign',
      reason: 'resume_attempts_exhausted',
      canReassign: true,
      task: { state: 'FAILED' },
    });
    // The spent counter was cleared: the next failure of this execution may resume again.
    expect(await strategy.recover(context())).toMatchObject({ kind: 'resume', resumeAttempt: 1 });
  });

  it.each([
    ['no checkpoint', () => undefined],
    [
      'a loader that throws',
      () => {
        throw new Error('disk gone');
      },
    ],
    ['a loader that rejects', () => Promise.reject(new Error('disk gone'))],
  ])('falls back to fail-and-reassign on %s', async (_case, loadCheckpoint) => {
    expect(await checkpointResume({ loadCheckpoint }).recover(context())).toMatchObject({
      kind: 'reassign',
      reason: 'no_checkpoint',
      strategy: 'checkpointResume',
      canReassign: true,
      task: { state: 'FAILED', retryCount: 0 },
    });
  });

  it('fails for good when the task used its reassignments (maxRetries)', async () => {
    const task = { ...createTask('t1', 'IN_PROGRESS'), retryCount: 1 };
    expect(
      await checkpointResume({ loadCheckpoint: () => undefined, maxRetries: 1 }).recover(context({}, task)),
    ).toMatchObject({ kind: 'fail', reason: 'no_checkpoint', canReassign: false });
  });

  it.each([
    ['no confirmation asked', undefined, 'ask_user'],
    ['the runtime does not confirm', () => false, 'ask_user'],
    ['the runtime confirms', () => Promise.resolve(true), 'resume'],
  ])('over unsafe side effects: %s → %s', async (_case, confirmSideEffects, kind) => {
    const strategy = checkpointResume({ loadCheckpoint: () => CHECKPOINT, confirmSideEffects });
    const action = await strategy.recover(context({ sideEffects: 'unsafe' }));
    expect(action.kind).toBe(kind);
    if (kind === 'ask_user')
      expect(action).toMatchObject({ reason: 'side_effects_unconfirmed', task: { state: 'FAILED' } });
  });

  it('falls back when another worker took the last resume between the check and the count', async () => {
    const store = new InMemoryCounterStore();
    const racing = {
      get: (key: string) => store.get(key),
      delete: (key: string) => store.delete(key),
      increment: (key: string) => {
        store.increment(key); // the other worker
        return store.increment(key);
      },
    };
    const strategy = checkpointResume({ loadCheckpoint: () => CHECKPOINT, maxResumeAttempts: 1, store: racing });
    expect(await strategy.recover(context())).toMatchObject({ kind: 'reassign', reason: 'resume_attempts_exhausted' });
  });

  it('resumes a task its host closed, back to IN_PROGRESS', async () => {
    const action = await checkpointResume({ loadCheckpoint: () => CHECKPOINT }).recover(
      context({ cause: 'local_lifecycle_close' } as Partial<Incident>, createTask('t1', 'INTERRUPTED')),
    );
    expect(action).toMatchObject({ kind: 'resume', task: { state: 'IN_PROGRESS' }, resumeAttempt: 1 });
  });

  it.each([
    ['a user cancel stops', { cause: 'user_cancel' }, { kind: 'stop', reason: 'user_cancel' }],
    ['a run that succeeded needs nothing', { outcome: 'success', cause: undefined }, { kind: 'none' }],
  ])('%s', async (_case, incident, action) => {
    const strategy = checkpointResume({ loadCheckpoint: () => CHECKPOINT });
    expect(await strategy.recover(context(incident as Partial<Incident>))).toMatchObject(action);
  });

  it('finalize clears the resumes counted for the task execution', async () => {
    const store = new InMemoryCounterStore();
    const strategy = checkpointResume({ loadCheckpoint: () => CHECKPOINT, store });
    await strategy.recover(context());
    expect(store.get('checkpointResume:t1#0')).toBe(1);
    await strategy.finalize(createTask('t1', 'COMPLETED'));
    expect(store.get('checkpointResume:t1#0')).toBeUndefined();
  });
});

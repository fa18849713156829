/**
 * failAndReassign and checkpointResume: the source system's recovery tests
 * (synthorg test_recovery.py / test_crash_recovery.py) as our own, on runs
 * recorded by RunRecorder through the real processor.
 */
import { describe, expect, it } from 'vitest';
import type { RunRecorder } from '../../src/index.js';
import type { Checkpoint, RecoveryAction, RecoveryStrategy, Task } from '../../src/recovery/index.js';
import { attributes as K, incidentAttributes, NATIVE_ATTR, RunRecorder as Recorder } from '../../src/index.js';
import {
  checkpointResume,
  createTask,
  failAndReassign,
  InMemoryCounterStore,
  InvalidTaskTransitionError,
  reassignTask,
} from '../../src/recovery/index.js';
import { createPipeline, errors, LOCAL_TOOLS } from '../support/harness.js';

const SECRET = 'sk-live-secret-prompt-text';

/** A run that streamed text (with a secret in it) for one turn, then dropped in the second. */
function crashedRun(pipeline = createPipeline(), options: { readonly unsafeToolRan?: boolean } = {}): RunRecorder {
  const run = pipeline.startRun();
  const first = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
  first.textOutput();
  first.finish({ finishReasons: ['stop'], usage: { inputTokens: 120, outputTokens: 30, costUsd: 0.002 } });
  const second = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
  if (options.unsafeToolRan) {
    second.toolCallMaterialized({ name: 'bash', sideEffects: 'unsafe' });
    run.startTool({ name: 'bash', sideEffects: 'unsafe', attempt: second });
  }
  second.fail(Object.assign(errors.socketDrop(), { message: `terminated while sending ${SECRET}` }));
  return run;
}

async function recover(strategy: RecoveryStrategy, run: RunRecorder, task: Task): Promise<RecoveryAction> {
  return strategy.recover({ task, incident: run.incident(), attempts: run.attemptHistory(), run });
}

describe('failAndReassign', () => {
  it('reassign happy path: FAILED, reassignable, and the next execution is ASSIGNED with retry count 1', async () => {
    const pipeline = createPipeline();
    const run = crashedRun(pipeline);
    const action = await recover(failAndReassign(), run, createTask('t1', 'IN_PROGRESS'));
    expect(action).toMatchObject({
      kind: 'reassign',
      reason: 'reassignable',
      canReassign: true,
      task: { state: 'FAILED', retryCount: 0 },
    });
    expect(reassignTask(action.task)).toEqual({ id: 't1', state: 'ASSIGNED', retryCount: 1 });
    const incident = run.end();
    expect(incident.recovery).toEqual({ action: 'reassign', reason: 'reassignable', strategy: 'failAndReassign' });
    // The processor's fold and the runtime's record agree, snapshot included.
    const span = pipeline.runSpans()[0]!;
    expect(span.attributes[K.ATTR_INCIDENT_RECOVERY_ACTION]).toBe('reassign');
    expect(Object.fromEntries(Object.keys(incidentAttributes(incident)).map((k) => [k, span.attributes[k]]))).toEqual(
      incidentAttributes(incident),
    );
    const event = span.events.find((e) => e.name === 'agent_incidents.recovery_action')!;
    expect(event.attributes).toMatchObject({
      [NATIVE_ATTR.SNAPSHOT_TURNS]: 1,
      [NATIVE_ATTR.SNAPSHOT_ATTEMPTS]: 2,
      [NATIVE_ATTR.SNAPSHOT_INPUT_TOKENS]: 120,
      [NATIVE_ATTR.SNAPSHOT_OUTPUT_TOKENS]: 30,
      [NATIVE_ATTR.SNAPSHOT_COST_USD]: 0.002,
      [NATIVE_ATTR.TASK_RETRY_COUNT]: 0,
    });
  });

  it('retry exhaustion: the reassigned execution fails again and stays FAILED', async () => {
    const strategy = failAndReassign({ maxRetries: 1 });
    const first = await recover(strategy, crashedRun(), createTask('t2', 'IN_PROGRESS'));
    const next = { ...reassignTask(first.task), state: 'IN_PROGRESS' as const };
    const second = await recover(strategy, crashedRun(), next);
    expect(second).toMatchObject({
      kind: 'fail',
      reason: 'retries_exhausted',
      canReassign: false,
      task: { state: 'FAILED', retryCount: 1 },
    });
    // FAILED is not terminal: an operator may still withdraw it, but never complete it from there.
    expect(() => reassignTask({ ...second.task, state: 'COMPLETED' })).toThrow(InvalidTaskTransitionError);
  });

  it('maxRetries 0: never reassignable', async () => {
    const action = await recover(failAndReassign({ maxRetries: 0 }), crashedRun(), createTask('t3', 'IN_PROGRESS'));
    expect(action).toMatchObject({
      kind: 'fail',
      reason: 'reassign_disabled',
      canReassign: false,
      task: { state: 'FAILED' },
    });
  });

  it('a setup failure before work started fails the ASSIGNED task', async () => {
    const run = createPipeline().startRun();
    run.setupFailure(new Error('bad tool schema'));
    const action = await recover(failAndReassign(), run, createTask('t4', 'ASSIGNED'));
    expect(action).toMatchObject({ kind: 'reassign', task: { state: 'FAILED' } });
  });

  it('the snapshot is redacted: counts, tokens, cost, durations and enums only', async () => {
    const action = await recover(failAndReassign(), crashedRun(), createTask('t5', 'IN_PROGRESS'));
    if (action.kind !== 'reassign') throw new Error(`expected reassign, got ${action.kind}`);
    expect(Object.keys(action.snapshot).sort()).toEqual(
      [
        'attemptDurationsMillis',
        'attempts',
        'cause',
        'causeDetail',
        'costUsd',
        'durationMillis',
        'inputTokens',
        'outcome',
        'outputTokens',
        'phase',
        'recoveredAttempts',
        'turns',
      ].sort(),
    );
    expect(action.snapshot).toMatchObject({
      turns: 1,
      attempts: 2,
      cause: 'provider_transport_disconnect',
      causeDetail: 'socket_closed',
      outcome: 'failed',
    });
    expect(JSON.stringify(action)).not.toContain(SECRET);
    expect(action.snapshot.attemptDurationsMillis).toHaveLength(2);
  });

  it.each([
    {
      promise: 'a user cancel is a stop, and the task is CANCELLED',
      act: (run: RunRecorder) => run.userCancel(),
      kind: 'stop',
      reason: 'user_cancel',
      state: 'CANCELLED',
    },
    {
      promise: 'a lifecycle close is a stop, and the task is INTERRUPTED',
      act: (run: RunRecorder) => run.lifecycleClose({ kind: 'shutdown' }),
      kind: 'stop',
      reason: 'local_lifecycle_close',
      state: 'INTERRUPTED',
    },
    {
      promise: 'a successful run needs nothing',
      act: (run: RunRecorder) => run.startAttempt({ boundary: { tools: [] } }).finish(),
      kind: 'none',
      reason: 'not_failed',
      state: 'IN_PROGRESS',
    },
  ])('$promise', async ({ act, kind, reason, state }) => {
    const run = createPipeline().startRun();
    act(run);
    const action = await recover(failAndReassign(), run, createTask('t6', 'IN_PROGRESS'));
    expect(action).toMatchObject({ kind, reason, task: { state } });
  });

  it('rejects a negative or fractional maxRetries, naming the option', () => {
    expect(() => failAndReassign({ maxRetries: -1 })).toThrow(/failAndReassign: maxRetries/);
    expect(() => failAndReassign({ maxRetries: 1.5 })).toThrow(/maxRetries must be an integer/);
  });
});

describe('checkpointResume', () => {
  const checkpoint: Checkpoint = { id: 'cp-7', turn: 1, data: { messages: 3 } };

  it('resumes twice from the checkpoint, then falls back to fail-and-reassign', async () => {
    const strategy = checkpointResume({ loadCheckpoint: () => checkpoint });
    const task = createTask('c1', 'IN_PROGRESS');
    const actions = [];
    for (let i = 0; i < 3; i++) actions.push(await recover(strategy, crashedRun(), task));
    expect(actions.map((a) => [a.kind, a.reason])).toEqual([
      ['resume', 'checkpoint_available'],
      ['resume', 'checkpoint_available'],
      ['reassign', 'resume_attempts_exhausted'],
    ]);
    expect(actions[0]).toMatchObject({ resumeAttempt: 1, checkpoint, task: { state: 'IN_PROGRESS' } });
    expect(actions[1]).toMatchObject({ resumeAttempt: 2 });
    expect(actions[2]).toMatchObject({ task: { state: 'FAILED' }, canReassign: true });
    // The fallback spent the counter: the reassigned execution may resume again.
    expect(
      await recover(strategy, crashedRun(), { ...reassignTask(actions[2]!.task), state: 'IN_PROGRESS' }),
    ).toMatchObject({ kind: 'resume', resumeAttempt: 1 });
  });

  it.each([
    { promise: 'no checkpoint', loadCheckpoint: () => undefined },
    { promise: 'a checkpoint that cannot be read', loadCheckpoint: () => Promise.reject(new Error('disk gone')) },
  ])('$promise → fallback to fail-and-reassign', async ({ loadCheckpoint }) => {
    const action = await recover(checkpointResume({ loadCheckpoint }), crashedRun(), createTask('c2', 'IN_PROGRESS'));
    expect(action).toMatchObject({
      kind: 'reassign',
      reason: 'no_checkpoint',
      strategy: 'checkpointResume',
      task: { state: 'FAILED' },
    });
  });

  it('with maxResumeAttempts 0 it never resumes', async () => {
    const action = await recover(
      checkpointResume({ loadCheckpoint: () => checkpoint, maxResumeAttempts: 0 }),
      crashedRun(),
      createTask('c3', 'IN_PROGRESS'),
    );
    expect(action).toMatchObject({ kind: 'reassign', reason: 'resume_attempts_exhausted' });
  });

  it('refuses to resume over an unsafe tool that may have run, until the runtime confirms it', async () => {
    const task = createTask('c4', 'IN_PROGRESS');
    const refused = await recover(
      checkpointResume({ loadCheckpoint: () => checkpoint }),
      crashedRun(createPipeline(), { unsafeToolRan: true }),
      task,
    );
    expect(refused).toMatchObject({ kind: 'ask_user', reason: 'side_effects_unconfirmed', task: { state: 'FAILED' } });
    const seen: string[] = [];
    const confirmed = await recover(
      checkpointResume({
        loadCheckpoint: () => checkpoint,
        confirmSideEffects: (context) => {
          seen.push(context.incident.retrySafetyReason ?? '');
          return true;
        },
      }),
      crashedRun(createPipeline(), { unsafeToolRan: true }),
      task,
    );
    expect(confirmed).toMatchObject({ kind: 'resume' });
    expect(seen).toEqual(['unsafe_side_effect_started']);
  });

  it.each([
    { as: 'resume' as const, attribute: NATIVE_ATTR.RESUME_ATTEMPT, link: 'resume_of' },
    { as: 'reassign' as const, attribute: NATIVE_ATTR.TASK_RETRY_COUNT, link: 'reassign_of' },
  ])('a run that continues a failed one ($as) links to it and carries its number', async ({ as, attribute, link }) => {
    const pipeline = createPipeline();
    const failed = crashedRun(pipeline);
    const strategy = as === 'resume' ? checkpointResume({ loadCheckpoint: () => checkpoint }) : failAndReassign();
    const action = await recover(strategy, failed, createTask('c5', 'IN_PROGRESS'));
    failed.end();
    expect(action.kind).toBe(as);
    const continues = {
      spanContext: failed.span.spanContext(),
      as,
      ...(as === 'resume' ? { resumeAttempt: 1 } : { taskRetryCount: 1 }),
    };
    const next = Recorder.start({ tracer: pipeline.tracer, continues });
    next.startAttempt({ boundary: { tools: [] } }).finish();
    next.end();
    const [first, second] = pipeline.runSpans();
    expect(second!.attributes[attribute]).toBe(1);
    expect(second!.links.map((l) => [l.context.spanId, l.attributes?.[NATIVE_ATTR.LINK_TYPE]])).toEqual([
      [failed.span.spanContext().spanId, link],
    ]);
    expect(first!.attributes[K.ATTR_INCIDENT_RECOVERY_ACTION]).toBe(as);
  });

  it('finalize clears the resume counter of a completed execution', async () => {
    const store = new InMemoryCounterStore();
    const strategy = checkpointResume({ loadCheckpoint: () => checkpoint, store });
    const task = createTask('c6', 'IN_PROGRESS');
    await recover(strategy, crashedRun(), task);
    expect(store.get('checkpointResume:c6#0')).toBe(1);
    await strategy.finalize(task);
    expect(store.get('checkpointResume:c6#0')).toBeUndefined();
  });

  it('rejects a missing loadCheckpoint and a bad maxResumeAttempts', () => {
    expect(() => checkpointResume({} as never)).toThrow(/loadCheckpoint must be a function/);
    expect(() => checkpointResume({ loadCheckpoint: () => undefined, maxResumeAttempts: -2 })).toThrow(
      /maxResumeAttempts/,
    );
  });
});

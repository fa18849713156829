/**
 * safeRetry at runtime level: a custom agent loop (the real `openai` SDK,
 * its own retries off) against the fake provider on 127.0.0.1, recorded by
 * RunRecorder into a real tracer provider running IncidentSpanProcessor.
 * Every case checks that the runtime's own verdict equals the exported one.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Incident, RunRecorder } from '../../src/index.js';
import type { CounterStore, RecoveryStrategy, Task } from '../../src/recovery/index.js';
import { attributes as K, incidentAttributes, NATIVE_ATTR } from '../../src/index.js';
import { createTask, reassignTask, safeRetry } from '../../src/recovery/index.js';
import type { FakeProvider, Reply } from '../../src/testing/fake-provider.js';
import { reply, startFakeProvider } from '../../src/testing/fake-provider.js';
import { watchTimers } from '../support/armed-timers.js';
import { createPipeline } from '../support/harness.js';
import { waitFor as waitUntil } from '../support/wait-for.js';
import { runTurn } from './agent-loop.js';
import type { TurnResult } from './agent-loop.js';

// One provider per test: a reply a test leaves queued must not answer the next one.
let provider: FakeProvider;
beforeEach(async () => {
  provider = await startFakeProvider();
});
afterEach(async () => {
  await provider.close();
});

/** Fast backoff: the tests are about decisions, not about waiting. */
const FAST = { baseDelayMillis: 5, maxDelayMillis: 20 } as const;

interface Played {
  readonly turn: TurnResult;
  readonly incident: Incident;
  readonly run: ReadableSpan;
  readonly attempts: readonly ReadableSpan[];
}

/**
 * Plays one turn with `replies` queued, ends the run, and asserts that the
 * exported run span carries exactly the runtime's own verdict.
 */
async function play(
  replies: readonly Reply[],
  options: {
    readonly strategy?: RecoveryStrategy;
    readonly maxAutoRetries?: number;
    readonly task?: Task;
    readonly onAttempt?: (run: RunRecorder, number: number) => void;
  } = {},
): Promise<Played> {
  // The runtime and the processor judge with the same policy, as a deployment must configure them.
  const policy = { maxAutoRetries: options.maxAutoRetries ?? 1 };
  const pipeline = createPipeline({ policy });
  provider.enqueue(...replies);
  const run = pipeline.startRun({ policy });
  const turn = await runTurn({
    baseURL: provider.baseURL,
    run,
    strategy: options.strategy ?? safeRetry(FAST),
    task: options.task ?? createTask('task-1', 'ASSIGNED'),
    onAttempt: (number) => options.onAttempt?.(run, number),
  });
  const incident = run.end();
  await pipeline.provider.forceFlush();
  const runSpan = pipeline.runSpans()[0]!;
  const own = incidentAttributes(incident);
  expect(Object.fromEntries(Object.keys(own).map((key) => [key, runSpan.attributes[key]]))).toEqual(own);
  const attempts = pipeline.spans().filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
  return { turn, incident, run: runSpan, attempts };
}

const answer = reply.text(['Hel', 'lo']);

describe('safeRetry in a runtime (rows of test/scenarios.test.ts)', () => {
  it('row 2: a connect watchdog is retried automatically and the run reads recovered', async () => {
    const { turn, incident, run, attempts } = await play([reply.stall(), answer]);
    expect(turn.text).toBe('Hello');
    expect(turn.actions.map((a) => [a.kind, a.reason])).toEqual([['retry', 'auto_retry_allowed']]);
    expect(incident).toMatchObject({
      outcome: 'recovered',
      cause: 'watchdog_timeout',
      causeDetail: 'connect',
      attempts: 2,
      recoveredAttempts: 1,
    });
    expect(run.attributes[K.ATTR_INCIDENT_RECOVERY_ACTION]).toBe('retry');
    expect(run.attributes[K.ATTR_INCIDENT_RECOVERY_STRATEGY]).toBe('safeRetry');
    // The retry is linked to the attempt it retries, and says which one.
    const [first, second] = attempts;
    expect(second!.attributes[NATIVE_ATTR.RETRY_OF_ATTEMPT]).toBe(1);
    expect(second!.links.map((l) => [l.context.spanId, l.attributes?.[NATIVE_ATTR.LINK_TYPE]])).toEqual([
      [first!.spanContext().spanId, 'retry_of'],
    ]);
    expect(first!.attributes[K.ATTR_INCIDENT_ATTEMPT_CAUSE]).toBe('watchdog_timeout');
  });

  it('row 3: a second connect watchdog with the budget of 1 spent asks the user', async () => {
    const { turn, incident, run } = await play([reply.stall(), reply.stall()]);
    expect(turn.actions.map((a) => [a.kind, a.reason])).toEqual([
      ['retry', 'auto_retry_allowed'],
      ['ask_user', 'retry_budget_exhausted'],
    ]);
    expect(incident).toMatchObject({
      outcome: 'failed',
      cause: 'watchdog_timeout',
      causeDetail: 'connect',
      phase: 'before_first_provider_progress',
      retrySafety: 'ask_user_before_retry',
      retrySafetyReason: 'retry_budget_exhausted',
      attempts: 2,
    });
    expect(turn.task.state).toBe('FAILED');
    expect(run.attributes[K.ATTR_INCIDENT_RECOVERY_ACTION]).toBe('ask_user');
  });

  it('row 23: a user stop during the backoff abandons the retry; the run is cancelled, not recovered', async () => {
    const pipeline = createPipeline();
    provider.enqueue(reply.stall(), answer);
    const run = pipeline.startRun();
    const strategy = safeRetry({ baseDelayMillis: 2_000, maxDelayMillis: 2_000 });
    const timers = watchTimers();
    let result: TurnResult;
    try {
      // The stop arrives once the retry is issued: during the 1–2 s backoff, which is armed with it.
      const turn = runTurn({ baseURL: provider.baseURL, run, strategy, task: createTask('cancel', 'ASSIGNED') });
      await waitFor(() => run.attemptHistory()[0]?.retried === true);
      run.userCancel('user_stop');
      result = await turn;
    } finally {
      timers.restore();
    }
    // The backoff was armed for its 1–2 s and the stop cleared it: the turn ended without waiting it out.
    const backoffs = timers.armed().filter((timer) => timer.ms >= 1_000 && timer.ms <= 2_000);
    expect(backoffs).toHaveLength(1);
    expect(backoffs[0]!.cleared()).toBe(true);
    expect(result.actions.map((a) => [a.kind, a.reason])).toEqual([['stop', 'user_cancel']]);
    expect(result.task.state).toBe('CANCELLED');
    const incident = run.end();
    expect(incident).toMatchObject({
      outcome: 'cancelled',
      cause: 'user_cancel',
      retrySafety: 'do_not_retry',
      retrySafetyReason: 'user_cancel',
      recoveredAttempts: 0,
      attempts: 1,
    });
    const exported = pipeline.runSpans()[0]!.attributes;
    expect(exported[K.ATTR_INCIDENT_OUTCOME]).toBe('cancelled');
    expect(exported[K.ATTR_INCIDENT_RECOVERY_ACTION]).toBe('stop');
    expect(exported[K.ATTR_INCIDENT_RECOVERED_ATTEMPTS]).toBe(0);
    // The retry was never sent.
    expect(provider.requests).toHaveLength(1);
  });

  it('a lifecycle close during the backoff abandons the retry; the run is closed, never recovered', async () => {
    const pipeline = createPipeline();
    provider.enqueue(reply.stall());
    const run = pipeline.startRun();
    const strategy = safeRetry({ baseDelayMillis: 2_000, maxDelayMillis: 2_000 });
    const turn = runTurn({ baseURL: provider.baseURL, run, strategy, task: createTask('reload', 'ASSIGNED') });
    await waitFor(() => run.attemptHistory()[0]?.retried === true);
    run.lifecycleClose({ kind: 'instance_reload' });
    const result = await turn;
    expect(result.actions.map((a) => [a.kind, a.reason])).toEqual([['stop', 'local_lifecycle_close']]);
    expect(result.task.state).toBe('INTERRUPTED');
    const incident = run.end();
    expect(incident).toMatchObject({
      outcome: 'failed',
      cause: 'local_lifecycle_close',
      causeDetail: 'instance_reload',
      retrySafety: 'do_not_retry',
      recoveredAttempts: 0,
    });
    expect(pipeline.runSpans()[0]!.attributes[K.ATTR_INCIDENT_OUTCOME]).toBe('failed');
  });

  it('row 26: 503 on both attempts with a budget of 1 asks the user', async () => {
    const { turn, incident } = await play([reply.status(503), reply.status(503)]);
    expect(turn.actions.map((a) => a.kind)).toEqual(['retry', 'ask_user']);
    expect(incident).toMatchObject({
      outcome: 'failed',
      cause: 'provider_api_error',
      causeDetail: 'server_overload',
      retrySafety: 'ask_user_before_retry',
      retrySafetyReason: 'retry_budget_exhausted',
      attempts: 2,
      errorCode: 'http_503',
    });
  });

  it('row 28: a 429 then a success is recovered, and the retry waited what retry-after asked', async () => {
    const timers = watchTimers();
    let played: Played;
    try {
      played = await play([reply.status(429, { 'retry-after-ms': '300' }), answer]);
    } finally {
      timers.restore();
    }
    const { turn, incident, run } = played;
    // The wait was one 300 ms timer that ran out (nothing cleared it) before the retry went.
    const waits = timers.armed().filter((timer) => timer.ms === 300);
    expect(waits).toHaveLength(1);
    expect(waits[0]!.cleared()).toBe(false);
    const [retry] = turn.actions;
    expect(retry).toMatchObject({ kind: 'retry', delayMillis: 300 });
    expect(incident).toMatchObject({
      outcome: 'recovered',
      cause: 'provider_api_error',
      causeDetail: 'rate_limit',
      recoveredAttempts: 1,
    });
    const issued = run.events.find((e) => e.name === 'agent_incidents.retry_issued');
    expect(issued?.attributes?.[NATIVE_ATTR.RETRY_DELAY_MS]).toBe(300);
  });

  it('retry-after in seconds is honoured over the (shorter) backoff', async () => {
    const { turn } = await play([reply.status(429, { 'retry-after': '1' }), answer]);
    expect(turn.actions[0]).toMatchObject({ kind: 'retry', delayMillis: 1_000 });
  });

  it('a retry-after longer than maxRetryAfterMillis asks the user instead of waiting', async () => {
    const { turn, incident } = await play([reply.status(429, { 'retry-after': '120' })], {
      strategy: safeRetry({ ...FAST, maxRetryAfterMillis: 60_000 }),
    });
    expect(turn.actions.map((a) => [a.kind, a.reason])).toEqual([['ask_user', 'retry_after_too_long']]);
    expect(incident).toMatchObject({
      retrySafety: 'auto_retry',
      recovery: { action: 'ask_user', reason: 'retry_after_too_long', strategy: 'safeRetry' },
    });
  });

  it('row 30: after a recovered watchdog, text then a drop is not replayed (decided on attempt 2)', async () => {
    const { turn, incident } = await play([
      reply.stall(),
      reply.script({ type: 'text', text: 'Hel' }, { type: 'destroy' }),
    ]);
    expect(turn.actions.map((a) => [a.kind, a.reason])).toEqual([
      ['retry', 'auto_retry_allowed'],
      ['offer_continue', 'not_auto_retryable'],
    ]);
    expect(incident).toMatchObject({
      cause: 'provider_transport_disconnect',
      phase: 'text_generation',
      retrySafety: 'offer_continue',
      retrySafetyReason: 'visible_output_without_tool_execution',
    });
  });

  it.each([
    {
      promise: 'a second failure with visible text is not replayed even with budget left',
      replies: [reply.stall(), reply.script({ type: 'text', text: 'Hel' }, { type: 'destroy' })],
      actions: ['retry', 'offer_continue'],
      verdict: { retrySafety: 'offer_continue', retrySafetyReason: 'visible_output_without_tool_execution' },
    },
    {
      promise: 'a second failure that is final (quota) stops even though the first was retryable',
      replies: [reply.status(503), reply.insufficientQuota()],
      actions: ['retry', 'stop'],
      verdict: {
        causeDetail: 'quota_exhausted',
        retrySafety: 'do_not_retry',
        retrySafetyReason: 'not_retryable_error',
      },
    },
    {
      promise: 'a second clean failure is retried again while budget remains',
      replies: [reply.stall(), reply.status(503), answer],
      actions: ['retry', 'retry'],
      verdict: { outcome: 'recovered', causeDetail: 'server_overload', recoveredAttempts: 2 },
    },
  ])('the second failure is decided on the second attempt’s facts: $promise', async ({ replies, actions, verdict }) => {
    const { turn, incident } = await play(replies, {
      strategy: safeRetry({ ...FAST, maxAutoRetries: 2 }),
      maxAutoRetries: 2,
    });
    expect(turn.actions.map((a) => a.kind)).toEqual(actions);
    expect(incident).toMatchObject(verdict);
  });

  it('an agent process that exited with a stream error before any attempt is retried as a whole run', async () => {
    const run = createPipeline().startRun();
    run.processExit({ closeReason: 'stream_error', exitCode: 1 });
    expect(run.incident()).toMatchObject({ cause: 'process_exit', retrySafety: 'auto_retry' });
    const action = await safeRetry(FAST).recover({
      task: createTask('p', 'IN_PROGRESS'),
      incident: run.incident(),
      attempts: run.attemptHistory(),
      run,
    });
    expect(action).toMatchObject({ kind: 'retry', attempt: 0 });
  });

  it('after a tool ran in the failed attempt, safeRetry asks instead of retrying', async () => {
    // The model calls the unsafe tool; the loop runs it; the next request's stream then stalls.
    // Rule 12 allows retrying that next request (no tool ran in it): this case shows the other
    // side — the tool's own attempt ended the run while the tool ran.
    const pipeline = createPipeline();
    const run = pipeline.startRun();
    const attempt = run.startAttempt({ boundary: { tools: [{ name: 'write_file', sideEffects: 'unsafe' }] } });
    attempt.toolCallMaterialized({ name: 'write_file', sideEffects: 'unsafe' });
    run.startTool({ name: 'write_file', sideEffects: 'unsafe', attempt });
    attempt.fail(
      Object.assign(new TypeError('terminated'), { cause: { code: 'UND_ERR_SOCKET', name: 'SocketError' } }),
    );
    const action = await safeRetry(FAST).recover({
      task: createTask('t', 'IN_PROGRESS'),
      incident: run.incident(),
      attempts: run.attemptHistory(),
      run,
    });
    expect(action).toMatchObject({ kind: 'ask_user', reason: 'not_auto_retryable' });
    expect(run.end()).toMatchObject({
      retrySafety: 'ask_user_before_retry',
      retrySafetyReason: 'unsafe_side_effect_started',
      recovery: { action: 'ask_user' },
    });
  });
});

/** A CounterStore in a JSON file: what a runtime's restart-safe store looks like (one process, so not locked). */
class JsonFileStore implements CounterStore {
  constructor(private readonly path: string) {}
  async #read(): Promise<Record<string, number>> {
    try {
      return JSON.parse(await readFile(this.path, 'utf8')) as Record<string, number>;
    } catch {
      return {};
    }
  }
  async get(key: string): Promise<number | undefined> {
    return (await this.#read())[key];
  }
  async increment(key: string): Promise<number> {
    const values = await this.#read();
    values[key] = (values[key] ?? 0) + 1;
    await writeFile(this.path, JSON.stringify(values));
    return values[key];
  }
  async delete(key: string): Promise<void> {
    const values = await this.#read();
    delete values[key];
    await writeFile(this.path, JSON.stringify(values));
  }
}

describe('safeRetry budget across a restart', () => {
  it('a budget kept in a persistent store is not handed out again after a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-incidents-budget-'));
    try {
      const path = join(dir, 'budgets.json');
      // Process 1: the first attempt times out, the retry is issued, then the process dies in the backoff.
      const before = createPipeline();
      const crashed = before.startRun();
      const first = crashed.startAttempt({ boundary: { tools: [] } });
      first.watchdogFired({ phase: 'connect' });
      const dying = safeRetry({ baseDelayMillis: 60_000, maxDelayMillis: 60_000, store: new JsonFileStore(path) });
      void dying.recover({
        task: createTask('task-r', 'IN_PROGRESS'),
        incident: crashed.incident(),
        attempts: crashed.attemptHistory(),
        run: crashed,
      });
      await waitFor(() => crashed.attemptHistory()[0]?.retried === true);
      crashed.lifecycleClose({ kind: 'shutdown' }); // ends the pending wait, as the process exit would

      // Process 2: a new strategy and a new store object over the same file; the run starts over.
      const after = createPipeline();
      provider.enqueue(reply.stall());
      const run = after.startRun();
      const turn = await runTurn({
        baseURL: provider.baseURL,
        run,
        strategy: safeRetry({ ...FAST, store: new JsonFileStore(path) }),
        task: createTask('task-r', 'ASSIGNED'),
      });
      // The fresh run alone would allow a retry; the persisted budget does not.
      expect(run.incident().retrySafety).toBe('auto_retry');
      expect(turn.actions.map((a) => [a.kind, a.reason])).toEqual([['ask_user', 'retry_budget_exhausted']]);
      expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ 'safeRetry:task-r#0': 1 });
      run.end();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('finalize clears the budget of a completed task execution; a reassigned execution has its own', async () => {
    const strategy = safeRetry(FAST);
    const task = createTask('task-f', 'ASSIGNED');
    const played = await play([reply.stall(), answer], { strategy, task });
    expect(played.turn.task.state).toBe('COMPLETED');
    const again = await play([reply.stall()], { strategy, task });
    expect(again.turn.actions.map((a) => a.reason)).toEqual(['retry_budget_exhausted']);
    expect(again.turn.task.state).toBe('FAILED');
    // Reassigned, the task is a new execution with its own budget.
    const reassigned = await play([reply.stall(), answer], { strategy, task: reassignTask(again.turn.task) });
    expect(reassigned.turn.actions.map((a) => a.kind)).toEqual(['retry']);
    // Finalized, the first execution's budget is free again.
    await strategy.finalize(task);
    const fresh = await play([reply.stall(), answer], { strategy, task });
    expect(fresh.turn.actions.map((a) => a.kind)).toEqual(['retry']);
  });
});

/** Waits until `condition` holds: here always that the strategy issued its retry and is in its backoff. */
function waitFor(condition: () => boolean): Promise<void> {
  return waitUntil(condition, { what: 'the retry issued (the strategy in its backoff)', intervalMs: 5 });
}

/**
 * Strategies by name from configuration, and the small pure parts recovery
 * stands on: backoff, the counter store, retry-after parsing, the decoding
 * of recorded actions.
 */
import { parse } from 'yaml';
import { describe, expect, it, vi } from 'vitest';
import type { RecoveryStrategy } from '../../src/recovery/index.js';
import {
  backoffDelay,
  createRecoveryRegistry,
  createTask,
  InMemoryCounterStore,
  RecoveryConfigError,
} from '../../src/recovery/index.js';
import { describeError, retryAfterMillis } from '../../src/derive/classify-error.js';
import { waitUnlessAborted } from '../../src/recovery/backoff.js';
import { decodeNativeEvent } from '../../src/conventions/native-events.js';
import { createPipeline } from '../support/harness.js';

describe('recovery registry', () => {
  it('builds each built-in strategy by its configured name', () => {
    const registry = createRecoveryRegistry();
    expect(registry.names()).toEqual(['safeRetry', 'failAndReassign', 'checkpointResume']);
    expect(registry.create({ strategy: 'safeRetry', options: { maxAutoRetries: 2 } }).name).toBe('safeRetry');
    expect(registry.create({ strategy: 'failAndReassign' }).name).toBe('failAndReassign');
    expect(registry.create({ strategy: 'checkpointResume' }, { loadCheckpoint: () => undefined }).name).toBe(
      'checkpointResume',
    );
  });

  it('reads the configuration as written in YAML', async () => {
    const config = parse('strategy: failAndReassign\noptions:\n  maxRetries: 0\n');
    const strategy = createRecoveryRegistry().create(config);
    const run = createPipeline().startRun();
    run.setupFailure(new Error('x'));
    const action = await strategy.recover({
      task: createTask('y', 'ASSIGNED'),
      incident: run.incident(),
      attempts: run.attemptHistory(),
    });
    expect(action).toMatchObject({ kind: 'fail', reason: 'reassign_disabled' });
  });

  it.each([
    {
      promise: 'an unknown strategy names the registered ones',
      config: { strategy: 'yolo' },
      message: /recovery.strategy: unknown strategy "yolo"; registered: safeRetry, failAndReassign, checkpointResume/,
    },
    {
      promise: 'a wrong option type names the option',
      config: { strategy: 'safeRetry', options: { maxAutoRetries: 'two' } },
      message: /recovery.options.maxAutoRetries/,
    },
    {
      promise: 'a wait longer than a timer can hold is refused',
      config: { strategy: 'safeRetry', options: { maxRetryAfterMillis: 2 ** 31 } },
      message: /recovery.options.maxRetryAfterMillis/,
    },
    {
      promise: 'a negative option names the option',
      config: { strategy: 'failAndReassign', options: { maxRetries: -1 } },
      message: /recovery.options.maxRetries/,
    },
    {
      promise: 'an unknown option is refused, not ignored',
      config: { strategy: 'safeRetry', options: { maxRetries: 2 } },
      message: /recovery.options: Unrecognized key.*maxRetries/,
    },
    {
      promise: 'an unknown top-level key is refused',
      config: { strategy: 'safeRetry', retries: 2 },
      message: /recovery: Unrecognized key.*retries/,
    },
    { promise: 'a missing strategy is refused', config: {}, message: /recovery.strategy/ },
    {
      promise: 'checkpointResume without a checkpoint loader says what it needs',
      config: { strategy: 'checkpointResume' },
      message: /needs services.loadCheckpoint/,
    },
  ])('$promise', ({ config, message }) => {
    const create = () => createRecoveryRegistry().create(config);
    expect(create).toThrow(RecoveryConfigError);
    expect(create).toThrow(message);
  });

  it('registers a runtime’s own strategy, recorded under its configured name', async () => {
    const always: RecoveryStrategy = {
      name: 'whatever',
      recover: async (context) => ({
        kind: 'ask_user',
        reason: 'not_auto_retryable',
        strategy: 'pageOncall',
        task: context.task,
      }),
      finalize: async () => {},
    };
    const registry = createRecoveryRegistry().register('pageOncall', () => always);
    const strategy = registry.create({ strategy: 'pageOncall' });
    expect(strategy.name).toBe('pageOncall');
    expect(() => registry.register('pageOncall', () => always)).toThrow(/already registered/);
    expect(() => registry.register('page oncall!', () => always)).toThrow(/strategy name must match/);
  });
});

describe('backoffDelay', () => {
  const options = { baseDelayMillis: 1_000, maxDelayMillis: 8_000 };
  it.each([
    { retry: 1, low: 500, high: 1_000 },
    { retry: 2, low: 1_000, high: 2_000 },
    { retry: 3, low: 2_000, high: 4_000 },
    { retry: 4, low: 4_000, high: 8_000 },
    { retry: 10, low: 4_000, high: 8_000 },
  ])('retry $retry waits between $low and $high ms (equal jitter, capped)', ({ retry, low, high }) => {
    expect(backoffDelay(retry, options, () => 0)).toBe(low);
    expect(backoffDelay(retry, options, () => 0.999999)).toBe(high);
    expect(backoffDelay(retry, options, () => 0.5)).toBe((low + high) / 2);
  });

  it('stays in bounds for a random source out of range and absurd retry numbers', () => {
    expect(backoffDelay(1, options, () => 7)).toBe(1_000);
    expect(backoffDelay(1, options, () => -1)).toBe(500);
    expect(backoffDelay(1e9, options, () => 0.5)).toBe(6_000);
  });
});

describe('waitUnlessAborted', () => {
  it('resolves true after the wait, false at once for an aborted signal, false when aborted during it', async () => {
    expect(await waitUnlessAborted(1)).toBe(true);
    expect(await waitUnlessAborted(10_000, AbortSignal.abort())).toBe(false);
    // Aborted 1 ms before its 10 s are up, on fake timers: it ends at the abort, false, and leaves no timer behind.
    vi.useFakeTimers();
    try {
      const controller = new AbortController();
      let waited: boolean | undefined;
      const waiting = waitUnlessAborted(10_000, controller.signal).then((result) => (waited = result));
      await vi.advanceTimersByTimeAsync(9_999);
      expect(waited).toBeUndefined();
      controller.abort();
      await waiting;
      expect(waited).toBe(false);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('InMemoryCounterStore', () => {
  it('keeps at most maxKeys counters, dropping the least recently changed', () => {
    const store = new InMemoryCounterStore({ maxKeys: 2 });
    store.increment('a');
    store.increment('b');
    expect(store.increment('a')).toBe(2);
    store.increment('c');
    expect([store.get('a'), store.get('b'), store.get('c'), store.size]).toEqual([2, undefined, 1, 2]);
    expect(() => new InMemoryCounterStore({ maxKeys: 0 })).toThrow(/maxKeys/);
  });
});

describe('retry-after', () => {
  const now = Date.parse('2026-11-22T12:00:00Z');
  it.each([
    {
      promise: 'retry-after-ms wins (OpenAI)',
      error: { status: 429, headers: new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }) },
      millis: 250,
    },
    {
      promise: 'retry-after in seconds',
      error: { status: 429, headers: new Headers({ 'retry-after': '2' }) },
      millis: 2_000,
    },
    {
      promise: 'retry-after as an HTTP date',
      error: { status: 503, headers: { 'Retry-After': 'Sun, 22 Nov 2026 12:00:05 GMT' } },
      millis: 5_000,
    },
    {
      promise: 'a date in the past is no wait',
      error: { headers: { 'retry-after': 'Sun, 22 Nov 2026 11:00:00 GMT' } },
      millis: 0,
    },
    {
      promise: 'AI SDK responseHeaders, found through the cause chain',
      error: { name: 'AI_RetryError', cause: { statusCode: 429, responseHeaders: { 'retry-after': '3' } } },
      millis: 3_000,
    },
    { promise: 'garbage is no wait, never a guess', error: { headers: { 'retry-after': 'soon' } }, millis: undefined },
    { promise: 'a negative number is no wait', error: { headers: { 'retry-after-ms': '-5' } }, millis: undefined },
    {
      promise: 'a negative number of seconds is no wait (not a date)',
      error: { headers: { 'retry-after': '-5' } },
      millis: undefined,
    },
    {
      promise: 'text that Date.parse would read is no wait',
      error: { headers: { 'retry-after': 'tomorrow 1' } },
      millis: undefined,
    },
    {
      promise: 'an RFC 850 date',
      error: { headers: { 'retry-after': 'Sunday, 22-Nov-26 12:00:03 GMT' } },
      millis: 3_000,
    },
    { promise: 'an asctime date', error: { headers: { 'retry-after': 'Sun Nov 22 12:00:04 2026' } }, millis: 4_000 },
    { promise: 'no headers', error: new Error('boom'), millis: undefined },
  ])('$promise', ({ error, millis }) => {
    expect(retryAfterMillis(describeError(error).retryAfter, now)).toBe(millis);
  });
});

describe('recorded recovery actions', () => {
  it.each([
    {
      promise: 'a known action is read back',
      attributes: {
        'agent_incidents.recovery.action': 'retry',
        'agent_incidents.recovery.reason': 'auto_retry_allowed',
        'agent_incidents.recovery.strategy': 'safeRetry',
      },
      fact: { kind: 'recovery_action', action: 'retry', reason: 'auto_retry_allowed', strategy: 'safeRetry' },
    },
    {
      promise: 'an unknown reason reads unknown',
      attributes: { 'agent_incidents.recovery.action': 'stop', 'agent_incidents.recovery.reason': 'vibes' },
      fact: { kind: 'recovery_action', action: 'stop', reason: 'unknown', strategy: 'custom' },
    },
    {
      promise: 'a strategy name that is free text is not kept',
      attributes: {
        'agent_incidents.recovery.action': 'fail',
        'agent_incidents.recovery.strategy': 'retry because user said "please"',
      },
      fact: { strategy: 'custom' },
    },
    {
      promise: 'an unknown action is ignored',
      attributes: { 'agent_incidents.recovery.action': 'pray' },
      fact: undefined,
    },
  ])('$promise', ({ attributes, fact }) => {
    const decoded = decodeNativeEvent(
      { name: 'agent_incidents.recovery_action', timeMillis: 1, attributes },
      () => undefined,
    );
    if (fact === undefined) expect(decoded).toBeUndefined();
    else expect(decoded).toMatchObject(fact);
  });

  it('the last action recorded is the run’s, and it never changes cause, phase or retry safety', () => {
    const run = createPipeline().startRun();
    run.startAttempt({ boundary: { tools: [] } }).watchdogFired({ phase: 'connect' });
    const before = run.incident();
    run.recoveryAction({ action: 'retry', reason: 'auto_retry_allowed', strategy: 'safeRetry' });
    run.recoveryAction({ action: 'stop', reason: 'user_cancel', strategy: 'safeRetry' });
    const after = run.incident();
    expect(after.recovery).toEqual({ action: 'stop', reason: 'user_cancel', strategy: 'safeRetry' });
    expect({ ...after, recovery: undefined }).toEqual({ ...before, recovery: undefined });
  });
});

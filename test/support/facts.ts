/**
 * Builders for pure derivation tests: a run is a list of facts on a timeline,
 * written in the order they happened.
 */
import type { AttemptRecord, Fact, FactDraft, RunFacts, SideEffectBoundary } from '../../src/model/facts.js';

type Distribute<T> = T extends unknown ? Omit<T, 'timeMillis' | 'attempt'> : never;
type Step = Distribute<FactDraft> & { attempt?: number; at?: number };

/** A complete boundary of classified local tools. */
export const COMPLETE: SideEffectBoundary = {
  tools: [
    { name: 'read', sideEffects: 'read_only', providerExecuted: false },
    { name: 'bash', sideEffects: 'unsafe', providerExecuted: false },
  ],
  external: false,
};

/**
 * Builds {@link RunFacts}: `attempts` is how many attempts exist, each starting
 * just before its first fact; facts get times 10, 20, 30… unless `at` is given.
 */
export function runOf(attemptCount: number, steps: Step[], extra: Partial<RunFacts> = {}): RunFacts {
  const key = (n: number) => `a${n}`;
  const facts: Fact[] = steps.map((step, i) => {
    const { attempt, at, ...rest } = step;
    return {
      ...rest,
      timeMillis: at ?? (i + 1) * 10,
      seq: i + 1,
      attempt: attempt === undefined ? undefined : key(attempt),
    } as Fact;
  });
  const attempts: AttemptRecord[] = [];
  for (let n = 1; n <= attemptCount; n += 1) {
    const first = facts.find((f) => f.attempt === key(n));
    attempts.push({ key: key(n), number: n, startMillis: (first?.timeMillis ?? n * 1000) - 1 });
  }
  return { facts, attempts, ...extra };
}

/** Attempt-scoped step shorthands. */
export const on = (attempt: number) => ({
  boundary: (boundary: SideEffectBoundary = COMPLETE): Step => ({ attempt, kind: 'side_effect_boundary', boundary }),
  progress: (): Step => ({ attempt, kind: 'provider_progress' }),
  text: (): Step => ({ attempt, kind: 'text_output_started' }),
  reasoning: (): Step => ({ attempt, kind: 'reasoning_output_started' }),
  toolInput: (): Step => ({ attempt, kind: 'tool_input_started', providerExecuted: false }),
  toolInputDone: (): Step => ({ attempt, kind: 'tool_input_completed' }),
  call: (sideEffects: 'read_only' | 'unsafe' | 'unknown', providerExecuted = false): Step => ({
    attempt,
    kind: 'tool_call_materialized',
    sideEffects,
    providerExecuted,
  }),
  exec: (sideEffects: 'read_only' | 'unsafe' | 'unknown'): Step => ({
    attempt,
    kind: 'tool_execution_started',
    sideEffects,
  }),
  execDone: (): Step => ({ attempt, kind: 'tool_execution_completed', startSeen: true }),
  drop: (): Step => ({
    attempt,
    kind: 'provider_error',
    error: { kind: 'transport', detail: 'socket_closed', code: 'UND_ERR_SOCKET', retryable: true },
  }),
  api: (detail: 'server_overload' | 'rate_limit' | 'auth', retryable: boolean): Step => ({
    attempt,
    kind: 'provider_error',
    error: { kind: 'api', detail, code: 'http_503', retryable },
  }),
  watchdog: (): Step => ({ attempt, kind: 'watchdog_fired', phase: 'connect' }),
  finished: (): Step => ({ attempt, kind: 'attempt_finished' }),
});

/** Run-level step shorthands. */
export const runLevel = {
  retry: (ofAttempt: number): Step => ({ kind: 'retry_issued', ofAttempt: `a${ofAttempt}` }),
  cancel: (at?: number): Step => ({ kind: 'user_cancel', origin: 'user_stop', at }),
  close: (at?: number): Step => ({ kind: 'lifecycle_close', lifecycle: 'instance_reload', at }),
  exit: (reason: 'stream_error' | 'exit_nonzero' | 'execution_failed'): Step => ({ kind: 'process_exit', reason }),
};

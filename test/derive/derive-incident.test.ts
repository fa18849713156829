/**
 * deriveIncident over plain facts: ordering, supersession, phases, outcomes
 * and side effects, as decision tables.
 */
import { describe, expect, it } from 'vitest';
import type { Incident, RunFacts } from '../../src/index.js';
import { deriveIncident } from '../../src/derive/derive-incident.js';
import { resolvePolicy } from '../../src/derive/policy.js';
import { on, runLevel, runOf } from '../support/facts.js';

const a1 = on(1);
const a2 = on(2);

const cases: Array<{ name: string; run: RunFacts; want: Partial<Incident> }> = [
  {
    name: 'a run with no failure is a success with no cause',
    run: runOf(1, [a1.boundary(), a1.text(), a1.finished()]),
    want: { outcome: 'success', factsComplete: true, missingFacts: [] },
  },
  {
    name: 'the earliest terminal fact wins',
    run: runOf(1, [a1.boundary(), a1.watchdog(), a1.drop()]),
    want: { cause: 'watchdog_timeout' },
  },
  {
    name: 'a lifecycle close initiated earlier wins although recorded last',
    run: runOf(1, [a1.boundary(), a1.text(), a1.drop(), runLevel.close(25)]),
    want: { cause: 'local_lifecycle_close', phase: 'text_generation' },
  },
  {
    name: 'equal times are ordered by sequence',
    run: runOf(1, [a1.boundary(), { ...a1.watchdog(), at: 50 }, { ...a1.drop(), at: 50 }]),
    want: { cause: 'watchdog_timeout' },
  },
  {
    name: 'a retried attempt is superseded by what ended the run after it',
    run: runOf(2, [a1.boundary(), a1.drop(), runLevel.retry(1), a2.boundary(), a2.api('auth', false)]),
    want: {
      cause: 'provider_api_error',
      causeDetail: 'auth',
      retrySafety: 'do_not_retry',
      recoveredAttempts: 1,
      attempts: 2,
    },
  },
  {
    name: 'a failed attempt followed by another counts as retried without an explicit event',
    run: runOf(2, [a1.boundary(), a1.api('server_overload', true), a2.boundary(), a2.text(), a2.finished()]),
    want: { outcome: 'recovered', recoveredAttempts: 1, causeDetail: 'server_overload' },
  },
  {
    name: 'a tool failure followed by a new step did not end the run',
    run: runOf(2, [
      a1.boundary(),
      a1.exec('read_only'),
      { attempt: 1, kind: 'tool_execution_failed', detail: 'unknown', startSeen: true },
      a2.boundary(),
      a2.text(),
      a2.finished(),
    ]),
    want: { outcome: 'success' },
  },
  {
    name: 'facts after the terminal event never move the phase',
    run: runOf(1, [a1.boundary(), a1.exec('read_only'), a1.drop(), a1.execDone()]),
    want: { phase: 'tool_execution' },
  },
  {
    name: 'reasoning then text is text_generation',
    run: runOf(1, [a1.boundary(), a1.reasoning(), a1.text(), a1.drop()]),
    want: { phase: 'text_generation' },
  },
  {
    name: 'text then reasoning stays text_generation',
    run: runOf(1, [a1.boundary(), a1.text(), a1.reasoning(), a1.drop()]),
    want: { phase: 'text_generation' },
  },
  {
    name: 'progress alone moves past before_first_provider_progress',
    run: runOf(1, [a1.boundary(), a1.progress(), a1.drop()]),
    want: { phase: 'text_generation', retrySafety: 'auto_retry' },
  },
  {
    name: 'tool input completed but not materialized is still tool_input_generation',
    run: runOf(1, [a1.boundary(), a1.toolInput(), a1.toolInputDone(), a1.drop()]),
    want: { phase: 'tool_input_generation', retrySafety: 'offer_continue' },
  },
  {
    name: 'a finished attempt then a process exit is finalizing',
    run: runOf(1, [a1.boundary(), a1.text(), a1.finished(), runLevel.exit('stream_error')]),
    want: { phase: 'finalizing', cause: 'process_exit' },
  },
  {
    name: 'a process exit before any attempt has an unknown phase',
    run: runOf(0, [runLevel.exit('exit_nonzero')]),
    want: { phase: 'unknown', retrySafety: 'do_not_retry', retryable: false },
  },
  {
    name: 'a cancel before any attempt is in setup',
    run: runOf(0, [runLevel.cancel()]),
    want: { phase: 'setup', outcome: 'cancelled' },
  },
  {
    name: 'a never-ended run with no terminal fact is crash_or_restart_incomplete',
    run: runOf(1, [a1.boundary(), a1.text()], { neverEnded: true }),
    want: {
      outcome: 'incomplete',
      cause: 'crash_or_restart_incomplete',
      causeDetail: 'run_never_ended',
      phase: 'text_generation',
      missingFacts: ['run_never_ended'],
    },
  },
  {
    name: 'a never-ended run keeps a real earlier cause, and is incomplete',
    run: runOf(1, [a1.boundary(), a1.drop()], { neverEnded: true }),
    want: { outcome: 'incomplete', cause: 'provider_transport_disconnect' },
  },
  {
    name: 'a never-ended run with an unsafe tool asks the user',
    run: runOf(1, [a1.boundary(), a1.exec('unsafe')], { neverEnded: true }),
    want: { retrySafety: 'ask_user_before_retry', sideEffects: 'unsafe' },
  },
  {
    name: 'a user stop stays cancelled when the run span then never ended',
    run: runOf(1, [a1.boundary(), a1.text(), runLevel.cancel()], { neverEnded: true }),
    want: { outcome: 'cancelled', cause: 'user_cancel', missingFacts: ['run_never_ended'] },
  },
  {
    name: 'a success needs no side-effect boundary to be complete',
    run: runOf(1, [a1.text(), a1.finished()]),
    want: { outcome: 'success', factsComplete: true, missingFacts: [] },
  },
  {
    name: 'evicted evidence makes the run incomplete',
    run: runOf(0, [], { evidenceTruncated: true }),
    want: { outcome: 'incomplete', cause: 'unknown_interruption', missingFacts: ['evidence_truncated'] },
  },
  {
    name: 'an attempt cut off by the run end is judged as it stood',
    run: runOf(1, [a1.boundary(), a1.text()], { truncatedAttempts: ['a1'], openChildren: true }),
    want: {
      outcome: 'failed',
      cause: 'unknown_interruption',
      phase: 'text_generation',
      retrySafety: 'offer_continue',
      missingFacts: ['open_child_spans', 'terminal_event_missing'],
    },
  },
  {
    name: 'the worst side effect of the run is reported: unsafe over unknown over read-only',
    run: runOf(2, [
      a1.boundary(),
      a1.exec('read_only'),
      a1.execDone(),
      a1.finished(),
      a2.boundary(),
      a2.exec('unknown'),
      a2.execDone(),
      a2.exec('unsafe'),
      a2.execDone(),
      a2.finished(),
    ]),
    want: { outcome: 'success', sideEffects: 'unsafe' },
  },
  {
    name: 'a completion with no start counts as unknown side effects and a missing fact',
    run: runOf(1, [a1.boundary(), { attempt: 1, kind: 'tool_execution_completed', startSeen: false }, a1.finished()]),
    want: { sideEffects: 'unknown', missingFacts: ['tool_execution_start_missing'] },
  },
  {
    name: 'a recovered run describes its last recovered attempt',
    run: runOf(
      3,
      [
        a1.boundary(),
        a1.watchdog(),
        runLevel.retry(1),
        a2.boundary(),
        a2.reasoning(),
        a2.drop(),
        runLevel.retry(2),
        on(3).boundary(),
        on(3).text(),
        on(3).finished(),
      ],
      {},
    ),
    want: {
      outcome: 'recovered',
      recoveredAttempts: 2,
      phase: 'reasoning_generation',
      cause: 'provider_transport_disconnect',
    },
  },
];

describe('deriveIncident', () => {
  it.each(cases)('$name', ({ run, want }) => {
    expect(deriveIncident(run)).toMatchObject(want);
  });

  it('uses the policy it is given', () => {
    const run = runOf(2, [a1.boundary(), a1.drop(), runLevel.retry(1), a2.boundary(), a2.drop()]);
    expect(deriveIncident(run).retrySafetyReason).toBe('retry_budget_exhausted');
    expect(deriveIncident(run, resolvePolicy({ maxAutoRetries: 3 })).retrySafety).toBe('auto_retry');
  });

  it('is total: junk facts give a verdict, not an exception', () => {
    const junk = {
      facts: [
        { kind: 'nonsense', timeMillis: Number.NaN, seq: Number.NaN },
        { kind: 'provider_error', timeMillis: Number.POSITIVE_INFINITY, seq: 1, error: { kind: 'weird' } },
        { kind: 'retry_issued', timeMillis: -1, seq: -1, ofAttempt: 'missing' },
      ],
      attempts: [{ key: 'x', number: Number.NaN, startMillis: Number.NaN }],
    } as unknown as RunFacts;
    expect(() => deriveIncident(junk)).not.toThrow();
    expect(deriveIncident(junk).outcome).toBeDefined();
  });
});

describe('resolvePolicy', () => {
  it('fills documented defaults', () => {
    expect(resolvePolicy()).toEqual({
      maxAutoRetries: 1,
      reasoningCountsAsVisible: false,
      trustedReadOnlyTools: [],
      missingBoundary: 'fail_closed',
    });
  });
  it.each([
    [{ maxAutoRetries: -1 }, /policy.maxAutoRetries/],
    [{ reasoningCountsAsVisible: 'yes' }, /policy.reasoningCountsAsVisible/],
    [{ surprise: true }, /policy/],
  ])('rejects %j naming the option', (input, message) => {
    expect(() => resolvePolicy(input as never)).toThrow(message);
  });
});

/**
 * The timeline of a run (src/derive/timeline.ts,
 * docs/conventions.md#ordering-and-agent_incidentsseq): facts ordered by
 * time then sequence, what ended the run (the earliest terminal fact of an
 * attempt not retried), which attempts were retried and recovered, and the
 * retry budget used before an attempt.
 */
import { describe, expect, it } from 'vitest';
import {
  attemptAt,
  buildTimeline,
  compareFacts,
  cutOffAttempts,
  isTerminal,
  retriesBefore,
} from '../../src/derive/timeline.js';
import type { AttemptRecord, Fact, RunFacts } from '../../src/model/facts.js';

const fact = (kind: string, timeMillis: number, seq: number, attempt?: string, extra = {}): Fact =>
  ({ kind, timeMillis, seq, ...(attempt ? { attempt } : {}), ...extra }) as Fact;
const ATTEMPTS: AttemptRecord[] = [
  { key: 'a1', number: 1, startMillis: 0 },
  { key: 'a2', number: 2, startMillis: 10 },
];
const run = (facts: Fact[], extra: Partial<RunFacts> = {}): RunFacts => ({ facts, attempts: ATTEMPTS, ...extra });

describe('compareFacts', () => {
  it.each([
    ['an earlier time first', fact('x', 1, 9), fact('x', 2, 0), -1],
    ['at the same time, the lower sequence first', fact('x', 1, 1), fact('x', 1, 2), -1],
    ['a non-finite time last', fact('x', Number.NaN, 0), fact('x', 5, 9), 1],
    ['equal facts tie', fact('x', 1, 1), fact('x', 1, 1), 0],
  ])('puts %s', (_case, a, b, sign) => {
    expect(Math.sign(compareFacts(a, b))).toBe(sign);
  });
});

describe('isTerminal and attemptAt', () => {
  it.each([
    ['provider_error', true],
    ['tool_execution_failed', true],
    ['text_output_started', false],
    ['attempt_finished', false],
  ])('%s can end a run: %s', (kind, terminal) => {
    expect(isTerminal(fact(kind, 0, 0))).toBe(terminal);
  });

  it.each([
    [-1, undefined],
    [0, 'a1'],
    [9, 'a1'],
    [10, 'a2'],
  ])('the attempt running at %i is %s', (time, key) => {
    expect(attemptAt(ATTEMPTS, time)?.key).toBe(key);
  });
});

describe('buildTimeline', () => {
  it('orders facts and skips the failure of an attempt followed by another: it was retried, and recovered', () => {
    const error = fact('provider_error', 5, 1, 'a1');
    const timeline = buildTimeline(run([fact('attempt_finished', 12, 2, 'a2'), error]));
    expect(timeline.facts.map((f) => f.kind)).toEqual(['provider_error', 'attempt_finished']);
    expect([...timeline.retried]).toEqual(['a1']);
    expect(timeline.recovered).toEqual(['a1']);
    expect(timeline.terminal).toBeUndefined();
  });

  it('the earliest terminal fact of an attempt not retried ends the run, in its attempt', () => {
    const terminal = fact('provider_error', 15, 1, 'a2');
    const timeline = buildTimeline(run([fact('run_error', 20, 2), terminal]));
    expect([timeline.terminal, timeline.terminalAttempt]).toEqual([terminal, 'a2']);
  });

  it('a run-level terminal fact is placed in the attempt running at its time', () => {
    const terminal = fact('run_error', 3, 1);
    expect(buildTimeline(run([terminal], { attempts: ATTEMPTS.slice(0, 1) })).terminalAttempt).toBe('a1');
  });

  it('an attempt named by retry_issued is retried even without a later attempt', () => {
    expect([...buildTimeline(run([fact('retry_issued', 5, 1, undefined, { ofAttempt: 'a2' })])).retried]).toEqual([
      'a2',
    ]);
  });

  it('a tool failure followed by a new attempt did not end the run: the model went on', () => {
    const timeline = buildTimeline(run([fact('tool_execution_failed', 5, 1, 'a1', { startSeen: true })]));
    expect(timeline.terminal).toBeUndefined();
  });

  it('an attempt cut off with a later attempt counts as retried', () => {
    expect([...buildTimeline(run([], { truncatedAttempts: ['a1'] })).retried]).toEqual(['a1']);
  });
});

describe('cutOffAttempts', () => {
  it.each([
    ['none when no attempt was cut off', [], undefined, []],
    ['a cut-off attempt that recorded no finish nor failure', [], ['a1', 'a2'], ['a1', 'a2']],
    ['not one whose finish was recorded', [fact('attempt_finished', 1, 1, 'a1')], ['a1', 'a2'], ['a2']],
    ['not one whose failure was recorded', [fact('provider_error', 1, 1, 'a2')], ['a1', 'a2'], ['a1']],
  ])('%s', (_case, facts, truncatedAttempts, expected) => {
    expect(cutOffAttempts(run(facts, { truncatedAttempts }))).toEqual(expected);
  });
});

describe('retriesBefore', () => {
  it.each([
    ['the first attempt', 'a1', 0],
    ['the second attempt, after a retried first', 'a2', 1],
    ['an unknown attempt: every retry', 'zz', 1],
  ])('counts for %s', (_case, key, count) => {
    const timeline = buildTimeline(run([fact('provider_error', 5, 1, 'a1')]));
    expect(retriesBefore(timeline, key)).toBe(count);
  });
});

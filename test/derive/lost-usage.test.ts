/**
 * What a run's incident cost: which attempts are lost (all of a run that
 * ended in an incident; the failed, cut-off and retried ones of a run that
 * recovered), what they reported, and when the figures are only a floor.
 */
import { describe, expect, it } from 'vitest';
import { deriveIncident } from '../../src/derive/derive-incident.js';
import type { ErrorFact, Fact, RunFacts } from '../../src/model/facts.js';
import type { AttemptUsage } from '../../src/model/usage.js';

const DROP: ErrorFact = { kind: 'transport', detail: 'socket_closed', code: 'UND_ERR_SOCKET', retryable: true };
const RATE_LIMIT: ErrorFact = { kind: 'api', detail: 'rate_limit', code: 'http_429', retryable: true };

let seq = 0;
const at = (attempt: string, fact: Record<string, unknown>): Fact =>
  ({ ...fact, attempt, timeMillis: seq, seq: seq++ }) as unknown as Fact;
const finished = (attempt: string): Fact[] => [
  at(attempt, { kind: 'text_output_started' }),
  at(attempt, { kind: 'attempt_finished' }),
];
const failed = (attempt: string, error: ErrorFact, streamed = false): Fact[] => [
  ...(streamed ? [at(attempt, { kind: 'text_output_started' })] : []),
  at(attempt, { kind: 'provider_error', error }),
];

function run(facts: Fact[], usage: Record<string, AttemptUsage>, extra: Partial<RunFacts> = {}): RunFacts {
  const keys = [...new Set(facts.flatMap((f) => (f.attempt ? [f.attempt] : [])))];
  return {
    facts,
    attempts: keys.map((key, i) => ({ key, number: i + 1, startMillis: i })),
    usage: new Map(Object.entries(usage)),
    ...extra,
  };
}

const U1 = { inputTokens: 1200, outputTokens: 85, costUsd: 0.004 };
const U2 = { inputTokens: 1300, outputTokens: 240, costUsd: 0.006 };

describe('lost usage of a run', () => {
  it('a success lost nothing: no figures at all', () => {
    expect(deriveIncident(run(finished('a1'), { a1: U1 })).lost).toBeUndefined();
  });

  it('a run recovered after a drop lost the dropped attempt only, exactly when it reported usage', () => {
    const incident = deriveIncident(run([...failed('a1', DROP, true), ...finished('a2')], { a1: U1, a2: U2 }));
    expect(incident.outcome).toBe('recovered');
    expect(incident.lost).toEqual({
      attempts: 1,
      inputTokens: 1200,
      outputTokens: 85,
      costUsd: 0.004,
      lowerBound: false,
    });
  });

  it('a dropped attempt that reported no usage makes the figures a floor, not a silent zero', () => {
    const incident = deriveIncident(run([...failed('a1', DROP, true), ...finished('a2')], { a2: U2 }));
    expect(incident.lost).toEqual({ attempts: 1, inputTokens: 0, outputTokens: 0, lowerBound: true });
  });

  it('a request the provider refused before streaming used nothing: counted as 0, the figures stay exact', () => {
    const incident = deriveIncident(run([...failed('a1', RATE_LIMIT), ...finished('a2')], { a2: U2 }));
    expect(incident.lost).toEqual({ attempts: 1, inputTokens: 0, outputTokens: 0, lowerBound: false });
  });

  it('a refused request used nothing even when its span shows usage (the answering try’s, written on a shared span)', () => {
    const incident = deriveIncident(run([...failed('a1', RATE_LIMIT), ...finished('a2')], { a1: U2, a2: U2 }));
    expect(incident.lost).toEqual({ attempts: 1, inputTokens: 0, outputTokens: 0, lowerBound: false });
  });

  it('a content filter came with a response, which was billed: without usage it is a floor', () => {
    const filtered: ErrorFact = { kind: 'api', detail: 'content_filter', retryable: false };
    const incident = deriveIncident(run([...failed('a1', filtered), ...finished('a2')], { a2: U2 }));
    expect(incident.lost).toEqual({ attempts: 1, inputTokens: 0, outputTokens: 0, lowerBound: true });
  });

  it('a run that failed lost every attempt, the finished ones too', () => {
    const incident = deriveIncident(run([...finished('a1'), ...failed('a2', DROP, true)], { a1: U1, a2: U2 }));
    expect(incident.outcome).toBe('failed');
    expect(incident.lost).toEqual({
      attempts: 2,
      inputTokens: 2500,
      outputTokens: 325,
      costUsd: 0.01,
      lowerBound: false,
    });
  });

  it('an attempt that reported only its input is a floor', () => {
    const incident = deriveIncident(run(failed('a1', DROP, true), { a1: { inputTokens: 900 } }));
    expect(incident.lost).toEqual({ attempts: 1, inputTokens: 900, outputTokens: 0, lowerBound: true });
  });

  it('a cost known for some lost attempts only is a floor', () => {
    const incident = deriveIncident(
      run([...finished('a1'), ...failed('a2', DROP, true)], { a1: U1, a2: { inputTokens: 1, outputTokens: 2 } }),
    );
    expect(incident.lost).toMatchObject({ costUsd: 0.004, lowerBound: true });
  });

  it('sums reasoning and cached tokens only where they were reported', () => {
    const incident = deriveIncident(
      run([...finished('a1'), ...failed('a2', DROP, true)], {
        a1: { inputTokens: 10, outputTokens: 5, reasoningTokens: 3 },
        a2: { inputTokens: 20, outputTokens: 1, cachedInputTokens: 15 },
      }),
    );
    expect(incident.lost).toEqual({
      attempts: 2,
      inputTokens: 30,
      outputTokens: 6,
      reasoningTokens: 3,
      cachedInputTokens: 15,
      lowerBound: false,
    });
  });

  it('facts that may be lost may be whole attempts: a floor', () => {
    const incident = deriveIncident(run(failed('a1', DROP, true), { a1: U1 }, { evidenceTruncated: true }));
    expect(incident.lost?.lowerBound).toBe(true);
  });

  it('an attempt cut off and abandoned for the next is lost', () => {
    const facts = [at('a1', { kind: 'text_output_started' }), ...finished('a2')];
    const incident = deriveIncident(run(facts, { a1: U1, a2: U2 }, { truncatedAttempts: ['a1'] }));
    expect(incident.lost).toMatchObject({ attempts: 1, inputTokens: 1200, outputTokens: 85 });
  });

  it('a cancelled run lost what it used', () => {
    const facts = [
      at('a1', { kind: 'text_output_started' }),
      { kind: 'user_cancel', origin: 'user_stop', timeMillis: seq, seq: seq++ } as Fact,
    ];
    const incident = deriveIncident(run(facts, { a1: U1 }, { truncatedAttempts: ['a1'] }));
    expect(incident.outcome).toBe('cancelled');
    expect(incident.lost).toMatchObject({ attempts: 1, inputTokens: 1200 });
  });
});

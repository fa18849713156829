/**
 * The run ledger: what a recovery strategy reads of a run's attempts. Only an
 * attempt's first end counts, tokens and cost are claimed only when reported,
 * a retry links the next attempt once, and an abandoned retry links nothing.
 */
import type { SpanContext } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import type { Incident } from '../../src/model/incident.js';
import { RunLedger } from '../../src/runtime/run-ledger.js';

const spanContextOf = (n: number): SpanContext => ({
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: `00f067aa0ba902b${n}`,
  traceFlags: 1,
});

/** A ledger on a clock that returns `times` in turn. */
function ledgerOn(...times: number[]): RunLedger {
  let at = 0;
  return new RunLedger(() => times[at++] ?? Number.NaN);
}

function start(ledger: RunLedger, startMillis: number): number {
  const number = ledger.nextNumber;
  ledger.attemptStarted({ key: `a${number}`, number, startMillis, spanContext: spanContextOf(number) });
  return number;
}

const FAILED = { attempts: 2, recoveredAttempts: 0, outcome: 'failed', cause: 'watchdog_timeout' } as Incident;

describe('run ledger', () => {
  it('numbers attempts from 1 in the order they start', () => {
    const ledger = ledgerOn();
    expect(ledger.nextNumber).toBe(1);
    expect(start(ledger, 0)).toBe(1);
    expect(start(ledger, 5)).toBe(2);
    expect(ledger.nextNumber).toBe(3);
  });

  it("times an attempt's end by the clock, and only its first end counts", () => {
    const ledger = ledgerOn(40, 99);
    start(ledger, 10);
    ledger.attemptEnded(1, { retryAfterMillis: 1000 });
    ledger.attemptEnded(1, { retryAfterMillis: 5, finished: true });
    expect(ledger.history({ facts: [], attempts: [] }, DEFAULT_POLICY)).toEqual([
      { number: 1, startMillis: 10, endMillis: 40, retried: false, retryAfterMillis: 1000 },
    ]);
  });

  it('reads no clock for an attempt it does not know', () => {
    let reads = 0;
    const ledger = new RunLedger(() => ++reads);
    ledger.attemptEnded(7, {});
    expect(reads).toBe(0);
  });

  it('marks retried the attempts a retry_issued fact names, by their key', () => {
    const ledger = ledgerOn();
    start(ledger, 0);
    start(ledger, 1);
    const history = ledger.history(
      { facts: [{ kind: 'retry_issued', ofAttempt: 'a1' }], attempts: [] } as never,
      DEFAULT_POLICY,
    );
    expect(history.map((entry) => [entry.number, entry.retried])).toEqual([
      [1, true],
      [2, false],
    ]);
  });

  it.each([
    {
      promise: 'sums turns, tokens, cost and durations over the ended attempts',
      usages: [
        { usage: { inputTokens: 10, outputTokens: 5, costUsd: 0.25 }, finished: true },
        { usage: { inputTokens: 3 }, finished: false },
      ],
      expected: { turns: 1, inputTokens: 13, outputTokens: 5, costUsd: 0.25, attemptDurationsMillis: [10, 10] },
    },
    {
      promise: 'claims no tokens or cost when no attempt reported them',
      usages: [{ finished: true }, { finished: true }],
      expected: { turns: 2, attemptDurationsMillis: [10, 10] },
    },
  ])('snapshot $promise', ({ usages, expected }) => {
    const ledger = ledgerOn(10, 30);
    start(ledger, 0);
    start(ledger, 20);
    usages.forEach((end, i) => ledger.attemptEnded(i + 1, end));
    expect(ledger.snapshot(FAILED, 1234)).toEqual({
      attempts: 2,
      recoveredAttempts: 0,
      durationMillis: 1234,
      outcome: 'failed',
      cause: 'watchdog_timeout',
      ...expected,
    });
  });

  it('snapshot never reports a negative duration', () => {
    expect(ledgerOn().snapshot(FAILED, -5).durationMillis).toBe(0);
  });

  it('links the next attempt to the retried one once, as retry_of', () => {
    const ledger = ledgerOn();
    start(ledger, 0);
    ledger.retryIssued(1);
    expect(ledger.takeRetryLink()).toEqual({
      number: 1,
      link: {
        context: spanContextOf(1),
        attributes: { 'agent_incidents.link.type': 'retry_of', 'agent_incidents.retry.of_attempt': 1 },
      },
    });
    expect(ledger.takeRetryLink()).toBeUndefined();
  });

  it.each([
    { promise: 'an abandoned retry', act: (ledger: RunLedger) => (ledger.retryIssued(1), ledger.retryAbandoned()) },
    { promise: 'a retry of the whole run', act: (ledger: RunLedger) => ledger.retryIssued(undefined) },
    { promise: 'a retry of an attempt never started', act: (ledger: RunLedger) => ledger.retryIssued(9) },
  ])('links nothing after $promise', ({ act }) => {
    const ledger = ledgerOn();
    start(ledger, 0);
    act(ledger);
    expect(ledger.takeRetryLink()).toBeUndefined();
  });
});

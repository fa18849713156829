/**
 * How facts land in an open run: absorb numbers facts without a sequence in
 * arrival order and records unknown progress; absorbStatusError counts a
 * status error only when nothing ended the run; extractContext and
 * runFactsOf.
 */
import { describe, expect, it } from 'vitest';
import type { Extraction } from '../../src/conventions/adapter.js';
import { genAiAdapter } from '../../src/conventions/gen-ai.js';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import type { LiveSpan, RunState } from '../../src/fold/open-run-state.js';
import { SEQ_BASE, startedRunState } from '../../src/fold/open-run-state.js';
import type { FoldRules } from '../../src/fold/run-facts.js';
import { absorb, absorbStatusError, extractContext, runFactsOf } from '../../src/fold/run-facts.js';
import type { Fact } from '../../src/model/facts.js';

const RULES: FoldRules = { policy: DEFAULT_POLICY, adapters: [genAiAdapter] };
const run = (attributes: Record<string, unknown> = {}, parent?: RunState<LiveSpan>): RunState<LiveSpan> =>
  startedRunState({
    spanId: 'run',
    handle: { name: 'invoke_agent', attributes },
    adapter: genAiAdapter,
    parent,
    startMillis: 0,
    trackedMillis: 0,
  });
const extraction = (facts: Partial<Fact>[], fields: Partial<Extraction> = {}): Extraction =>
  ({ facts, ...fields }) as Extraction;

describe('absorb', () => {
  it('numbers facts without a sequence in arrival order, keeping those with one', () => {
    const r = run();
    absorb(
      r,
      extraction([
        { kind: 'provider_progress', timeMillis: 1 },
        { kind: 'text_output_started', timeMillis: 2, seq: 7 },
        { kind: 'attempt_finished', timeMillis: 3 },
      ]),
    );
    expect(r.facts.map((f) => [f.kind, f.seq])).toEqual([
      ['provider_progress', SEQ_BASE],
      ['text_output_started', 7],
      ['attempt_finished', SEQ_BASE + 1],
    ]);
    expect(r.nextSeq).toBe(SEQ_BASE + 2);
    expect(r.progressUnknown).toBe(false);
  });

  it('records unknown progress on the run, and on the attempt when one is given', () => {
    const r = run();
    absorb(r, extraction([], { progressUnknown: true }));
    expect([r.progressUnknown, r.progressUnknownAttempts]).toEqual([true, []]);
    absorb(r, extraction([], { progressUnknown: true }), 'a1');
    expect(r.progressUnknownAttempts).toEqual(['a1']);
  });
});

describe('absorbStatusError', () => {
  const api = { kind: 'api', detail: 'server_overload', code: 'http_503', retryable: true } as const;

  it.each([
    [
      'a classified error as a provider error',
      api,
      { kind: 'provider_error', error: api, timeMillis: 50, seq: SEQ_BASE },
    ],
    [
      'an unknown error as a run error with its code',
      { kind: 'unknown', code: 'E42' } as const,
      { kind: 'run_error', code: 'E42', timeMillis: 50, seq: SEQ_BASE },
    ],
  ])('adds %s', (_what, statusError, expected) => {
    const r = run();
    absorbStatusError(r, extraction([], { statusError }), 50);
    expect(r.facts).toEqual([expected]);
  });

  it('adds nothing without a status error, or once a fact ended the run', () => {
    const r = run();
    absorbStatusError(r, extraction([]), 50);
    expect(r.facts).toEqual([]);
    r.facts.push({ kind: 'user_cancel', origin: 'user_stop', timeMillis: 40, seq: 1 });
    absorbStatusError(r, extraction([], { statusError: api }), 50);
    expect(r.facts).toHaveLength(1);
  });
});

describe('extractContext', () => {
  it('carries the attempt and cut-off, the trusted tools of the run’s policy, and attempt keys by number', () => {
    const r = run();
    r.attempts.push({ key: 'a1', number: 1, startMillis: 1 }, { key: 'a2', number: 2, startMillis: 5 });
    const context = extractContext(r, RULES, 'a2', true);
    expect([context.attempt, context.truncated, context.trustedReadOnlyTools]).toEqual([
      'a2',
      true,
      DEFAULT_POLICY.trustedReadOnlyTools,
    ]);
    expect([context.attemptKeyOf(2), context.attemptKeyOf(3)]).toEqual(['a2', undefined]);
  });

  it('prefers the run’s own policy to the fold’s', () => {
    const own = { ...DEFAULT_POLICY, trustedReadOnlyTools: ['grep'] };
    const r = { ...run(), policy: own };
    expect(extractContext(r, RULES, undefined, false).trustedReadOnlyTools).toEqual(['grep']);
  });
});

describe('runFactsOf', () => {
  it('gives the run’s facts and flags as they stand', () => {
    const r = run();
    r.facts.push({ kind: 'provider_progress', timeMillis: 1, seq: 1 });
    r.attempts.push({ key: 'a1', number: 1, startMillis: 0 });
    r.neverEnded = true;
    r.truncatedAttempts.push('a1');
    expect(runFactsOf(r)).toEqual({
      facts: r.facts,
      attempts: r.attempts,
      neverEnded: true,
      openChildren: false,
      truncatedAttempts: ['a1'],
      progressUnknown: false,
      progressUnknownAttempts: [],
      evidenceTruncated: false,
    });
  });
});

/**
 * How facts land in an open run's state: a span's extraction absorbed (facts
 * numbered in arrival order), a run-level error read from a status counted
 * only when nothing ended the run yet, the context an adapter extracts with,
 * and the {@link RunFacts} a run stands at.
 */
import type { ConventionAdapter, ExtractContext, Extraction } from '../conventions/adapter.js';
import type { Policy } from '../derive/policy.js';
import { isTerminal } from '../derive/timeline.js';
import type { Fact, RunFacts } from '../model/facts.js';
import type { RunState } from './open-run-state.js';

/** What the fold's steps read of its options: the verdict rules and the conventions, in the order tried. */
export interface FoldRules {
  readonly policy: Policy;
  readonly adapters: readonly ConventionAdapter[];
}

/** The context an adapter extracts a span of `run` with. */
export function extractContext<H>(
  run: RunState<H>,
  rules: FoldRules,
  attempt: string | undefined,
  truncated: boolean,
): ExtractContext {
  return {
    attempt,
    truncated,
    trustedReadOnlyTools: (run.policy ?? rules.policy).trustedReadOnlyTools,
    attemptKeyOf: (number) => run.attempts.find((a) => a.number === number)?.key,
  };
}

/** Adds an extraction's facts to `run`, numbering those without a sequence. */
export function absorb<H>(run: RunState<H>, extraction: Extraction, attempt?: string): void {
  for (const fact of extraction.facts) {
    // Adapters hand over fresh objects: number them in place rather than copy.
    if (!Number.isFinite(fact.seq)) (fact as { seq: number }).seq = run.nextSeq++;
    run.facts.push(fact);
  }
  if (extraction.progressUnknown) {
    run.progressUnknown = true;
    if (attempt !== undefined) run.progressUnknownAttempts.push(attempt);
  }
}

/** A run-level error read from a span's status counts only when no fact ended the run yet. */
export function absorbStatusError<H>(run: RunState<H>, extraction: Extraction, timeMillis: number): void {
  const fact = statusErrorFact(extraction, run.facts, timeMillis, run.nextSeq);
  if (!fact) return;
  run.nextSeq++;
  run.facts.push(fact);
}

/**
 * The fact a span's status error stands for (a classified provider error, or
 * a run error of no known kind), numbered `seq`; undefined when the span has
 * no status error or a fact in `facts` already ended the run.
 */
export function statusErrorFact(
  extraction: Extraction,
  facts: readonly Fact[],
  timeMillis: number,
  seq: number,
): Fact | undefined {
  const error = extraction.statusError;
  if (!error || facts.some(isTerminal)) return undefined;
  return error.kind === 'unknown'
    ? { kind: 'run_error', code: error.code, timeMillis, seq }
    : { kind: 'provider_error', error, timeMillis, seq };
}

/** The {@link RunFacts} of an open run, as they stand. */
export function runFactsOf<H>(run: RunState<H>): RunFacts {
  return {
    facts: run.facts,
    attempts: run.attempts,
    neverEnded: run.neverEnded,
    openChildren: run.openChildren,
    truncatedAttempts: run.truncatedAttempts,
    progressUnknown: run.progressUnknown,
    progressUnknownAttempts: run.progressUnknownAttempts,
    evidenceTruncated: run.evidenceTruncated,
    usage: run.usage,
  };
}

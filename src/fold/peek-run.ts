/**
 * The facts of an open run as they stand, without ending anything: its open
 * tools read as started and running, its open attempts as they are so far,
 * its open nested runs with their side effects so far. What the edges show
 * for a run still in flight.
 */
import type { Extraction } from '../conventions/adapter.js';
import type { SpanView } from '../conventions/span-view.js';
import { lostFacts } from '../conventions/span-view.js';
import { deriveIncident } from '../derive/derive-incident.js';
import type { Fact, RunFacts } from '../model/facts.js';
import { attemptAbove, attemptOf } from './attempt-placement.js';
import type { LiveSpan, RunState } from './open-run-state.js';
import type { FoldRules } from './run-facts.js';
import { extractContext } from './run-facts.js';
import type { RunTable } from './run-table.js';
import { addTries } from './tries.js';

/** The {@link RunFacts} of open run `run` now; `viewOf` gives the current view of an open span. */
export function peekRun<H extends LiveSpan>(
  run: RunState<H>,
  viewOf: (handle: H) => SpanView,
  runs: RunTable<H>,
  rules: FoldRules,
): RunFacts {
  const facts: Fact[] = [...run.facts];
  const attempts = [...run.attempts];
  let seq = run.nextSeq;
  const take = (extraction: Extraction): void => {
    for (const fact of extraction.facts)
      facts.push(Number.isFinite(fact.seq) ? fact : ({ ...fact, seq: seq++ } as Fact));
  };
  const progressUnknownAttempts = [...run.progressUnknownAttempts];
  let evidenceTruncated = run.evidenceTruncated || lostFacts(viewOf(run.handle), false);
  for (const [spanId, entry] of run.open) {
    if (entry.role === 'run') {
      const nested = runs.run(spanId);
      if (!nested) continue;
      const peeked = peekRun(nested, viewOf, runs, rules);
      const sideEffects = deriveIncident(peeked, nested.policy ?? rules.policy).sideEffects;
      if (sideEffects !== 'none')
        facts.push({
          kind: 'child_run_side_effects',
          sideEffects,
          timeMillis: entry.startMillis,
          seq: seq++,
          attempt: attemptAbove(run, entry.parentSpanId),
        });
      if (peeked.evidenceTruncated) evidenceTruncated = true;
      continue;
    }
    const adapter = entry.adapter ?? rules.adapters[0];
    if (!adapter) continue;
    const view = viewOf(entry.handle);
    if (lostFacts(view, entry.role === 'attempt' || entry.role === 'tool')) evidenceTruncated = true;
    const attempt = entry.role === 'call' ? undefined : attemptOf(run, view, entry.role);
    // An open tool is still running: read it as cut off now (started, not completed).
    const extraction = adapter.extract(view, entry.role, extractContext(run, rules, attempt, entry.role === 'tool'));
    if (entry.role === 'attempt' && attempt !== undefined) {
      addTries(
        run,
        attempts,
        attempt,
        view,
        extraction,
        (fact) => facts.push({ ...fact, seq: seq++ } as Fact),
        (key) => progressUnknownAttempts.push(key),
      );
    }
    take(extraction);
    if (extraction.progressUnknown && entry.role === 'attempt' && attempt !== undefined)
      progressUnknownAttempts.push(attempt);
  }
  const own = run.adapter.extract(viewOf(run.handle), 'run', extractContext(run, rules, undefined, false));
  take(own);
  return {
    facts,
    attempts,
    evidenceTruncated,
    progressUnknown: run.progressUnknown || progressUnknownAttempts.length > run.progressUnknownAttempts.length,
    progressUnknownAttempts,
  };
}

/**
 * A span under a tracked run ended: its facts go into the run, placed in the
 * attempt it belongs to, with its late role if it gained one, cut off if its
 * run's end (here or upstream) cut it. An attempt that failed gets its own
 * verdict at once.
 */
import { attemptUsageOf } from '../conventions/attempt-usage.js';
import type { SpanView } from '../conventions/span-view.js';
import { lostFacts } from '../conventions/span-view.js';
import { deriveAttemptVerdict } from '../derive/derive-incident.js';
import { ATTR_INCIDENT_TRUNCATED } from '../model/attributes.js';
import type { Fact } from '../model/facts.js';
import type { AttemptVerdict } from '../model/incident.js';
import { addAttempt, attemptOf, lateRole } from './attempt-placement.js';
import type { LiveSpan, RunState } from './open-run-state.js';
import type { FoldRules } from './run-facts.js';
import { absorb, absorbStatusError, extractContext, runFactsOf } from './run-facts.js';
import type { RunTable } from './run-table.js';
import { addTries } from './tries.js';

/** Folds ended span `view` into its run `run`; returns the verdict of a failed attempt, else undefined. */
export function collectChild<H extends LiveSpan>(
  run: RunState<H>,
  view: SpanView,
  runs: RunTable<H>,
  rules: FoldRules,
): AttemptVerdict | undefined {
  const entry = runs.removeSpan(run, view.spanId);
  let role = entry?.role ?? 'other';
  let adapter = entry?.adapter;
  const late = entry !== undefined && role === 'other' ? lateRole(run, entry, rules.adapters) : undefined;
  if (late && entry) {
    role = late.role;
    adapter = late.adapter;
    if (role === 'attempt') {
      addAttempt(run, view.spanId, entry.startMillis, undefined);
      run.attemptParents.set(view.spanId, entry.parentSpanId);
    }
  }
  // A span that lost events may have lost fact events, whatever its role.
  if (lostFacts(view, role === 'attempt' || role === 'tool')) run.evidenceTruncated = true;
  // Spans of no convention without events carry no facts: skip them.
  if (role === 'other' && view.events.length === 0) return undefined;
  adapter ??= rules.adapters[0];
  if (!adapter) return undefined;
  // Cut off by its run's end: here, or upstream (a recorder or a processor that
  // ended the span itself marked it), which reads the same.
  const cutUpstream = entry?.truncated !== true && view.attributes[ATTR_INCIDENT_TRUNCATED] === true;
  const truncated = entry?.truncated === true || cutUpstream;
  if (cutUpstream && role !== 'other') run.openChildren = true;
  const attempt = role === 'call' ? undefined : attemptOf(run, view, role);
  const extraction = adapter.extract(view, role, extractContext(run, rules, attempt, truncated));
  if (role === 'attempt' && attempt !== undefined) {
    addTries(
      run,
      run.attempts,
      attempt,
      view,
      extraction,
      (fact) => run.facts.push({ ...fact, seq: run.nextSeq++ } as Fact),
      (key) => {
        run.progressUnknown = true;
        run.progressUnknownAttempts.push(key);
      },
    );
  }
  absorb(run, extraction, role === 'attempt' ? attempt : undefined);
  if (role === 'attempt' && attempt !== undefined) {
    // What it used counts toward the run's loss if it did not make the answer (docs/attributes.md#lost-usage).
    const usage = attemptUsageOf(view.attributes);
    if (usage) (run.usage ??= new Map()).set(attempt, usage);
  }
  if (
    role === 'attempt' &&
    attempt !== undefined &&
    (extraction.unfinished || cutUpstream) &&
    !run.truncatedAttempts.includes(attempt)
  ) {
    run.truncatedAttempts.push(attempt);
  }
  if (role === 'call') absorbStatusError(run, extraction, view.endMillis ?? view.startMillis);
  if (
    role === 'attempt' &&
    run.facts.some((f) => f.attempt === view.spanId && (f.kind === 'provider_error' || f.kind === 'watchdog_fired'))
  ) {
    const verdict = deriveAttemptVerdict(runFactsOf(run), view.spanId, run.policy ?? rules.policy);
    if (verdict) return verdict;
  }
  return undefined;
}

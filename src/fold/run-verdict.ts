/**
 * Verdict assembly when a run's span ends: its own span's facts absorbed,
 * whether it never ended or was cut off with its parent, the verdict derived,
 * and a nested run's side effects handed up to its parent as a fact of the
 * attempt it ran under. Also the verdict of a run the fold did not track,
 * from its span alone.
 */
import type { ConventionAdapter } from '../conventions/adapter.js';
import type { SpanView } from '../conventions/span-view.js';
import { lostFacts } from '../conventions/span-view.js';
import { deriveIncident } from '../derive/derive-incident.js';
import type { Policy } from '../derive/policy.js';
import { ATTR_INCIDENT_TRUNCATED } from '../model/attributes.js';
import type { RunFacts } from '../model/facts.js';
import type { Incident } from '../model/incident.js';
import { attemptAbove } from './attempt-placement.js';
import type { LiveSpan, RunState } from './open-run-state.js';
import { SEQ_BASE } from './open-run-state.js';
import type { FoldRules } from './run-facts.js';
import { absorb, absorbStatusError, extractContext, runFactsOf, statusErrorFact } from './run-facts.js';

/**
 * The verdict of run `run`, whose span ended as `view`. The caller removes
 * the run from its table afterwards, whatever happens here.
 */
export function judgeEndedRun<H extends LiveSpan>(run: RunState<H>, view: SpanView, rules: FoldRules): Incident {
  if (lostFacts(view, false)) run.evidenceTruncated = true;
  if (view.attributes[ATTR_INCIDENT_TRUNCATED] === true) {
    // Ended by a processor or a recorder, not by its owner: the run never
    // ended, top-level or nested (cut off when its parent ended). Whether it
    // had a parent cannot change that, so an edge that has not seen the parent
    // (the gateway, before a late part) gives the same verdict.
    if (run.parent) run.parent.openChildren = true;
    run.neverEnded = true;
  }
  const extraction = run.adapter.extract(view, 'run', extractContext(run, rules, undefined, false));
  absorb(run, extraction);
  absorbStatusError(run, extraction, view.endMillis ?? view.startMillis);
  const incident = deriveIncident(runFactsOf(run), run.policy ?? rules.policy);
  passSideEffectsUp(run, incident, view.endMillis ?? view.startMillis);
  return incident;
}

/**
 * A run whose facts were evicted (or that started before the fold saw it):
 * judged from what its own span shows, its status error included, and the
 * evidence is said to be cut off.
 */
export function judgeUntrackedRun(
  view: SpanView,
  adapter: ConventionAdapter,
  policy: Policy,
): { incident: Incident; facts: RunFacts } {
  const extraction = adapter.extract(view, 'run', {
    truncated: false,
    trustedReadOnlyTools: policy.trustedReadOnlyTools,
    attemptKeyOf: () => undefined,
  });
  const facts = extraction.facts.map((f, i) => (Number.isFinite(f.seq) ? f : { ...f, seq: SEQ_BASE + i }));
  // A run span that ended in error says the run failed even when the facts that said why are gone.
  const failure = statusErrorFact(extraction, facts, view.endMillis ?? view.startMillis, SEQ_BASE + facts.length);
  if (failure) facts.push(failure);
  const run: RunFacts = { facts, attempts: [], evidenceTruncated: true };
  return { incident: deriveIncident(run, policy), facts: run };
}

/** A nested run's side effects become a fact of its parent, placed by structure (the tool or attempt it ran under). */
function passSideEffectsUp<H extends LiveSpan>(run: RunState<H>, incident: Incident, endMillis: number): void {
  const parent = run.parent;
  if (!parent || incident.sideEffects === 'none') return;
  parent.facts.push({
    kind: 'child_run_side_effects',
    sideEffects: incident.sideEffects,
    timeMillis: endMillis,
    seq: parent.nextSeq++,
    attempt: attemptAbove(parent, run.parentSpanId),
  });
  // Facts lost in a nested run may have been side effects of the parent's too.
  if (run.evidenceTruncated) parent.evidenceTruncated = true;
}

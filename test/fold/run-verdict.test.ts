/**
 * Verdict assembly when a run's span ends (judgeEndedRun): a clean end is a
 * success, a span ended for its owner (`incident.truncated`) never ended,
 * top-level or nested, and cuts off its parent's children, a nested run's
 * side effects go up to its parent as a fact of the attempt it ran under. And
 * judgeUntrackedRun: a run judged from its span alone, evidence cut off.
 */
import { describe, expect, it } from 'vitest';
import { genAiAdapter } from '../../src/conventions/gen-ai.js';
import type { SpanView } from '../../src/conventions/span-view.js';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import type { LiveSpan, RunState } from '../../src/fold/open-run-state.js';
import { SEQ_BASE, startedRunState } from '../../src/fold/open-run-state.js';
import { judgeEndedRun, judgeUntrackedRun } from '../../src/fold/run-verdict.js';

const RULES = { policy: DEFAULT_POLICY, adapters: [genAiAdapter] };
const CUT = { 'gen_ai.operation.name': 'invoke_agent', 'incident.truncated': true };
const view = (fields: Partial<SpanView> = {}): SpanView => ({
  spanId: 'run',
  name: 'invoke_agent',
  startMillis: 0,
  endMillis: 100,
  attributes: { 'gen_ai.operation.name': 'invoke_agent' },
  events: [],
  links: [],
  statusCode: 0,
  ...fields,
});
const runState = (parent?: RunState<LiveSpan>): RunState<LiveSpan> =>
  startedRunState<LiveSpan>({
    spanId: parent ? 'child' : 'run',
    handle: { name: 'invoke_agent', attributes: {} },
    adapter: genAiAdapter,
    parent,
    parentSpanId: parent ? 't1' : undefined,
    startMillis: 0,
    trackedMillis: 0,
  });
/** A parent run whose attempt a1 has tool t1 open, and a nested run under t1 that started an unsafe tool. */
function nested(): { parent: RunState<LiveSpan>; child: RunState<LiveSpan> } {
  const parent = runState();
  parent.attempts.push({ key: 'a1', number: 1, startMillis: 0 });
  parent.open.set('t1', {
    handle: { name: 't', attributes: {} },
    parentSpanId: 'a1',
    role: 'tool',
    startMillis: 1,
    truncated: false,
  });
  const child = runState(parent);
  child.facts.push({ kind: 'tool_execution_started', sideEffects: 'unsafe', timeMillis: 5, seq: 1 });
  return { parent, child };
}

describe('judgeEndedRun', () => {
  it('judges a run that ended cleanly with no facts a success', () => {
    const run = runState();
    expect(judgeEndedRun(run, view(), RULES)).toEqual({
      outcome: 'success',
      factsComplete: true,
      missingFacts: [],
      sideEffects: 'none',
      attempts: 0,
      recoveredAttempts: 0,
    });
    expect(run.neverEnded).toBe(false);
  });

  it('reads a top-level run span ended for its owner as a run that never ended', () => {
    const run = runState();
    const incident = judgeEndedRun(run, view({ attributes: CUT }), RULES);
    expect(run.neverEnded).toBe(true);
    expect([incident.cause, incident.causeDetail, incident.missingFacts]).toEqual([
      'crash_or_restart_incomplete',
      'run_never_ended',
      ['run_never_ended'],
    ]);
  });

  it('marks evidence cut off when the run span lost events', () => {
    const run = runState();
    judgeEndedRun(run, view({ droppedEventsCount: 1 }), RULES);
    expect(run.evidenceTruncated).toBe(true);
  });

  it('hands a nested run’s side effects up as a fact of the attempt it ran under, with its lost evidence', () => {
    const { parent, child } = nested();
    child.evidenceTruncated = true;
    const incident = judgeEndedRun(child, view({ spanId: 'child', endMillis: 90 }), RULES);
    expect(incident.sideEffects).toBe('unsafe');
    expect(parent.facts).toEqual([
      { kind: 'child_run_side_effects', sideEffects: 'unsafe', timeMillis: 90, seq: SEQ_BASE, attempt: 'a1' },
    ]);
    expect(parent.nextSeq).toBe(SEQ_BASE + 1);
    expect(parent.evidenceTruncated).toBe(true);
  });

  it.each([
    ['its owner ended', false],
    ['never ended', true],
  ])(
    'reads a nested run cut off under a parent that %s as never ended, and gives the parent open children',
    (_what, parentNeverEnded) => {
      const { parent, child } = nested();
      parent.neverEnded = parentNeverEnded;
      const incident = judgeEndedRun(child, view({ spanId: 'child', attributes: CUT }), RULES);
      expect([parent.openChildren, child.neverEnded]).toEqual([true, true]);
      // The same verdict as the run would get with no parent in sight (an edge that has not seen it yet).
      const alone = runState();
      alone.facts.push({ kind: 'tool_execution_started', sideEffects: 'unsafe', timeMillis: 5, seq: 1 });
      expect(incident).toEqual(judgeEndedRun(alone, view({ attributes: CUT }), RULES));
    },
  );

  it('hands nothing up when the nested run had no side effects', () => {
    const { parent, child } = nested();
    child.facts.length = 0;
    judgeEndedRun(child, view({ spanId: 'child' }), RULES);
    expect(parent.facts).toEqual([]);
    expect(parent.evidenceTruncated).toBe(false);
  });
});

describe('judgeUntrackedRun', () => {
  it('judges a run from its span alone, its evidence cut off', () => {
    const { incident, facts } = judgeUntrackedRun(view(), genAiAdapter, DEFAULT_POLICY);
    expect(facts).toEqual({ facts: [], attempts: [], evidenceTruncated: true });
    expect(incident).toMatchObject({
      outcome: 'incomplete',
      cause: 'unknown_interruption',
      factsComplete: false,
      missingFacts: ['evidence_truncated'],
      sideEffects: 'unknown',
    });
  });

  it('numbers the span’s own facts from SEQ_BASE', () => {
    const { facts, incident } = judgeUntrackedRun(
      view({
        events: [
          {
            name: 'agent_incidents.user_cancel',
            timeMillis: 50,
            attributes: { 'agent_incidents.cancel.origin': 'user_stop' },
          },
        ],
      }),
      genAiAdapter,
      DEFAULT_POLICY,
    );
    expect(facts.facts.map((f) => [f.kind, f.seq])).toEqual([['user_cancel', SEQ_BASE]]);
    expect(incident.cause).toBe('user_cancel');
  });

  const exception = (message: string, type = 'Error') => ({
    name: 'exception',
    timeMillis: 90,
    attributes: { 'exception.type': type, 'exception.message': message },
  });
  it.each([
    [
      'a socket dropped mid-stream',
      view({ statusCode: 2, events: [exception('terminated: other side closed (UND_ERR_SOCKET)', 'TypeError')] }),
      { outcome: 'incomplete', cause: 'provider_transport_disconnect' },
      ['provider_error'],
    ],
    [
      'an error of no known kind',
      view({ statusCode: 2, statusMessage: 'something broke' }),
      { outcome: 'incomplete', cause: 'unknown_interruption' },
      ['run_error'],
    ],
    [
      'a cancel the span recorded, not its error',
      view({
        statusCode: 2,
        events: [
          {
            name: 'agent_incidents.user_cancel',
            timeMillis: 50,
            attributes: { 'agent_incidents.cancel.origin': 'user_stop' },
          },
          exception('The operation was aborted', 'AbortError'),
        ],
      }),
      { outcome: 'cancelled', cause: 'user_cancel' },
      ['user_cancel'],
    ],
  ])(
    'a run span that ended in error is judged by its error, at best incomplete: %s',
    (_what, span, expected, kinds) => {
      const { incident, facts } = judgeUntrackedRun(span, genAiAdapter, DEFAULT_POLICY);
      expect(incident).toMatchObject({ ...expected, missingFacts: expect.arrayContaining(['evidence_truncated']) });
      expect(facts.facts.map((f) => f.kind)).toEqual(kinds);
    },
  );
});

// Over 300 lines: RunFolder is the fold's whole public surface (some 20 methods), one describe per promise, on one driver.
/**
 * RunFolder's promises (src/fold/run-folder.ts), driven span by span as an
 * edge drives it: a run span starts a run and the spans under it are its
 * parts, other spans are ignored; ending a failed attempt gives its verdict
 * and ending the run gives the run's; spans still open at the run's end are
 * cut off, newest first; a sub-agent under a tool is a run of its own whose
 * side effects count for its parent; the edge's marks (never ended, evidence
 * lost, judged nested run, forgotten run) reach the verdict; and the run table
 * is bounded, with its oldest and aged runs listed for the edge to finalize.
 * Verdicts are asserted whole; test/fold/fold-trace.test.ts covers whole traces.
 */
import { describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/conventions/index.js';
import type { EventView, SpanView } from '../../src/conventions/span-view.js';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import { RunFolder } from '../../src/fold/run-folder.js';
import type { Incident } from '../../src/model/incident.js';

/** The edge's handle of a span: what the fold reads while it is open (the attributes may change). */
interface Handle {
  readonly name: string;
  attributes: Record<string, unknown>;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly startMillis: number;
}

const RUN = { 'gen_ai.operation.name': 'invoke_agent' };
const CHAT = { 'gen_ai.operation.name': 'chat' };
const tool = (name: string) => ({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name });
/** What a call span records when its connection dropped. */
const DROPPED: Partial<SpanView> = {
  statusCode: 2,
  events: [
    {
      name: 'exception',
      timeMillis: 4,
      attributes: { 'exception.type': 'ConnectionResetError', 'exception.message': 'read ECONNRESET' },
    } as EventView,
  ],
};

/** A fold with helpers that start and end spans as an edge does. */
function folder(maxOpenRuns = 100) {
  const fold = new RunFolder<Handle>({ policy: DEFAULT_POLICY, adapters: ADAPTERS, maxOpenRuns });
  const viewOf = (h: Handle): SpanView => ({ ...h, events: [], links: [], statusCode: 0 });
  const open = (
    spanId: string,
    parentSpanId: string | undefined,
    attributes: Record<string, unknown>,
    startMillis = 0,
    trackedMillis?: number,
  ): Handle => {
    const handle = {
      name: String(attributes['gen_ai.operation.name'] ?? 'other'),
      attributes,
      spanId,
      parentSpanId,
      startMillis,
    };
    fold.start({ spanId, parentSpanId, startMillis, trackedMillis }, handle);
    return handle;
  };
  const close = (handle: Handle, endMillis: number, recorded: Partial<SpanView> = {}) =>
    fold.end({ ...viewOf(handle), endMillis, ...recorded }, handle);
  return { fold, open, close, viewOf };
}

const SUCCESS: Incident = {
  outcome: 'success',
  factsComplete: true,
  missingFacts: [],
  sideEffects: 'unknown',
  attempts: 0,
  recoveredAttempts: 0,
};

/** An empty run's verdict when the fold lost its facts: incomplete, failing closed. */
const EVIDENCE_LOST: Incident = {
  outcome: 'incomplete',
  cause: 'unknown_interruption',
  phase: 'unknown',
  retrySafety: 'ask_user_before_retry',
  retrySafetyReason: 'side_effect_facts_incomplete',
  factsComplete: false,
  missingFacts: ['evidence_truncated'],
  sideEffects: 'unknown',
  attempts: 0,
  recoveredAttempts: 0,
};

describe('tracks the spans of runs', () => {
  it('a run span starts a run, the spans under it are its parts, any other span is ignored', () => {
    const { fold, open } = folder();
    open('run', undefined, RUN);
    open('chat', 'run', CHAT, 1);
    open('stray', undefined, {}, 2);
    open('stray-child', 'stray', CHAT, 3);
    expect([fold.openRuns, fold.trackedSpans]).toEqual([1, 2]);
    expect(['run', 'chat', 'stray', 'stray-child', undefined].map((id) => fold.isTracked(id))).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    expect([fold.isRun('run'), fold.isRun('chat')]).toEqual([true, false]);
  });

  it('ending a span outside any run gives nothing', () => {
    const { close } = folder();
    expect(close({ name: 'other', attributes: {}, spanId: 'x', startMillis: 0 }, 1)).toBeUndefined();
  });

  it('a span that became a run after it started is tracked from then on, once', () => {
    const { fold, open } = folder();
    const late = open('late', undefined, {});
    expect(fold.startLateRun({ spanId: 'other', startMillis: 0 }, { ...late, spanId: 'other' })).toBe(false);
    late.attributes = RUN;
    expect(fold.startLateRun({ spanId: 'late', startMillis: 0 }, late)).toBe(true);
    expect(fold.isRun('late')).toBe(true);
    expect(fold.startLateRun({ spanId: 'late', startMillis: 0 }, late)).toBe(false);
  });
});

describe('judges attempts and runs as their spans end', () => {
  it('a failed attempt gives its own verdict; the run then gives the run verdict, and its state is dropped', () => {
    const { fold, open, close } = folder();
    const run = open('run', undefined, RUN);
    const chat = open('chat', 'run', CHAT, 1);
    expect(close(chat, 5, DROPPED)).toEqual({
      kind: 'attempt',
      verdict: {
        number: 1,
        cause: 'provider_transport_disconnect',
        causeDetail: 'connection_reset',
        phase: 'unknown',
        retrySafety: 'ask_user_before_retry',
        retrySafetyReason: 'side_effect_facts_incomplete',
        retryable: true,
        errorCode: 'ECONNRESET',
        lost: { attempts: 1, inputTokens: 0, outputTokens: 0, lowerBound: true },
      },
    });
    const folded = close(run, 10);
    expect(folded?.kind === 'run' && folded.tracked).toBe(true);
    expect(folded?.kind === 'run' && folded.incident).toEqual({
      outcome: 'failed',
      cause: 'provider_transport_disconnect',
      causeDetail: 'connection_reset',
      phase: 'unknown',
      retrySafety: 'ask_user_before_retry',
      retrySafetyReason: 'side_effect_facts_incomplete',
      retryable: true,
      errorCode: 'ECONNRESET',
      factsComplete: false,
      missingFacts: ['side_effect_boundary_missing', 'provider_progress_missing'],
      sideEffects: 'none',
      attempts: 1,
      recoveredAttempts: 0,
      lost: { attempts: 1, inputTokens: 0, outputTokens: 0, lowerBound: true },
    });
    expect([fold.openRuns, fold.trackedSpans]).toEqual([0, 0]);
  });

  it('a run span it never saw start is judged untracked, as a run whose facts were lost', () => {
    const { close } = folder();
    const folded = close({ name: 'invoke_agent', attributes: RUN, spanId: 'unseen', startMillis: 0 }, 1);
    expect(folded).toEqual({
      kind: 'run',
      incident: EVIDENCE_LOST,
      facts: { facts: [], attempts: [], evidenceTruncated: true },
      tracked: false,
    });
  });
});

describe('cuts off the spans of a run still open when it ends', () => {
  it('returns their handles newest first, skips those already ended, and the verdict says children were open', () => {
    const { fold, open, close } = folder();
    const run = open('run', undefined, RUN);
    open('chat', 'run', CHAT, 1);
    open('bash', 'run', tool('bash'), 2);
    open('gone', 'run', tool('read'), 3);
    const cut = fold.cutOpenSpans('run', (h) => h.spanId !== 'gone');
    expect(cut.map((h) => h.spanId)).toEqual(['bash', 'chat']);
    expect(fold.cutOpenSpans('no-such-run')).toEqual([]);
    const folded = close(run, 10);
    expect(folded?.kind === 'run' && folded.facts.openChildren).toBe(true);
    expect(folded?.kind === 'run' && folded.facts.truncatedAttempts).toEqual(['chat']);
    expect(folded?.kind === 'run' && folded.incident.missingFacts).toContain('open_child_spans');
  });
});

describe('nested runs', () => {
  it("a sub-agent under a tool is a run of its own, and its side effects count for its parent's run", () => {
    const { fold, open, close } = folder();
    const parent = open('r1', undefined, RUN);
    const delegate = open('t1', 'r1', tool('delegate'), 1);
    const sub = open('r2', 't1', RUN, 2);
    close(open('w', 'r2', tool('write_file'), 3), 4);
    expect([fold.openRuns, fold.isRun('r2')]).toEqual([2, true]);
    expect(close(sub, 5)).toMatchObject({ kind: 'run', incident: SUCCESS, tracked: true });
    close(delegate, 6);
    const folded = close(parent, 7);
    expect(folded?.kind === 'run' && folded.facts.facts[0]).toEqual({
      kind: 'child_run_side_effects',
      sideEffects: 'unknown',
      timeMillis: 5,
      seq: 1_000_000_000,
    });
  });

  it('a nested run judged before its parent was seen counts as if it had ended here', () => {
    const { fold, open, viewOf } = folder();
    open('r', undefined, RUN);
    open('t', 'r', tool('delegate'), 1);
    fold.nestedRunJudged('t', 'unsafe', true, 2);
    fold.nestedRunJudged('unknown-span', 'unsafe', true, 2);
    const facts = fold.peek('r', viewOf);
    expect(facts?.facts[0]).toEqual({
      kind: 'child_run_side_effects',
      sideEffects: 'unsafe',
      timeMillis: 2,
      seq: 1_000_000_000,
    });
    expect(facts?.evidenceTruncated).toBe(true);
  });
});

describe("the edge's marks reach the verdict", () => {
  it.each([
    [
      'markNeverEnded: crash_or_restart_incomplete, run_never_ended',
      (fold: RunFolder<Handle>) => fold.markNeverEnded('r'),
      {
        outcome: 'incomplete',
        cause: 'crash_or_restart_incomplete',
        causeDetail: 'run_never_ended',
        phase: 'unknown',
        retrySafety: 'unknown',
        retrySafetyReason: 'unknown',
        factsComplete: false,
        missingFacts: ['run_never_ended'],
        sideEffects: 'none',
        attempts: 0,
        recoveredAttempts: 0,
      },
    ],
    [
      'markEvidenceTruncated: fails closed',
      (fold: RunFolder<Handle>) => fold.markEvidenceTruncated('r'),
      EVIDENCE_LOST,
    ],
  ])('%s', (_mark, mark, incident) => {
    const { fold, open, close } = folder();
    const run = open('r', undefined, RUN);
    mark(fold);
    expect(close(run, 1)).toMatchObject({ kind: 'run', incident, tracked: true });
  });

  it('forget drops a run without a verdict: its span ending later is judged untracked', () => {
    const { fold, open, close } = folder();
    const run = open('r', undefined, RUN);
    open('c', 'r', CHAT, 1);
    fold.forget('r');
    expect([fold.openRuns, fold.trackedSpans]).toEqual([0, 0]);
    expect(close(run, 3)).toMatchObject({ kind: 'run', incident: EVIDENCE_LOST, tracked: false });
  });

  it('peek gives the facts of an open run so far, and nothing for an unknown run', () => {
    const { fold, open, viewOf } = folder();
    open('r', undefined, RUN);
    open('c', 'r', CHAT, 1);
    open('t', 'r', tool('bash'), 2);
    // The open attempt counts as finished so far, and the open tool as started.
    expect(fold.peek('r', viewOf)?.facts).toEqual([
      { kind: 'attempt_finished', timeMillis: 1, attempt: 'c', seq: 1_000_000_000 },
      {
        kind: 'tool_execution_started',
        tool: 'bash',
        sideEffects: 'unknown',
        timeMillis: 2,
        attempt: 'c',
        seq: 1_000_000_001,
      },
    ]);
    expect(fold.peek('r', viewOf)?.attempts).toEqual([{ key: 'c', number: 1, startMillis: 1 }]);
    expect(fold.peek('nope', viewOf)).toBeUndefined();
  });
});

describe('a bounded run table', () => {
  it('past maxOpenRuns drops the oldest run and counts it', () => {
    const { fold, open } = folder(1);
    open('a', undefined, RUN, 0);
    open('b', undefined, RUN, 1);
    expect([fold.openRuns, fold.evictedRuns, fold.isRun('a'), fold.isRun('b')]).toEqual([1, 1, false, true]);
  });

  it('lists the oldest run, every run oldest first, and the runs tracked longer than an age, by when tracking began', () => {
    const { fold, open } = folder();
    const a = open('a', undefined, RUN, 50, 100);
    const b = open('b', undefined, RUN, 0, 200);
    expect(fold.oldestRun()).toMatchObject({ handle: a, spanId: 'a', startMillis: 50, trackedMillis: 100 });
    expect(fold.openRunHandles()).toEqual([
      { handle: a, spanId: 'a' },
      { handle: b, spanId: 'b' },
    ]);
    expect(fold.runsOlderThan(250, 100)).toEqual([{ handle: a, spanId: 'a' }]);
    expect(fold.runsOlderThan(250, 150)).toEqual([]);
  });

  it('measures age from the start time when the edge gives no tracking time', () => {
    const { fold, open } = folder();
    open('a', undefined, RUN, 40);
    expect(fold.oldestRun()?.trackedMillis).toBe(40);
  });
});

/**
 * peekRun: the facts of an open run as they stand, without changing it: its
 * open tools read as started and running, its open nested runs' side effects
 * placed under the attempt they run in, and lost evidence of open spans.
 */
import { describe, expect, it } from 'vitest';
import { genAiAdapter } from '../../src/conventions/gen-ai.js';
import { ADAPTERS } from '../../src/conventions/index.js';
import type { SpanView } from '../../src/conventions/span-view.js';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import type { LiveSpan, RunState } from '../../src/fold/open-run-state.js';
import { SEQ_BASE, startedRunState } from '../../src/fold/open-run-state.js';
import { peekRun } from '../../src/fold/peek-run.js';
import { RunTable } from '../../src/fold/run-table.js';

const RULES = { policy: DEFAULT_POLICY, adapters: ADAPTERS };
const TOOL = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'bash' };

/** A span handle that knows its own view, as the edges' handles do. */
type Handle = LiveSpan & { view: SpanView };
const handle = (spanId: string, attributes: Record<string, unknown>, fields: Partial<SpanView> = {}): Handle => {
  const view: SpanView = {
    spanId,
    name: spanId,
    startMillis: 20,
    attributes,
    events: [],
    links: [],
    statusCode: 0,
    ...fields,
  };
  return { name: spanId, attributes, view };
};
const viewOf = (h: Handle): SpanView => h.view;

function runOf(spanId: string, runs: RunTable<Handle>, parent?: RunState<Handle>): RunState<Handle> {
  const run = startedRunState<Handle>({
    spanId,
    handle: handle(spanId, { 'gen_ai.operation.name': 'invoke_agent' }, { startMillis: 0 }),
    adapter: genAiAdapter,
    parent,
    parentSpanId: parent ? 'a1' : undefined,
    startMillis: 0,
    trackedMillis: 0,
  });
  runs.addRun(run);
  return run;
}

describe('peekRun', () => {
  it('reads an open tool as started and still running, leaving the run as it was', () => {
    const runs = new RunTable<Handle>();
    const run = runOf('run', runs);
    run.attempts.push({ key: 'a1', number: 1, startMillis: 10 });
    runs.addSpan(run, 't1', {
      handle: handle('t1', TOOL),
      parentSpanId: 'a1',
      role: 'tool',
      adapter: genAiAdapter,
      startMillis: 20,
      truncated: false,
    });
    const facts = peekRun(run, viewOf, runs, RULES);
    expect(facts.facts).toEqual([
      {
        kind: 'tool_execution_started',
        tool: 'bash',
        sideEffects: 'unknown',
        timeMillis: 20,
        attempt: 'a1',
        seq: SEQ_BASE,
      },
    ]);
    expect(facts.attempts).toEqual(run.attempts);
    expect(facts.attempts).not.toBe(run.attempts);
    expect([facts.evidenceTruncated, facts.progressUnknown]).toEqual([false, false]);
    expect([run.facts, run.nextSeq]).toEqual([[], SEQ_BASE]);
  });

  it('places an open nested run’s side effects under the attempt it runs in', () => {
    const runs = new RunTable<Handle>();
    const parent = runOf('run', runs);
    parent.attempts.push({ key: 'a1', number: 1, startMillis: 10 });
    runs.addSpan(parent, 'a1', {
      handle: handle('a1', { 'gen_ai.operation.name': 'chat' }),
      parentSpanId: 'run',
      role: 'attempt',
      adapter: genAiAdapter,
      startMillis: 10,
      truncated: false,
    });
    const child = runOf('child', runs, parent);
    child.facts.push({ kind: 'tool_execution_started', sideEffects: 'unsafe', timeMillis: 30, seq: 1 });
    const facts = peekRun(parent, viewOf, runs, RULES);
    expect(facts.facts.filter((f) => f.kind === 'child_run_side_effects')).toEqual([
      {
        kind: 'child_run_side_effects',
        sideEffects: 'unsafe',
        timeMillis: 0,
        seq: expect.any(Number) as number,
        attempt: 'a1',
      },
    ]);
    expect(parent.facts).toEqual([]);
  });

  it('says evidence was lost when an open span or the run span dropped events', () => {
    const runs = new RunTable<Handle>();
    const run = runOf('run', runs);
    runs.addSpan(run, 't1', {
      handle: handle('t1', TOOL, { droppedEventsCount: 1 }),
      parentSpanId: 'run',
      role: 'tool',
      adapter: genAiAdapter,
      startMillis: 20,
      truncated: false,
    });
    expect(peekRun(run, viewOf, runs, RULES).evidenceTruncated).toBe(true);
    expect(run.evidenceTruncated).toBe(false);
  });

  it('peeks a run with nothing open as its own facts', () => {
    const runs = new RunTable<Handle>();
    const run = runOf('run', runs);
    run.facts.push({ kind: 'provider_progress', timeMillis: 5, seq: 1 });
    expect(peekRun(run, viewOf, runs, RULES)).toEqual({
      facts: [{ kind: 'provider_progress', timeMillis: 5, seq: 1 }],
      attempts: [],
      evidenceTruncated: false,
      progressUnknown: false,
      progressUnknownAttempts: [],
    });
  });
});

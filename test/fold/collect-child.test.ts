/**
 * collectChild: an ended span under a tracked run leaves the run table, its
 * facts go into the run in the attempt it belongs to, a late-recognised
 * attempt is registered, cut-off and lost evidence are recorded, and a failed
 * attempt's verdict comes back at once.
 */
import { describe, expect, it } from 'vitest';
import { genAiAdapter } from '../../src/conventions/gen-ai.js';
import { ADAPTERS } from '../../src/conventions/index.js';
import type { SpanRole, SpanView } from '../../src/conventions/span-view.js';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import { collectChild } from '../../src/fold/collect-child.js';
import type { LiveSpan, RunState } from '../../src/fold/open-run-state.js';
import { startedRunState } from '../../src/fold/open-run-state.js';
import { RunTable } from '../../src/fold/run-table.js';

const RULES = { policy: DEFAULT_POLICY, adapters: ADAPTERS };
const CHAT = { 'gen_ai.operation.name': 'chat' };
const TOOL = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'bash' };

/** A run with attempt a1 open, and the table that tracks it. */
function tracked(): { run: RunState<LiveSpan>; runs: RunTable<LiveSpan> } {
  const runs = new RunTable<LiveSpan>();
  const run = startedRunState<LiveSpan>({
    spanId: 'run',
    handle: { name: 'invoke_agent', attributes: { 'gen_ai.operation.name': 'invoke_agent' } },
    adapter: genAiAdapter,
    startMillis: 0,
    trackedMillis: 0,
  });
  runs.addRun(run);
  run.attempts.push({ key: 'a1', number: 1, startMillis: 10 });
  open(run, runs, 'a1', 'attempt', 'run', CHAT, 10);
  return { run, runs };
}
function open(
  run: RunState<LiveSpan>,
  runs: RunTable<LiveSpan>,
  spanId: string,
  role: SpanRole,
  parentSpanId: string,
  attributes: Record<string, unknown>,
  startMillis: number,
): void {
  runs.addSpan(run, spanId, {
    handle: { name: spanId, attributes },
    parentSpanId,
    role,
    adapter: role === 'other' ? undefined : genAiAdapter,
    startMillis,
    truncated: false,
  });
}
const view = (
  spanId: string,
  parentSpanId: string,
  attributes: Record<string, unknown>,
  fields: Partial<SpanView> = {},
): SpanView => ({
  spanId,
  parentSpanId,
  name: spanId,
  startMillis: 20,
  endMillis: 30,
  attributes,
  events: [],
  links: [],
  statusCode: 0,
  ...fields,
});

describe('collectChild', () => {
  it('folds an ended tool span into the attempt it ran under and removes it from the table', () => {
    const { run, runs } = tracked();
    open(run, runs, 't1', 'tool', 'a1', TOOL, 20);
    expect(collectChild(run, view('t1', 'a1', TOOL), runs, RULES)).toBeUndefined();
    expect(run.facts.map((f) => [f.kind, f.attempt, f.timeMillis])).toEqual([
      ['tool_execution_started', 'a1', 20],
      ['tool_execution_completed', 'a1', 30],
    ]);
    expect(run.open.has('t1')).toBe(false);
    expect(runs.owner('t1')).toBeUndefined();
  });

  it('skips a span of no convention without events', () => {
    const { run, runs } = tracked();
    open(run, runs, 'x', 'other', 'a1', {}, 20);
    expect(collectChild(run, view('x', 'a1', {}), runs, RULES)).toBeUndefined();
    expect([run.facts, run.open.has('x')]).toEqual([[], false]);
  });

  it('returns the verdict of an attempt that failed', () => {
    const { run, runs } = tracked();
    const failed = view('a1', 'run', CHAT, {
      startMillis: 10,
      events: [
        {
          name: 'agent_incidents.provider_error',
          timeMillis: 25,
          attributes: { 'agent_incidents.error.kind': 'transport', 'agent_incidents.error.detail': 'socket_closed' },
        },
      ],
      statusCode: 2,
    });
    const verdict = collectChild(run, failed, runs, RULES);
    expect(verdict).toMatchObject({ number: 1, cause: 'provider_transport_disconnect', causeDetail: 'socket_closed' });
    expect(run.facts.some((f) => f.kind === 'provider_error' && f.attempt === 'a1')).toBe(true);
  });

  it('registers a span that became an attempt after its start, with its parent', () => {
    const { run, runs } = tracked();
    open(run, runs, 'late', 'other', 'run', CHAT, 40);
    collectChild(run, view('late', 'run', CHAT, { startMillis: 40, endMillis: 50 }), runs, RULES);
    expect(run.attempts.map((a) => [a.key, a.number])).toEqual([
      ['a1', 1],
      ['late', 2],
    ]);
    expect(run.attemptParents.get('late')).toBe('run');
  });

  it('records lost evidence of a span that dropped events', () => {
    const { run, runs } = tracked();
    open(run, runs, 'x', 'other', 'a1', {}, 20);
    collectChild(run, view('x', 'a1', {}, { droppedEventsCount: 2 }), runs, RULES);
    expect(run.evidenceTruncated).toBe(true);
  });

  it('reads an attempt cut off upstream as cut off: open children, a truncated attempt', () => {
    const { run, runs } = tracked();
    collectChild(run, view('a1', 'run', { ...CHAT, 'incident.truncated': true }, { startMillis: 10 }), runs, RULES);
    expect([run.openChildren, run.truncatedAttempts]).toEqual([true, ['a1']]);
  });
});

/**
 * The fold core reads a trace by its structure: what a span descends from,
 * names and links to, whether it ended. Never by comparing the clocks of two
 * spans, so skew between them changes no verdict; and a fact that may have
 * been lost only ever makes a verdict more cautious.
 */
import { describe, expect, it } from 'vitest';
import type { EventView, SpanView } from '../../src/conventions/span-view.js';
import { foldTrace } from '../../src/fold/fold-trace.js';

const T0 = 1_700_000_000_000;
let seq = 0;

function span(
  id: string,
  parent: string | undefined,
  attributes: Record<string, unknown>,
  start: number,
  end: number | undefined,
  events: EventView[] = [],
  extra: Partial<SpanView> = {},
): SpanView {
  return {
    spanId: id,
    parentSpanId: parent,
    name: String(attributes['gen_ai.operation.name'] ?? 'x'),
    attributes,
    startMillis: T0 + start,
    endMillis: end === undefined ? undefined : T0 + end,
    events,
    links: [],
    statusCode: 0,
    ...extra,
  };
}
const fact = (name: string, at: number, attributes: Record<string, unknown> = {}): EventView => ({
  name: `agent_incidents.${name}`,
  timeMillis: T0 + at,
  attributes: { ...attributes, 'agent_incidents.seq': ++seq },
});
const run = (
  id: string,
  start: number,
  end: number | undefined,
  events: EventView[] = [],
  extra: Partial<SpanView> = {},
  parent?: string,
) => span(id, parent, { 'gen_ai.operation.name': 'invoke_agent' }, start, end, events, extra);
const attempt = (
  id: string,
  parent: string,
  n: number,
  start: number,
  end: number | undefined,
  events: EventView[],
  extra: Partial<SpanView> = {},
) =>
  span(id, parent, { 'gen_ai.operation.name': 'chat', 'agent_incidents.attempt.number': n }, start, end, events, extra);
const tool = (
  id: string,
  parent: string,
  name: string,
  cls: string,
  start: number,
  end: number | undefined,
  attrs: Record<string, unknown> = {},
) =>
  span(
    id,
    parent,
    {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': name,
      'agent_incidents.tool.side_effects': cls,
      ...attrs,
    },
    start,
    end,
  );
const boundary = (at: number) =>
  fact('side_effect_boundary', at, {
    'agent_incidents.boundary.read_only_tools': ['read'],
    'agent_incidents.boundary.unsafe_tools': ['bash'],
  });
const drop = (at: number) =>
  fact('provider_error', at, {
    'agent_incidents.error.kind': 'transport',
    'agent_incidents.error.detail': 'socket_closed',
    'agent_incidents.error.retryable': true,
  });

/** A successful run: one attempt that streamed text and finished. */
function success(runEnd: number, attemptEnd: number): SpanView[] {
  return [
    run('r', 0, runEnd),
    attempt('a1', 'r', 1, 10, attemptEnd, [
      boundary(11),
      fact('text_output_started', 20),
      fact('attempt_finished', 30),
    ]),
  ];
}

const verdictOf = (spans: SpanView[], carrier = 'r') => foldTrace(spans).runs.get(carrier);

describe('the fold never compares the clocks of two spans', () => {
  it.each([0.1, 0.5, 1, 2, 50])("a child whose recorded end is %s ms after its run's still ended before it", (skew) => {
    expect(verdictOf(success(40, 40 + skew))).toMatchObject({ outcome: 'success', factsComplete: true });
  });

  it('a tool is in the attempt it names, even when the next attempt started in the same millisecond', () => {
    const spans = [
      run('r', 0, 100),
      span('call', 'r', { 'ai.operationId': 'ai.streamText' }, 1, 99),
      attempt('a1', 'call', 1, 10, 30, [
        boundary(10),
        fact('tool_call_materialized', 20, {
          'gen_ai.tool.name': 'read',
          'agent_incidents.tool.side_effects': 'read_only',
        }),
        fact('attempt_finished', 29),
      ]),
      tool('t1', 'call', 'read', 'read_only', 40, 45, { 'agent_incidents.attempt.number': 1 }),
      attempt('a2', 'call', 2, 40, 60, [boundary(40), drop(50)]),
    ];
    // Step 2 ran nothing: its drop before any output is retryable on its own (a next step is no retry).
    expect(verdictOf(spans)).toMatchObject({
      outcome: 'failed',
      cause: 'provider_transport_disconnect',
      phase: 'before_first_provider_progress',
      retrySafety: 'auto_retry',
      sideEffects: 'read_only',
    });
  });

  it('a failed attempt followed by a higher-numbered one was retried, whatever the start times say', () => {
    const spans = [
      run('r', 0, 100),
      attempt('a1', 'r', 1, 10, 30, [boundary(10), drop(29)]),
      attempt('a2', 'r', 2, 28, 60, [boundary(28), fact('text_output_started', 40), fact('attempt_finished', 59)]),
    ];
    expect(verdictOf(spans)).toMatchObject({ outcome: 'recovered', attempts: 2, recoveredAttempts: 1 });
  });
});

describe('a span open when its run ended is cut off there', () => {
  const open = [run('r', 0, 50), attempt('a1', 'r', 1, 10, undefined, [boundary(11), fact('text_output_started', 20)])];
  const marked = [
    run('r', 0, 50),
    attempt('a1', 'r', 1, 10, 50, [boundary(11), fact('text_output_started', 20)], {
      attributes: { 'gen_ai.operation.name': 'chat', 'agent_incidents.attempt.number': 1, 'incident.truncated': true },
    }),
  ];

  it.each([
    ['arrived without an end', open],
    ['arrived ended and marked incident.truncated by its recorder or processor', marked],
  ])('an attempt that %s, with no finish or failure, ends the run unnamed', (_how, spans) => {
    expect(verdictOf(spans)).toMatchObject({
      outcome: 'failed',
      cause: 'unknown_interruption',
      phase: 'text_generation',
      missingFacts: ['open_child_spans', 'terminal_event_missing'],
    });
  });

  it('an attempt whose finish was recorded is not cut off, even if its span was left open', () => {
    const spans = [
      run('r', 0, 50),
      attempt('a1', 'r', 1, 10, undefined, [
        boundary(11),
        fact('text_output_started', 20),
        fact('attempt_finished', 30),
      ]),
    ];
    expect(verdictOf(spans)).toMatchObject({ outcome: 'success', missingFacts: ['open_child_spans'] });
  });

  it('a tool open at the run end is still running', () => {
    const spans = [
      run('r', 0, 60),
      attempt('a1', 'r', 1, 10, 30, [boundary(11), drop(29)]),
      tool('t', 'r', 'bash', 'unsafe', 20, undefined, { 'agent_incidents.attempt.number': 1 }),
    ];
    expect(verdictOf(spans)).toMatchObject({
      retrySafety: 'ask_user_before_retry',
      retrySafetyReason: 'unsafe_side_effect_started',
      sideEffects: 'unsafe',
    });
    expect(foldTrace(spans).cut.has('t')).toBe(true);
  });

  it('a top-level run span marked incident.truncated never ended', () => {
    const spans = success(40, 30);
    spans[0] = run('r', 0, 40, [], {
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'incident.truncated': true },
    });
    expect(verdictOf(spans)).toMatchObject({ outcome: 'incomplete', missingFacts: ['run_never_ended'] });
  });
});

describe('a fact that may be lost makes the verdict more cautious, never less', () => {
  const autoRetry = () => [run('r', 0, 50), attempt('a1', 'r', 1, 10, 30, [boundary(11), drop(29)])];

  it('a drop before any output is auto_retry when nothing was lost', () => {
    expect(verdictOf(autoRetry())).toMatchObject({ outcome: 'failed', retrySafety: 'auto_retry', factsComplete: true });
  });

  it.each([
    ['dropped events on the attempt', { droppedEventsCount: 3 }],
    ['dropped attributes on the attempt', { droppedAttributesCount: 1 }],
  ])('%s: incomplete, evidence_truncated, ask the user', (_what, extra) => {
    const spans = autoRetry();
    spans[1] = { ...(spans[1] as SpanView), ...extra };
    expect(verdictOf(spans)).toMatchObject({
      outcome: 'incomplete',
      retrySafety: 'ask_user_before_retry',
      retrySafetyReason: 'side_effect_facts_incomplete',
      factsComplete: false,
    });
    expect(verdictOf(spans)?.missingFacts).toContain('evidence_truncated');
  });

  it('a dropped attribute on a fact event counts too', () => {
    const spans = autoRetry();
    const events = (spans[1] as SpanView).events.map((e, i) => (i === 1 ? { ...e, droppedAttributesCount: 2 } : e));
    spans[1] = { ...(spans[1] as SpanView), events };
    expect(verdictOf(spans)?.missingFacts).toContain('evidence_truncated');
  });

  it('dropped attributes on a run span lose no fact', () => {
    const spans = autoRetry();
    spans[0] = { ...(spans[0] as SpanView), droppedAttributesCount: 5 };
    expect(verdictOf(spans)).toMatchObject({ outcome: 'failed', retrySafety: 'auto_retry' });
  });

  it('a late run span whose parts were judged under a stand-in is judged fail-closed', () => {
    const fold = foldTrace([run('r', 0, 50)], { judgedAsStandIns: new Set(['r']) });
    expect(fold.runs.get('r')).toMatchObject({ outcome: 'incomplete', attempts: 0, factsComplete: false });
  });

  it('spans under a run judged earlier get no stand-in and no second verdict', () => {
    const fold = foldTrace([attempt('a9', 'r', 3, 10, 20, [drop(15)])], { judgedRuns: new Set(['r']) });
    expect(fold.runs.size).toBe(0);
  });
});

describe('a run whose span never arrived', () => {
  it('is judged as never ended, on the topmost span that did arrive', () => {
    const spans = [
      attempt('a1', 'gone', 1, 10, 30, [boundary(11), fact('text_output_started', 20), fact('attempt_finished', 29)]),
      tool('t', 'gone', 'bash', 'unsafe', 31, 40, { 'agent_incidents.attempt.number': 1 }),
    ];
    const fold = foldTrace(spans);
    expect(fold.standIns).toEqual(['gone']);
    expect(fold.runs.get('a1')).toMatchObject({
      outcome: 'incomplete',
      cause: 'crash_or_restart_incomplete',
      sideEffects: 'unsafe',
    });
  });

  it('a nested run that arrived does not stand in for its missing parent', () => {
    const spans = [
      run('child', 20, 30, [], {}, 'ptool'),
      tool('ptool', 'parent', 'delegate', 'read_only', 15, 35, { 'agent_incidents.attempt.number': 1 }),
    ];
    const fold = foldTrace(spans);
    expect(fold.standIns).toEqual(['parent']);
    expect([...fold.runs.keys()].sort()).toEqual(['child', 'ptool']);
  });
});

/**
 * GenAI run structure beyond `invoke_agent` (docs/conventions.md#span-roles):
 * an `invoke_workflow` span is a run, its agents runs nested in it; a `plan`
 * span is a step of its run, whose LLM call is an attempt of the run, never an
 * attempt or a tool itself. Plain GenAI spans, as an instrumentation writes them.
 */
import { describe, expect, it } from 'vitest';
import type { EventView, SpanView } from '../../src/conventions/span-view.js';
import { ADAPTERS } from '../../src/conventions/index.js';
import { foldTrace } from '../../src/fold/fold-trace.js';

const T0 = 1_700_000_000_000;
const genAi = ADAPTERS[0]!;

function span(
  id: string,
  parent: string | undefined,
  name: string,
  attributes: Record<string, unknown>,
  start: number,
  end: number,
  extra: Partial<SpanView> = {},
): SpanView {
  return {
    spanId: id,
    parentSpanId: parent,
    name,
    attributes,
    startMillis: T0 + start,
    endMillis: T0 + end,
    events: [],
    links: [],
    statusCode: 0,
    ...extra,
  };
}
const op = (operation: string, extra: Record<string, unknown> = {}) => ({
  'gen_ai.operation.name': operation,
  ...extra,
});
const finished = { 'gen_ai.response.finish_reasons': ['stop'] };
const exception = (at: number, type: string, message: string): EventView => ({
  name: 'exception',
  timeMillis: T0 + at,
  attributes: { 'exception.type': type, 'exception.message': message },
});

describe('the GenAI roles of run structure', () => {
  it.each([
    ['invoke_workflow', 'run'],
    ['invoke_agent', 'run'],
    ['plan', 'other'],
    ['agent_step', 'other'],
    ['create_agent', 'other'],
  ])('operation %s has the role %s', (operation, role) => {
    expect(genAi.role({ name: operation, attributes: op(operation) })).toBe(role);
  });

  it('a span named invoke_workflow without the operation attribute is a run; one named plan is not recognised by its name', () => {
    expect(genAi.role({ name: 'invoke_workflow support_pipeline', attributes: {} })).toBe('run');
    expect(genAi.role({ name: 'plan', attributes: {} })).toBeUndefined();
  });
});

describe('a workflow is a run, its agents nested runs', () => {
  it('a workflow whose agents succeeded succeeds, and each agent has its own verdict', () => {
    const spans = [
      span('w', undefined, 'invoke_workflow crew', op('invoke_workflow', { 'gen_ai.workflow.name': 'crew' }), 0, 100),
      span('a', 'w', 'invoke_agent researcher', op('invoke_agent'), 5, 50),
      span('a.c', 'a', 'chat gpt', op('chat', finished), 10, 40),
      span('b', 'w', 'invoke_agent writer', op('invoke_agent'), 55, 95),
      span('b.c', 'b', 'chat gpt', op('chat', finished), 60, 90),
    ];
    const fold = foldTrace(spans);
    expect([...fold.runs.keys()].sort()).toEqual(['a', 'b', 'w']);
    expect(fold.runs.get('w')).toMatchObject({ outcome: 'success', attempts: 0 });
    expect(fold.runs.get('a')).toMatchObject({ outcome: 'success', attempts: 1 });
  });

  it("an agent's side effects count for its workflow; its failure is its own verdict", () => {
    const spans = [
      span('w', undefined, 'invoke_workflow crew', op('invoke_workflow'), 0, 100),
      span('a', 'w', 'invoke_agent coder', op('invoke_agent'), 5, 90),
      span('a.c', 'a', 'chat gpt', op('chat', finished), 10, 20),
      span(
        'a.t',
        'a',
        'execute_tool bash',
        op('execute_tool', { 'gen_ai.tool.name': 'bash', 'agent_incidents.tool.side_effects': 'unsafe' }),
        21,
        30,
      ),
      span('a.c2', 'a', 'chat gpt', op('chat'), 31, 80, {
        statusCode: 2,
        statusMessage: 'read ECONNRESET',
        events: [exception(80, 'Error', 'read ECONNRESET')],
      }),
    ];
    const fold = foldTrace(spans);
    expect(fold.runs.get('a')).toMatchObject({
      outcome: 'failed',
      cause: 'provider_transport_disconnect',
      sideEffects: 'unsafe',
    });
    expect(fold.runs.get('w')).toMatchObject({ outcome: 'success', sideEffects: 'unsafe' });
  });

  it('an LLM call directly under a workflow is an attempt of the workflow', () => {
    const spans = [
      span('w', undefined, 'invoke_workflow crew', op('invoke_workflow'), 0, 100),
      span('m', 'w', 'chat gpt', op('chat'), 10, 60, {
        statusCode: 2,
        statusMessage: '503 Service Unavailable',
        attributes: op('chat', { 'http.response.status_code': 503 }),
      }),
    ];
    expect(foldTrace(spans).runs.get('w')).toMatchObject({
      outcome: 'failed',
      cause: 'provider_api_error',
      causeDetail: 'server_overload',
      attempts: 1,
    });
  });
});

describe('a plan is a step of its run', () => {
  const planned = (planChat: Partial<SpanView>) => [
    span('r', undefined, 'invoke_agent coder', op('invoke_agent'), 0, 100),
    span('p', 'r', 'plan coder', op('plan', { 'gen_ai.agent.name': 'coder' }), 5, 40),
    span('p.c', 'p', 'chat gpt', op('chat'), 10, 35, planChat),
    span(
      't',
      'r',
      'execute_tool read',
      op('execute_tool', { 'gen_ai.tool.name': 'read', 'agent_incidents.tool.side_effects': 'read_only' }),
      45,
      50,
    ),
    span('c', 'r', 'chat gpt', op('chat', finished), 55, 95),
  ];

  it("the plan's LLM call is an attempt of the run, and the plan itself neither an attempt nor a tool", () => {
    const verdict = foldTrace(planned({ attributes: op('chat', finished) })).runs.get('r');
    expect(verdict).toMatchObject({ outcome: 'success', attempts: 2, sideEffects: 'read_only' });
  });

  it('a failed planning call that the run went on from is a recovered attempt of the run', () => {
    const verdict = foldTrace(
      planned({
        statusCode: 2,
        statusMessage: '429 Too Many Requests',
        attributes: op('chat', { 'http.response.status_code': 429 }),
      }),
    ).runs.get('r');
    expect(verdict).toMatchObject({
      outcome: 'recovered',
      cause: 'provider_api_error',
      causeDetail: 'rate_limit',
      attempts: 2,
      recoveredAttempts: 1,
    });
  });
});

/**
 * The GenAI adapter on plain span views: what it reads from structure, status
 * and native events, and what it refuses to guess.
 */
import { describe, expect, it } from 'vitest';
import type { ExtractContext, SpanView } from '../../src/conventions/index.js';
import { ADAPTERS } from '../../src/conventions/index.js';

const adapter = ADAPTERS[0]!;

function view(overrides: Partial<SpanView>): SpanView {
  return {
    spanId: 's1',
    name: 'chat',
    startMillis: 1000,
    endMillis: 2000,
    attributes: { 'gen_ai.operation.name': 'chat' },
    events: [],
    links: [],
    statusCode: 0,
    ...overrides,
  };
}

function context(overrides: Partial<ExtractContext> = {}): ExtractContext {
  return { attempt: 's1', truncated: false, trustedReadOnlyTools: [], attemptKeyOf: () => undefined, ...overrides };
}

describe('GenAI adapter', () => {
  it.each([
    ['invoke_agent', 'run'],
    ['chat', 'attempt'],
    ['generate_content', 'attempt'],
    ['execute_tool', 'tool'],
    ['embeddings', 'other'],
  ])('gives operation %s the role %s', (operation, role) => {
    expect(adapter.role({ name: 'x', attributes: { 'gen_ai.operation.name': operation } })).toBe(role);
  });

  it.each<[string, Record<string, unknown>, unknown]>([
    ['inputs recorded and no definitions: none exposed', { 'gen_ai.input.messages': '[]' }, []],
    [
      'each definition',
      { 'gen_ai.tool.definitions': JSON.stringify([{ type: 'function', name: 'bash' }]) },
      [{ name: 'bash', sideEffects: 'unknown', providerExecuted: false }],
    ],
    [
      'definitions cut by a length limit: unknown, even with inputs recorded',
      { 'gen_ai.input.messages': '[]', 'gen_ai.tool.definitions': '[{"type":"function","name":"ba' },
      undefined,
    ],
    ['definitions that are no list: unknown', { 'gen_ai.tool.definitions': '{"name":"bash"}' }, undefined],
  ])('reads the side-effect boundary from gen_ai.tool.definitions: %s', (_what, attributes, tools) => {
    const span = view({ attributes: { 'gen_ai.operation.name': 'chat', ...attributes } });
    const boundary = adapter.extract(span, 'attempt', context()).facts.find((f) => f.kind === 'side_effect_boundary');
    expect(boundary && 'boundary' in boundary ? boundary.boundary.tools : undefined).toEqual(tools);
  });

  it('recognises spans by name when the operation attribute is missing', () => {
    expect(adapter.role({ name: 'invoke_agent planner', attributes: {} })).toBe('run');
    expect(adapter.role({ name: 'GET /health', attributes: {} })).toBeUndefined();
  });

  it.each([
    ['ERROR upstream returned EMPTY RESPONSE', undefined],
    ['read ECONNRESET', 'ECONNRESET'],
    ['fetch failed (cause: UND_ERR_SOCKET)', 'UND_ERR_SOCKET'],
  ])('reads error codes from a status message only when they are real codes: %s', (message, code) => {
    const facts = adapter.extract(view({ statusCode: 2, statusMessage: message }), 'attempt', context()).facts;
    const error = facts.find((f) => f.kind === 'provider_error');
    expect(error && 'error' in error ? error.error.code : undefined).toBe(code);
  });

  it('reads progress from time_to_first_chunk and says when it cannot tell', () => {
    const withChunk = adapter.extract(
      view({
        statusCode: 2,
        attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.response.time_to_first_chunk': 0.25 },
      }),
      'attempt',
      context(),
    );
    expect(withChunk.facts.find((f) => f.kind === 'provider_progress')?.timeMillis).toBe(1250);
    expect(withChunk.progressUnknown).toBe(false);
    const without = adapter.extract(view({ statusCode: 2 }), 'attempt', context());
    expect(without.progressUnknown).toBe(true);
  });

  it('does not treat a tool failure recorded on an attempt span as a started tool', () => {
    const facts = adapter.extract(
      view({ events: [{ name: 'agent_incidents.tool_execution_failed', timeMillis: 1500 }] }),
      'attempt',
      context(),
    ).facts;
    expect(facts).toContainEqual(expect.objectContaining({ kind: 'tool_execution_failed', startSeen: false }));
  });

  it('trusts a configured read-only tool only when the call carries no class', () => {
    const events = [
      {
        name: 'agent_incidents.tool_call_materialized',
        timeMillis: 1100,
        attributes: { 'gen_ai.tool.name': 'search' },
      },
      {
        name: 'agent_incidents.tool_call_materialized',
        timeMillis: 1200,
        attributes: { 'gen_ai.tool.name': 'search', 'agent_incidents.tool.side_effects': 'unsafe' },
      },
    ];
    const facts = adapter.extract(view({ events }), 'attempt', context({ trustedReadOnlyTools: ['search'] })).facts;
    expect(facts.map((f) => ('sideEffects' in f ? f.sideEffects : undefined))).toEqual(['read_only', 'unsafe']);
  });

  it('derives a tool execution from an execute_tool span, classified by attribute or trust', () => {
    const tool = view({
      name: 'execute_tool grep',
      attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'grep' },
    });
    expect(adapter.extract(tool, 'tool', context()).facts.map((f) => f.kind)).toEqual([
      'tool_execution_started',
      'tool_execution_completed',
    ]);
    expect(adapter.extract(tool, 'tool', context({ trustedReadOnlyTools: ['grep'] })).facts[0]).toMatchObject({
      sideEffects: 'read_only',
    });
    expect(adapter.extract(tool, 'tool', context()).facts[0]).toMatchObject({ sideEffects: 'unknown' });
    expect(adapter.extract(tool, 'tool', context({ truncated: true })).facts.map((f) => f.kind)).toEqual([
      'tool_execution_started',
    ]);
  });

  describe('an attempt that ended with no finish reason and no error', () => {
    it.each([
      ['an instrumentation that records none is read as finished, not cut off', {}, undefined, false],
      ['a declared stream is read as cut off', { 'gen_ai.request.stream': true }, undefined, true],
      ["AI SDK 7's tracer, which records one on every finish, is read as cut off", {}, 'gen_ai', true],
      // The response id and model come with the first chunk; usage comes with the finish.
      [
        'a response id alone does not show a finish',
        { 'gen_ai.request.stream': true, 'gen_ai.response.id': 'r1', 'gen_ai.response.model': 'm' },
        'gen_ai',
        true,
      ],
      [
        'output tokens show a finish',
        { 'gen_ai.request.stream': true, 'gen_ai.usage.output_tokens': 12 },
        'gen_ai',
        false,
      ],
    ] as const)('%s', (_name, extra, scopeName, unfinished) => {
      const extraction = adapter.extract(
        view({ attributes: { 'gen_ai.operation.name': 'chat', ...extra }, scopeName }),
        'attempt',
        context(),
      );
      expect(extraction.unfinished === true).toBe(unfinished);
      expect(extraction.facts.some((f) => f.kind === 'provider_error')).toBe(false);
    });
  });
});

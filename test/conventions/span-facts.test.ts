/**
 * The shared fact readers of the conventions: finishFact by meaning, native
 * attempt extraction overridden by known finish reasons, finish reasons by
 * key, tool classes, a tool span's facts, a run span's extraction, the side
 * effect boundary from tool definitions, and bounded JSON parsing.
 */
import { describe, expect, it } from 'vitest';
import type { ExtractContext } from '../../src/conventions/adapter.js';
import {
  boundaryFromDefinitions,
  finishFact,
  finishReasonsOf,
  MAX_TOOL_DEFINITIONS,
  nativeAttemptExtraction,
  parseJsonArray,
  parseJsonObject,
  recordedNatively,
  runSpanExtraction,
  toolClassOf,
  toolSpanFacts,
  trustedClass,
} from '../../src/conventions/span-facts.js';
import type { SpanView } from '../../src/conventions/span-view.js';
import type { FactDraft } from '../../src/model/facts.js';

const context = (fields: Partial<ExtractContext> = {}): ExtractContext => ({
  attempt: 'a1',
  truncated: false,
  trustedReadOnlyTools: ['read'],
  attemptKeyOf: () => undefined,
  ...fields,
});
const view = (fields: Partial<SpanView> = {}): SpanView => ({
  spanId: 's',
  name: 'span',
  startMillis: 100,
  endMillis: 200,
  attributes: {},
  events: [],
  links: [],
  statusCode: 0,
  ...fields,
});
const finished: FactDraft = { kind: 'attempt_finished', timeMillis: 150, attempt: 'a1', seq: 4 };
const progress: FactDraft = { kind: 'provider_progress', timeMillis: 120, attempt: 'a1' };

describe('finishFact', () => {
  it.each([
    ['finished', { kind: 'attempt_finished', timeMillis: 5, attempt: 'a' }],
    ['limit', { kind: 'attempt_finished', timeMillis: 5, attempt: 'a' }],
    [
      'refused',
      {
        kind: 'provider_error',
        error: { kind: 'api', detail: 'content_filter', retryable: false },
        timeMillis: 5,
        attempt: 'a',
      },
    ],
    ['error', { kind: 'provider_error', error: { kind: 'api', detail: 'unknown' }, timeMillis: 5, attempt: 'a' }],
  ] as const)('gives the fact of a %s finish', (meaning, expected) => {
    expect(finishFact(meaning, 5, 'a')).toEqual(expected);
  });
});

describe('nativeAttemptExtraction', () => {
  it.each<[string, string[], unknown]>([
    ['no reasons keep the runtime’s finish', [], { facts: [progress, finished] }],
    ['a finishing reason keeps it', ['stop'], { facts: [progress, finished] }],
    ['an unknown reason does not undo it', ['made_up'], { facts: [progress, finished] }],
    ['an unfinished reason replaces it with nothing', ['interrupted'], { facts: [progress], unfinished: true }],
    [
      'a refusal turns it into a content-filter error',
      ['content_filter'],
      {
        facts: [
          progress,
          {
            kind: 'provider_error',
            error: { kind: 'api', detail: 'content_filter', retryable: false },
            timeMillis: 150,
            attempt: 'a1',
            seq: 4,
          },
        ],
      },
    ],
  ])('%s', (_what, reasons, expected) => {
    expect(nativeAttemptExtraction(view(), [progress, { ...finished }], context(), reasons)).toEqual(expected);
  });

  it('says an ended attempt with neither finish nor failure did not finish, an open one not yet', () => {
    expect(nativeAttemptExtraction(view(), [progress], context(), [])).toEqual({ facts: [progress], unfinished: true });
    expect(nativeAttemptExtraction(view({ endMillis: undefined }), [progress], context(), [])).toEqual({
      facts: [progress],
      unfinished: false,
    });
  });

  it('keeps the facts as they are when cut off or when a failure of its own ended it', () => {
    const error: FactDraft = { kind: 'watchdog_fired', phase: 'connect', timeMillis: 130, attempt: 'a1' };
    expect(nativeAttemptExtraction(view(), [progress], context({ truncated: true }), [])).toEqual({
      facts: [progress],
    });
    expect(nativeAttemptExtraction(view(), [error, finished], context(), ['interrupted'])).toEqual({
      facts: [error, finished],
    });
  });
});

describe('finishReasonsOf', () => {
  it.each([
    ['the own key as a string', { own: 'stop', 'gen_ai.response.finish_reasons': ['length'] }, 'own', ['stop']],
    ['the own key as an array', { own: ['a', 'b'] }, 'own', ['a', 'b']],
    [
      'GenAI’s key when the own one is empty',
      { own: [], 'gen_ai.response.finish_reasons': ['length'] },
      'own',
      ['length'],
    ],
    ['GenAI’s key without an own key', { 'gen_ai.response.finish_reasons': ['stop'] }, undefined, ['stop']],
    ['nothing', {}, 'own', []],
    ['an entry that is no string as a reason no table knows', { own: ['stop', 7] }, 'own', ['stop', '']],
    ['a value that is no list as a reason no table knows', { 'gen_ai.response.finish_reasons': 7 }, undefined, ['']],
    [
      'past the 256th reason, one no table knows',
      { own: Array.from({ length: 300 }, () => 'stop') },
      'own',
      [...Array.from({ length: 256 }, () => 'stop'), ''],
    ],
  ])('reads %s', (_what, attributes, own, expected) => {
    expect(finishReasonsOf(view({ attributes }), own)).toEqual(expected);
  });
});

describe('tool classes', () => {
  it.each([
    ['read', 'read_only'],
    ['bash', 'unknown'],
    [undefined, 'unknown'],
  ])('trusts %s as %s', (tool, expected) => {
    expect(trustedClass(tool, context())).toBe(expected);
  });

  it('prefers the class a tool span declares, ignoring an invalid one', () => {
    const key = 'agent_incidents.tool.side_effects';
    expect(toolClassOf(view({ attributes: { [key]: 'unsafe' } }), 'read', context())).toBe('unsafe');
    expect(toolClassOf(view({ attributes: { [key]: 'bogus' } }), 'read', context())).toBe('read_only');
  });
});

describe('toolSpanFacts', () => {
  const started = {
    kind: 'tool_execution_started',
    tool: 'bash',
    sideEffects: 'unknown',
    timeMillis: 100,
    attempt: 'a1',
  };

  it('starts at the span start and completes at its end', () => {
    expect(toolSpanFacts(view(), 'bash', context(), [])).toEqual([
      started,
      { kind: 'tool_execution_completed', tool: 'bash', startSeen: true, timeMillis: 200, attempt: 'a1' },
    ]);
  });

  it('reads an aborted failed span as interrupted', () => {
    const aborted = view({
      statusCode: 2,
      events: [{ name: 'exception', timeMillis: 190, attributes: { 'exception.type': 'AbortError' } }],
    });
    expect(toolSpanFacts(aborted, 'bash', context(), []).at(-1)).toEqual({
      kind: 'tool_execution_interrupted',
      tool: 'bash',
      timeMillis: 200,
      attempt: 'a1',
    });
  });

  it('reads another failed span as a failure', () => {
    const last = toolSpanFacts(view({ statusCode: 2, statusMessage: 'boom' }), 'bash', context(), []).at(-1);
    expect(last).toMatchObject({ kind: 'tool_execution_failed', tool: 'bash', startSeen: true, timeMillis: 200 });
  });

  it('adds no end when cut off or when a native event says how it ended', () => {
    expect(toolSpanFacts(view(), 'bash', context({ truncated: true }), [])).toEqual([started]);
    const native: FactDraft = { kind: 'tool_execution_interrupted', tool: 'bash', timeMillis: 150, attempt: 'a1' };
    expect(toolSpanFacts(view(), 'bash', context(), [native])).toEqual([started, native]);
  });
});

describe('runSpanExtraction', () => {
  const classify = () => ({ kind: 'unknown', code: 'E1' }) as const;

  it('reads a failed run span’s error only without a terminal fact', () => {
    expect(runSpanExtraction(view({ statusCode: 2 }), [], classify)).toEqual({
      facts: [],
      statusError: { kind: 'unknown', code: 'E1' },
    });
    const cancel: FactDraft = { kind: 'user_cancel', origin: 'user_stop', timeMillis: 1 };
    expect(runSpanExtraction(view({ statusCode: 2 }), [cancel], classify)).toEqual({
      facts: [cancel],
      statusError: undefined,
    });
    expect(runSpanExtraction(view(), [], classify).statusError).toBeUndefined();
  });
});

describe('boundaryFromDefinitions', () => {
  it('reads names, provider tools and trusted classes', () => {
    expect(
      boundaryFromDefinitions(
        [
          { name: 'read' },
          JSON.stringify({ type: 'function', function: { name: 'bash' } }),
          { name: 'web', type: 'provider' },
        ],
        view(),
        context(),
      ),
    ).toEqual({
      kind: 'side_effect_boundary',
      boundary: {
        tools: [
          { name: 'read', sideEffects: 'read_only', providerExecuted: false },
          { name: 'bash', sideEffects: 'unknown', providerExecuted: false },
          { name: 'web', sideEffects: 'unknown', providerExecuted: true },
        ],
        external: false,
      },
      timeMillis: 100,
      attempt: 'a1',
    });
  });

  it('gives no boundary when a definition is unreadable', () => {
    expect(boundaryFromDefinitions([{ name: 'read' }, { type: 'function' }], view(), context())).toBeUndefined();
    expect(boundaryFromDefinitions(['not json'], view(), context())).toBeUndefined();
  });

  it(`gives no boundary for more than ${MAX_TOOL_DEFINITIONS} definitions, never the first of them`, () => {
    const definitions = Array.from({ length: MAX_TOOL_DEFINITIONS }, (_, i) => ({ name: `t${i}` }));
    expect(boundaryFromDefinitions(definitions, view(), context())).toBeDefined();
    expect(boundaryFromDefinitions([...definitions, { name: 'rm' }], view(), context())).toBeUndefined();
  });
});

describe('JSON parsing', () => {
  it.each([
    [{ a: 1 }, { a: 1 }],
    ['{"a":1}', { a: 1 }],
    ['[1]', undefined],
    ['nope', undefined],
    [null, undefined],
    [`"${'x'.repeat(1_000_001)}"`, undefined],
  ])('parseJsonObject(%j)', (value, expected) => {
    expect(parseJsonObject(value)).toEqual(expected);
  });

  it.each([
    [[1], [1]],
    ['[1,"a"]', [1, 'a']],
    ['{"a":1}', undefined],
    ['nope', undefined],
    [3, undefined],
  ])('parseJsonArray(%j)', (value, expected) => {
    expect(parseJsonArray(value)).toEqual(expected);
  });
});

describe('recordedNatively', () => {
  it('is true with native facts or a declared attempt number', () => {
    expect(recordedNatively(view(), [progress])).toBe(true);
    expect(recordedNatively(view({ attributes: { 'agent_incidents.attempt.number': 1 } }), [])).toBe(true);
    expect(recordedNatively(view(), [])).toBe(false);
  });
});

// Over 300 lines: one table per attribute and shape the adapter reads, each with its cautious reading.
/**
 * The Vercel AI SDK 6 adapter (src/conventions/vercel-ai.ts) on plain span
 * views, every attribute and shape it reads (docs/conventions.md#supported-conventions):
 * the role from `ai.operationId` or the span name; an attempt's output only
 * at a normal end (`ai.response.text`, `.reasoning`, `.toolCalls`, output
 * tokens), placed at `ai.stream.firstChunk` or `ai.response.msToFirstChunk`;
 * the boundary from `ai.prompt.tools`, input-gated by `ai.prompt.messages`;
 * the finish from `ai.response.finishReason`. What it hides reads cautiously
 * (docs/conventions.md#finish-reasons-by-meaning): a first chunk proves a
 * response, not output, so a span cut off after one, or one that failed
 * with outputs not recorded, has unknown progress; no finish reason is no
 * finish; an unreadable tool definition leaves the boundary unknown. Its
 * errors are read with the AI SDK's names (`AI_APICallError`, `AI_RetryError`).
 */
import { describe, expect, it } from 'vitest';
import type { ExtractContext, Extraction, SpanRole, SpanView } from '../../src/conventions/index.js';
import { AI_SDK, classifyAiSdkSpanError, vercelAiAdapter as adapter } from '../../src/conventions/vercel-ai.js';
import { extractContext as context, factSummary as summary } from '../support/adapter-reading.js';

const T0 = 1_700_000_000_000;
const END = T0 + 900;
const FIRST_CHUNK = { name: AI_SDK.FIRST_CHUNK_EVENT, timeMillis: T0 + 120 };
const { FINISH_REASON: FINISH, RESPONSE_TEXT: TEXT, RESPONSE_TOOL_CALLS: CALLS } = AI_SDK;
const { PROMPT_TOOLS: TOOLS, PROMPT_MESSAGES: MESSAGES } = AI_SDK;
const STOP = { [FINISH]: 'stop' };

function span(attributes: Record<string, unknown>, extra: Partial<SpanView> = {}): SpanView {
  return {
    spanId: 's1',
    parentSpanId: 'c1',
    name: 'ai.streamText.doStream',
    startMillis: T0,
    endMillis: END,
    attributes,
    events: [],
    links: [],
    statusCode: 0,
    ...extra,
  };
}

const doStream = (attributes: Record<string, unknown> = {}, extra: Partial<SpanView> = {}) =>
  span({ [AI_SDK.OPERATION_ID]: 'ai.streamText.doStream', ...attributes }, extra);

const kinds = (extraction: Extraction) => extraction.facts.map((f) => f.kind);
const attempt = (view: SpanView, ctx = context()) => adapter.extract(view, 'attempt', ctx);
const exception = (timeMillis: number, type: string, message: string) => ({
  name: 'exception',
  timeMillis,
  attributes: { 'exception.type': type, 'exception.message': message },
});

describe('role', () => {
  it.each<[string, SpanRole]>([
    ['ai.streamText', 'call'],
    ['ai.generateText', 'call'],
    ['ai.streamObject', 'call'],
    ['ai.generateObject', 'call'],
    ['ai.streamText.doStream', 'attempt'],
    ['ai.generateText.doGenerate', 'attempt'],
    ['ai.streamObject.doStream', 'attempt'],
    ['ai.generateObject.doGenerate', 'attempt'],
    ['ai.toolCall', 'tool'],
    ['ai.embed', 'other'],
    ['ai.embedMany.doEmbed', 'other'],
  ])('ai.operationId %s is the role %s', (operationId, role) => {
    expect(adapter.role({ name: 'x', attributes: { [AI_SDK.OPERATION_ID]: operationId } })).toBe(role);
  });

  it.each<[string, string, Record<string, unknown>, SpanRole | undefined]>([
    ['the span name, when ai.operationId is missing', 'ai.generateText.doGenerate', {}, 'attempt'],
    ['the span name, when ai.operationId is not a string', 'ai.toolCall', { [AI_SDK.OPERATION_ID]: 7 }, 'tool'],
    ['ai.operationId over the name', 'ai.streamText', { [AI_SDK.OPERATION_ID]: 'app.step' }, undefined],
    ['nothing of the AI SDK', 'GET /v1/chat', {}, undefined],
  ])('reads %s', (_what, name, attributes, role) => {
    expect(adapter.role({ name, attributes })).toBe(role);
  });
});

describe('output an attempt that ended normally shows', () => {
  const calls = JSON.stringify([
    { toolCallId: 'c1', toolName: 'read', input: '{}' },
    { toolCallId: 'c2', toolName: 'web_search', providerExecuted: true },
    { toolCallId: 'c3', toolName: 'bash' },
  ]);

  it.each<[string, Record<string, unknown>, string[]]>([
    [
      'reasoning, text and tool calls, in that order',
      { [TEXT]: 'Hi', [AI_SDK.RESPONSE_REASONING]: 'hmm', [CALLS]: calls },
      [
        'reasoning_output_started',
        'text_output_started',
        'tool_call_materialized read read_only',
        'tool_call_materialized web_search unknown provider',
        'tool_call_materialized bash unknown',
      ],
    ],
    ['empty text and reasoning are no output', { [TEXT]: '', [AI_SDK.RESPONSE_REASONING]: '' }, []],
    ['tool calls that are not JSON are none', { [CALLS]: '[{"toolName":' }, []],
    [
      'a tool call with no name names no tool and trusts none',
      { [CALLS]: JSON.stringify([{ toolCallId: 'c1' }, 'read']) },
      ['tool_call_materialized - unknown', 'tool_call_materialized - unknown'],
    ],
    ['output tokens with no output recorded are progress', { [AI_SDK.OUTPUT_TOKENS]: 40 }, ['provider_progress']],
    ['zero output tokens are no progress', { [AI_SDK.OUTPUT_TOKENS]: 0 }, []],
    [
      'output tokens add nothing to recorded output',
      { [AI_SDK.OUTPUT_TOKENS]: 40, [TEXT]: 'Hi' },
      ['text_output_started'],
    ],
  ])('%s', (_name, attributes, expected) => {
    const extraction = attempt(doStream({ ...STOP, ...attributes }));
    expect(kinds(extraction).at(-1)).toBe('attempt_finished');
    expect(extraction.facts.filter((f) => f.kind !== 'attempt_finished').map(summary)).toEqual(expected);
  });

  it('reads at most 256 tool calls', () => {
    const many = JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ toolName: `t${i}` })));
    const facts = attempt(doStream({ ...STOP, [CALLS]: many })).facts;
    expect(facts.filter((f) => f.kind === 'tool_call_materialized')).toHaveLength(256);
  });

  it.each<[string, Partial<SpanView>, Record<string, unknown>, number]>([
    ['at the first chunk event', { events: [FIRST_CHUNK] }, { [AI_SDK.MS_TO_FIRST_CHUNK]: 300 }, T0 + 120],
    ['else at msToFirstChunk after the start', {}, { [AI_SDK.MS_TO_FIRST_CHUNK]: 300 }, T0 + 300],
    ['else at the end', {}, {}, END],
  ])('places output %s', (_name, extra, attributes, at) => {
    expect(attempt(doStream({ ...STOP, [TEXT]: 'Hi', ...attributes }, extra)).facts).toEqual([
      { kind: 'text_output_started', timeMillis: at, attempt: 's1' },
      { kind: 'attempt_finished', timeMillis: END, attempt: 's1' },
    ]);
  });
});

describe('the side-effect boundary (`ai.prompt.tools`, input-gated by `ai.prompt.messages`)', () => {
  const fn = (name: string) => JSON.stringify({ type: 'function', name, inputSchema: {} });
  const provider = JSON.stringify({ type: 'provider', name: 'web_search', id: 'openai.web_search' });
  const messages = { [MESSAGES]: '[]' };
  const read = { name: 'read', sideEffects: 'read_only', providerExecuted: false };

  it.each<[string, Record<string, unknown>, unknown]>([
    ['no messages and no tools: inputs not recorded, unknown', {}, undefined],
    ['messages and no tools: none exposed', messages, []],
    [
      'each definition, trusted tools read-only, provider tools of unknown class',
      { ...messages, [TOOLS]: [fn('read'), fn('bash'), provider] },
      [
        read,
        { name: 'bash', sideEffects: 'unknown', providerExecuted: false },
        { name: 'web_search', sideEffects: 'unknown', providerExecuted: true },
      ],
    ],
    ['definitions without messages still say what was exposed', { [TOOLS]: [fn('read')] }, [read]],
    ['a definition that is not JSON: unknown', { ...messages, [TOOLS]: [fn('read'), '{'] }, undefined],
    ['a definition with no name: unknown', { ...messages, [TOOLS]: ['{"type":"function"}'] }, undefined],
    ['an entry that is no definition: unknown, not left out', { ...messages, [TOOLS]: [fn('read'), 7] }, undefined],
    ['a value that is no list: unknown', { ...messages, [TOOLS]: fn('read') }, undefined],
    ['more definitions than are read: unknown', { ...messages, [TOOLS]: Array(257).fill(fn('read')) }, undefined],
  ])('%s', (_name, attributes, tools) => {
    const facts = attempt(doStream({ ...STOP, ...attributes })).facts;
    const boundary = facts.find((f) => f.kind === 'side_effect_boundary');
    if (tools === undefined) {
      expect(boundary).toBeUndefined();
      return;
    }
    const expected = { kind: 'side_effect_boundary', boundary: { tools, external: false } };
    expect(boundary).toEqual({ ...expected, timeMillis: T0, attempt: 's1' });
    expect(facts[0]).toBe(boundary);
  });
});

describe('how an attempt ended', () => {
  // [what, finish reason, ai.response.text, a first chunk came, the facts, what stays open: `unfinished`, `unknown` progress]
  it.each<[string, string | undefined, string | undefined, boolean, string, string]>([
    ['`stop` finished', 'stop', 'Hi', false, 'text_output_started attempt_finished', ''],
    ['`length` finished at the limit', 'length', undefined, false, 'attempt_finished', ''],
    ['no finish reason after text did not finish', undefined, 'Half', true, 'text_output_started', 'unfinished'],
    ['`other` after a chunk and no output did not finish', 'other', undefined, true, '', 'unfinished unknown'],
    ['no finish reason, no chunk: not finished, no progress', undefined, undefined, false, '', 'unfinished'],
    [
      '`error`: a provider error, no output recorded after a chunk',
      'error',
      undefined,
      true,
      'provider_error',
      'unknown',
    ],
    ['`content-filter` is a refusal, its text recorded (empty)', 'content-filter', '', true, 'provider_error', ''],
    ['a finish, outputs not recorded (`recordOutputs: false`)', 'stop', undefined, true, 'attempt_finished', ''],
  ])('%s', (_name, finish, text, chunk, facts, open) => {
    const extraction = attempt(doStream({ [FINISH]: finish, [TEXT]: text }, chunk ? { events: [FIRST_CHUNK] } : {}));
    expect(kinds(extraction).join(' ')).toBe(facts);
    const stays = [extraction.unfinished && 'unfinished', extraction.progressUnknown && 'unknown'];
    expect(stays.filter(Boolean).join(' ')).toBe(open);
  });

  it('reads a refusal as a content filter error no retry fixes, and `error` as an API error', () => {
    const error = (reason: string) => attempt(doStream({ [FINISH]: reason })).facts[0];
    const at = { kind: 'provider_error', timeMillis: END, attempt: 's1' };
    expect(error('content-filter')).toEqual({
      error: { kind: 'api', detail: 'content_filter', retryable: false },
      ...at,
    });
    expect(error('error')).toEqual({ error: { kind: 'api', detail: 'unknown' }, ...at });
  });

  it('a finished span with an exception before its end recovered inside it', () => {
    const events = [exception(T0 + 200, 'AI_APICallError', 'Service Unavailable')];
    const extraction = attempt(doStream(STOP, { events }));
    expect(kinds(extraction)).toEqual(['attempt_finished']);
    expect(extraction.earlierTries).toEqual([
      { startMillis: T0, failedMillis: T0 + 200, error: expect.objectContaining({ kind: 'api' }) },
    ]);
  });
});

describe('a span cut off at its run’s end', () => {
  it.each<[string, Partial<SpanView>, boolean]>([
    ['after a chunk: whether it was output the span cannot say', { events: [FIRST_CHUNK] }, true],
    ['before any chunk: no progress', {}, false],
  ])('%s', (_name, extra, unknown) => {
    const view = doStream({ ...STOP, [MESSAGES]: '[]', [TEXT]: 'Hi' }, { ...extra, endMillis: undefined });
    const extraction = attempt(view, context({ truncated: true }));
    expect(kinds(extraction)).toEqual(['side_effect_boundary']);
    expect(extraction.progressUnknown).toBe(unknown);
    expect(extraction.unfinished).toBeUndefined();
  });
});

describe('a failed attempt', () => {
  const CHUNK = { events: [FIRST_CHUNK] };

  it.each<[string, string | undefined, Partial<SpanView>, string[], boolean]>([
    ['after a chunk, no outputs recorded: progress unknown', undefined, CHUNK, ['provider_error'], true],
    ['after text: the text, then the error', 'Half', CHUNK, ['text_output_started', 'provider_error'], false],
    ['before any chunk: no progress', undefined, {}, ['provider_error'], false],
  ])('%s', (_name, text, extra, expected, unknown) => {
    const extraction = attempt(doStream({ [TEXT]: text }, { statusCode: 2, statusMessage: 'terminated', ...extra }));
    expect(kinds(extraction)).toEqual(expected);
    expect(extraction.progressUnknown).toBe(unknown);
    const error = { kind: 'transport', detail: 'stream_terminated' };
    expect(extraction.facts.at(-1)).toMatchObject({ error, timeMillis: END, attempt: 's1' });
  });

  it('states the tries of a call that ran out of retries, its error an API error no retry fixes', () => {
    const events = [
      exception(T0 + 100, 'AI_APICallError', 'Bad Gateway'),
      exception(T0 + 800, 'AI_RetryError', 'Failed after 3 attempts. Last error: Bad Gateway'),
    ];
    const extraction = attempt(doStream({}, { statusCode: 2, events }));
    expect(extraction.statedTries).toBe(3);
    expect(extraction.earlierTries).toHaveLength(1);
    const error = { kind: 'api', detail: 'unknown', retryable: false };
    expect(extraction.facts).toEqual([{ kind: 'provider_error', error, timeMillis: END, attempt: 's1' }]);
  });
});

describe('classifyAiSdkSpanError', () => {
  const API_CALL = [exception(T0, 'AI_APICallError', 'Internal Server Error')];

  it.each<[string, Partial<SpanView>, object]>([
    ['AI_APICallError with no known text: an API error', { events: API_CALL }, { kind: 'api', detail: 'unknown' }],
    [
      'a status code is read from the span',
      { attributes: { 'http.response.status_code': 429 } },
      { kind: 'api', detail: 'rate_limit', code: 'http_429' },
    ],
    [
      'a socket code quoted in the message',
      { statusMessage: 'fetch failed (cause: UND_ERR_SOCKET)' },
      { kind: 'transport', detail: 'socket_closed' },
    ],
    ['nothing to read is unknown', {}, { kind: 'unknown' }],
  ])('%s', (_name, extra, expected) => {
    expect(classifyAiSdkSpanError(span({}, { statusCode: 2, ...extra }))).toMatchObject(expected);
  });

  it('reads only the events it is given', () => {
    const view = span({}, { statusCode: 2, events: [exception(T0, 'AI_APICallError', 'Bad Gateway')] });
    expect(classifyAiSdkSpanError(view)).toMatchObject({ kind: 'api' });
    expect(classifyAiSdkSpanError(view, [])).toMatchObject({ kind: 'unknown' });
  });
});

describe('native fact events on an attempt span', () => {
  const events = [
    { name: 'agent_incidents.text_output_started', timeMillis: T0 + 50 },
    { name: 'agent_incidents.attempt_finished', timeMillis: T0 + 800 },
  ];
  const ignored = { [CALLS]: '[{"toolName":"bash"}]', [MESSAGES]: '[]' };

  it.each<[string, Record<string, unknown>, string[], boolean | undefined]>([
    ['`stop` keeps the runtime’s finish', STOP, ['text_output_started', 'attempt_finished'], undefined],
    ['`other` undoes it: not finished', { [FINISH]: 'other' }, ['text_output_started'], true],
    [
      'GenAI’s finish reasons are read when the AI SDK’s is missing',
      { 'gen_ai.response.finish_reasons': ['content_filter'] },
      ['text_output_started', 'provider_error'],
      undefined,
    ],
  ])('%s; the span’s own attributes add nothing', (_name, attributes, expected, unfinished) => {
    const extraction = attempt(doStream({ ...attributes, ...ignored }, { events }));
    expect(kinds(extraction)).toEqual(expected);
    expect(extraction.unfinished).toBe(unfinished);
  });
});

describe('tool, call and other spans', () => {
  const toolSpan = (
    name: string | undefined,
    attributes: Record<string, unknown> = {},
    extra: Partial<SpanView> = {},
  ) =>
    span(
      { [AI_SDK.OPERATION_ID]: 'ai.toolCall', [AI_SDK.TOOL_CALL_NAME]: name, ...attributes },
      { name: 'ai.toolCall', ...extra },
    );
  const DENIED = { statusCode: 2, statusMessage: 'permission denied' };

  it.each<[string, SpanView, ExtractContext, string[]]>([
    [
      'a trusted tool ran read-only and completed',
      toolSpan('read'),
      context(),
      ['tool_execution_started read read_only', 'tool_execution_completed read'],
    ],
    [
      'a declared class wins over trust',
      toolSpan('read', { 'agent_incidents.tool.side_effects': 'unsafe' }),
      context(),
      ['tool_execution_started read unsafe', 'tool_execution_completed read'],
    ],
    [
      'an ERROR span failed',
      toolSpan('bash', {}, DENIED),
      context(),
      ['tool_execution_started bash unknown', 'tool_execution_failed bash'],
    ],
    [
      'a span cut off is still running',
      toolSpan('bash'),
      context({ truncated: true }),
      ['tool_execution_started bash unknown'],
    ],
    [
      'no ai.toolCall.name names no tool',
      toolSpan(undefined),
      context(),
      ['tool_execution_started - unknown', 'tool_execution_completed -'],
    ],
  ])('%s', (_name, view, ctx, expected) => {
    expect(adapter.extract(view, 'tool', ctx).facts.map(summary)).toEqual(expected);
  });

  it.each<[string, Partial<SpanView>, unknown]>([
    ['an OK call carries no error', { statusCode: 1 }, undefined],
    [
      'an ERROR call reads its error with the AI SDK’s names',
      { statusCode: 2, events: [exception(T0, 'AI_APICallError', 'Bad Gateway')] },
      expect.objectContaining({ kind: 'api', detail: 'unknown' }),
    ],
  ])('%s', (_name, extra, statusError) => {
    const call = span({ [AI_SDK.OPERATION_ID]: 'ai.streamText' }, { name: 'ai.streamText', ...extra });
    const extraction = adapter.extract(call, 'call', context());
    expect(extraction.statusError).toEqual(statusError);
    expect(extraction.facts).toEqual([]);
  });

  it.each<[string, SpanRole]>([
    ['an ai.embed span', 'other'],
    ['a role outside the type, from JavaScript', 'bogus' as SpanRole],
  ])('%s gives its native facts only, none from its attributes', (_name, role) => {
    const view = span({ [AI_SDK.OPERATION_ID]: 'ai.embed', ...STOP, [TEXT]: 'x' }, { statusCode: 2 });
    expect(adapter.extract(view, role, context())).toEqual({ facts: [] });
    const native = span({}, { events: [{ name: 'agent_incidents.provider_progress', timeMillis: T0 + 5 }] });
    expect(kinds(adapter.extract(native, role, context()))).toEqual(['provider_progress']);
  });
});

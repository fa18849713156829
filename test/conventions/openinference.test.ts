// Over 300 lines: one table per attribute and shape the adapter reads, each with its cautious reading.
/**
 * The OpenInference adapter (src/conventions/openinference.ts) on plain span
 * views, every attribute and shape it reads (docs/conventions.md#supported-conventions):
 * `openinference.span.kind` gives the role (AGENT run, LLM attempt, TOOL
 * tool, the rest structure); a finished LLM span shows its finish reason
 * (`llm.finish_reason`, or an OK status for a whole response), its output
 * messages (text, `contents` text, tool calls), completion tokens, and the
 * tools it exposed (`llm.tools.*`, input-gated by `input.value` /
 * `llm.input_messages.*`). What it hides reads cautiously: a span cut off at
 * its run's end says nothing of its progress, an UNSET span with no finish
 * did not finish, a failed one with no output has unknown progress, and a
 * definition that cannot be read leaves the boundary unknown. Native fact
 * events on its spans win over its own attributes
 * (docs/conventions.md#finish-reasons-by-meaning).
 */
import { describe, expect, it } from 'vitest';
import type { ExtractContext, Extraction, SpanRole, SpanView } from '../../src/conventions/index.js';
import { OPENINFERENCE, openInferenceAdapter as adapter } from '../../src/conventions/openinference.js';
import { extractContext as context, factSummary as summary } from '../support/adapter-reading.js';

const T0 = 1_700_000_000_000;
const END = T0 + 500;
const OUT = 'llm.output_messages.0.message.';
const CALL = `${OUT}tool_calls.0.tool_call.function.name`;
const FINISH = OPENINFERENCE.FINISH_REASON;
const TOKENS = OPENINFERENCE.COMPLETION_TOKENS;

function span(kind: string | undefined, attributes: Record<string, unknown> = {}, extra: Partial<SpanView> = {}) {
  const view: SpanView = {
    spanId: 's1',
    parentSpanId: 'r1',
    name: 'ChatCompletion',
    startMillis: T0,
    endMillis: END,
    attributes: kind === undefined ? attributes : { [OPENINFERENCE.SPAN_KIND]: kind, ...attributes },
    events: [],
    links: [],
    statusCode: 0,
    ...extra,
  };
  return view;
}

const llm = (attributes: Record<string, unknown> = {}, extra: Partial<SpanView> = {}) => span('LLM', attributes, extra);

const kinds = (extraction: Extraction) => extraction.facts.map((f) => f.kind);
const attempt = (view: SpanView, ctx = context()) => adapter.extract(view, 'attempt', ctx);
const exception = (timeMillis: number, message: string, type = 'Error') => ({
  name: 'exception',
  timeMillis,
  attributes: { 'exception.type': type, 'exception.message': message },
});
const CONNECTION_RESET = expect.objectContaining({ kind: 'transport', detail: 'connection_reset' }) as unknown;

describe('role', () => {
  it.each([
    ['AGENT', 'run'],
    ['LLM', 'attempt'],
    ['TOOL', 'tool'],
    ['llm', 'attempt'],
    ['Agent', 'run'],
    ['CHAIN', 'other'],
    ['RETRIEVER', 'other'],
    ['EMBEDDING', 'other'],
  ])('openinference.span.kind %s is the role %s', (kind, role) => {
    expect(adapter.role(span(kind))).toBe(role);
  });

  it.each<[string, Record<string, unknown>]>([
    ['no openinference.span.kind', { [FINISH]: 'stop' }],
    ['a kind that is not a string', { [OPENINFERENCE.SPAN_KIND]: 3 }],
  ])('a span with %s is not an OpenInference span', (_what, attributes) => {
    expect(adapter.role(span(undefined, attributes))).toBeUndefined();
  });
});

describe('how an LLM span ended', () => {
  it.each<[string, string | undefined, number, string[], boolean]>([
    ['OK with no finish reason is a whole response read: finished', undefined, 1, ['attempt_finished'], false],
    ['UNSET with `stop` finished', 'stop', 0, ['attempt_finished'], false],
    ['UNSET with `length` finished at the limit', 'length', 0, ['attempt_finished'], false],
    ['UNSET with no finish reason was stopped: not finished', undefined, 0, [], true],
    ['OK with `other` did not finish: the reason outweighs the status', 'other', 1, [], true],
    ['OK with a value no table knows did not finish', 'eos_token', 1, [], true],
    ['UNSET with `content_filter` was refused', 'content_filter', 0, ['provider_error'], false],
    ['UNSET with `error` is a provider error', 'error', 0, ['provider_error'], false],
  ])('%s', (_name, finish, statusCode, expected, unfinished) => {
    const extraction = attempt(llm(finish === undefined ? {} : { [FINISH]: finish }, { statusCode }));
    expect(kinds(extraction)).toEqual(expected);
    expect(extraction.unfinished === true).toBe(unfinished);
    for (const fact of extraction.facts) expect(fact).toMatchObject({ timeMillis: END, attempt: 's1' });
  });

  it('reads a refusal as a content filter error no retry fixes', () => {
    const error = attempt(llm({ [FINISH]: 'content_filter' })).facts[0];
    expect(error).toMatchObject({ error: { kind: 'api', detail: 'content_filter', retryable: false } });
  });

  it('an open span (no end) is read at its start', () => {
    const extraction = attempt(llm({ [FINISH]: 'stop' }, { endMillis: undefined }));
    expect(extraction.facts).toEqual([expect.objectContaining({ kind: 'attempt_finished', timeMillis: T0 })]);
  });
});

describe('output a finished LLM span shows, at its end', () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ['message content is text', { [`${OUT}content`]: 'Hello' }, ['text_output_started']],
    ['a `contents` text part is text', { [`${OUT}contents.0.message_content.text`]: 'Hi' }, ['text_output_started']],
    ['text in a later message counts too', { 'llm.output_messages.2.message.content': 'Hi' }, ['text_output_started']],
    ['empty content is no text', { [`${OUT}content`]: '' }, []],
    ['a role alone is no output', { [`${OUT}role`]: 'assistant' }, []],
    ['non-string content is no text', { [`${OUT}content`]: 42 }, []],
    [
      'each tool call is materialized, a trusted tool read-only, another of unknown class',
      {
        [CALL]: 'read',
        [`${OUT}tool_calls.1.tool_call.function.name`]: 'bash',
        [`${OUT}tool_calls.1.tool_call.function.arguments`]: '{"cmd":"ls"}',
      },
      ['tool_call_materialized read read_only', 'tool_call_materialized bash unknown'],
    ],
    ['a call whose name is not a string names no tool', { [CALL]: ['read'] }, ['tool_call_materialized - unknown']],
    [
      'text and a tool call both',
      { [`${OUT}content`]: 'Let me look', [CALL]: 'read' },
      ['text_output_started', 'tool_call_materialized read read_only'],
    ],
    ['completion tokens with no output recorded are progress', { [TOKENS]: 12 }, ['provider_progress']],
    ['zero completion tokens are no progress', { [TOKENS]: 0 }, []],
    [
      'completion tokens add nothing where output is recorded',
      { [TOKENS]: 12, [`${OUT}content`]: 'Hi' },
      ['text_output_started'],
    ],
  ])('%s', (_name, attributes, expected) => {
    const extraction = attempt(llm({ [FINISH]: 'stop', ...attributes }));
    const output = extraction.facts.filter((f) => f.kind !== 'attempt_finished');
    expect(output.map(summary)).toEqual(expected);
    for (const fact of output) expect(fact).toMatchObject({ timeMillis: END, attempt: 's1' });
    for (const fact of output) if (fact.kind === 'tool_call_materialized') expect(fact.providerExecuted).toBe(false);
    expect(kinds(extraction).at(-1)).toBe('attempt_finished');
  });
});

describe('the side-effect boundary (`llm.tools.*`, input-gated)', () => {
  const schema = (name: string) => JSON.stringify({ type: 'function', function: { name, parameters: {} } });
  const TOOL_0 = 'llm.tools.0.tool.json_schema';

  it.each<[string, Record<string, unknown>, unknown]>([
    ['no inputs and no tools: unknown', {}, undefined],
    ['`input.value` recorded, no tools: none exposed', { [OPENINFERENCE.INPUT_VALUE]: '{}' }, []],
    ['input messages recorded, no tools: none exposed', { 'llm.input_messages.0.message.role': 'user' }, []],
    [
      'each tool schema, trusted tools read-only',
      { [TOOL_0]: schema('read'), 'llm.tools.1.tool.json_schema': schema('bash') },
      [
        { name: 'read', sideEffects: 'read_only', providerExecuted: false },
        { name: 'bash', sideEffects: 'unknown', providerExecuted: false },
      ],
    ],
    [
      'a tool named at the top level of its schema',
      { [TOOL_0]: JSON.stringify({ name: 'grep' }) },
      [{ name: 'grep', sideEffects: 'unknown', providerExecuted: false }],
    ],
    [
      'a schema that cannot be read: unknown, even with inputs recorded',
      { [OPENINFERENCE.INPUT_VALUE]: '{}', [TOOL_0]: schema('read'), 'llm.tools.1.tool.json_schema': 'not json' },
      undefined,
    ],
    ['a schema with no name: unknown', { [TOOL_0]: JSON.stringify({ type: 'function' }) }, undefined],
    ['other `llm.tools.*` keys are no schema', { 'llm.tools.0.tool.name': 'read' }, undefined],
    [
      'a tool listed without its schema: unknown, not left out',
      { [OPENINFERENCE.INPUT_VALUE]: '{}', [TOOL_0]: schema('read'), 'llm.tools.1.tool.name': 'bash' },
      undefined,
    ],
    [
      'indices that skip one (keys dropped by a limit): unknown',
      { [OPENINFERENCE.INPUT_VALUE]: '{}', 'llm.tools.1.tool.json_schema': schema('read') },
      undefined,
    ],
    [
      'more tools than are read: unknown',
      { [OPENINFERENCE.INPUT_VALUE]: '{}', 'llm.tools.256.tool.json_schema': schema('read') },
      undefined,
    ],
  ])('%s', (_name, attributes, tools) => {
    const facts = attempt(llm({ [FINISH]: 'stop', ...attributes })).facts;
    const boundary = facts.find((f) => f.kind === 'side_effect_boundary');
    if (tools === undefined) {
      expect(boundary).toBeUndefined();
      return;
    }
    expect(boundary).toEqual({
      kind: 'side_effect_boundary',
      boundary: { tools, external: false },
      timeMillis: T0,
      attempt: 's1',
    });
    expect(facts[0]).toBe(boundary);
  });
});

describe('a span cut off at its run’s end', () => {
  it('says only what it exposed, and that its progress is unknown', () => {
    const attributes = { [OPENINFERENCE.INPUT_VALUE]: '{}', [`${OUT}content`]: 'Hel', [FINISH]: 'stop' };
    const extraction = attempt(llm(attributes, { statusCode: 1 }), context({ truncated: true }));
    expect(kinds(extraction)).toEqual(['side_effect_boundary']);
    expect(extraction.progressUnknown).toBe(true);
    expect(extraction.unfinished).toBeUndefined();
  });

  it('counts every exception so far as an earlier try while it is open', () => {
    const view = llm({}, { endMillis: undefined, events: [exception(T0 + 100, 'read ECONNRESET')] });
    expect(attempt(view, context({ truncated: true })).earlierTries).toEqual([
      { startMillis: T0, failedMillis: T0 + 100, error: CONNECTION_RESET },
    ]);
  });
});

describe('a failed LLM span', () => {
  it.each<[string, Record<string, unknown>, string[], boolean]>([
    ['with no output: an error, its progress unknown', {}, ['provider_error'], true],
    [
      'after text: the text, then the error',
      { [`${OUT}content`]: 'Half' },
      ['text_output_started', 'provider_error'],
      false,
    ],
    ['with a `stop` finish reason: still failed, never finished', { [FINISH]: 'stop' }, ['provider_error'], true],
  ])('%s', (_name, attributes, expected, progressUnknown) => {
    const extraction = attempt(llm(attributes, { statusCode: 2, statusMessage: 'read ECONNRESET' }));
    expect(kinds(extraction)).toEqual(expected);
    expect(extraction.progressUnknown).toBe(progressUnknown);
    expect(extraction.facts.at(-1)).toMatchObject({
      kind: 'provider_error',
      error: { kind: 'transport', detail: 'connection_reset', code: 'ECONNRESET' },
      timeMillis: END,
      attempt: 's1',
    });
  });

  it('reads its error from its last try, the exceptions before it earlier tries', () => {
    const events = [
      exception(T0 + 100, 'read ECONNRESET'),
      exception(T0 + 400, 'fetch failed (cause: UND_ERR_SOCKET)'),
    ];
    const extraction = attempt(llm({}, { statusCode: 2, events }));
    expect(extraction.earlierTries).toEqual([{ startMillis: T0, failedMillis: T0 + 100, error: CONNECTION_RESET }]);
    expect(extraction.facts).toEqual([
      expect.objectContaining({
        kind: 'provider_error',
        error: expect.objectContaining({ kind: 'transport', detail: 'socket_closed', code: 'UND_ERR_SOCKET' }),
      }),
    ]);
  });

  it('states how many tries its call made when its message says', () => {
    const extraction = attempt(llm({}, { statusCode: 2, statusMessage: 'Failed after 3 attempts. Last error: 503' }));
    expect(extraction.statedTries).toBe(3);
    expect(attempt(llm({}, { statusCode: 1 })).statedTries).toBeUndefined();
  });

  it('a finished span with an exception before its end recovered inside it', () => {
    const extraction = attempt(llm({ [FINISH]: 'stop' }, { events: [exception(T0 + 200, 'Service Unavailable')] }));
    expect(kinds(extraction)).toEqual(['attempt_finished']);
    expect(extraction.earlierTries).toHaveLength(1);
    expect(extraction.earlierTries?.[0]).toMatchObject({ startMillis: T0, failedMillis: T0 + 200 });
  });
});

describe('native fact events on an LLM span', () => {
  const events = [
    { name: 'agent_incidents.text_output_started', timeMillis: T0 + 50 },
    { name: 'agent_incidents.attempt_finished', timeMillis: T0 + 400 },
  ];

  it('win over its attributes, a known finish reason refining the runtime’s finish', () => {
    const attributes = { [FINISH]: 'content_filter', [CALL]: 'bash', [OPENINFERENCE.INPUT_VALUE]: '{}' };
    expect(attempt(llm(attributes, { events })).facts).toEqual([
      expect.objectContaining({ kind: 'text_output_started', timeMillis: T0 + 50, attempt: 's1' }),
      expect.objectContaining({
        kind: 'provider_error',
        error: { kind: 'api', detail: 'content_filter', retryable: false },
        timeMillis: T0 + 400,
      }),
    ]);
  });

  it('keep the runtime’s finish when the finish reason shows one', () => {
    const extraction = attempt(llm({ [FINISH]: 'stop' }, { events }));
    expect(kinds(extraction)).toEqual(['text_output_started', 'attempt_finished']);
  });

  it('an attempt numbered natively that recorded no event ended without finishing', () => {
    const extraction = attempt(
      llm({ 'agent_incidents.attempt.number': 1, [`${OUT}content`]: 'Hi' }, { statusCode: 1 }),
    );
    expect(extraction.facts).toEqual([]);
    expect(extraction.unfinished).toBe(true);
  });
});

describe('TOOL spans', () => {
  const tool = (extra: Partial<SpanView> = {}, name: string | null = 'read') =>
    span('TOOL', name === null ? {} : { [OPENINFERENCE.TOOL_NAME]: name }, { name: 'read', ...extra });
  const ABORTED = [exception(T0 + 300, 'aborted', 'AbortError')];

  it.each<[string, SpanView, ExtractContext, string[]]>([
    [
      'an ended span ran and completed, its tool named by tool.name, trusted read-only',
      tool(),
      context(),
      ['tool_execution_started read read_only', 'tool_execution_completed read'],
    ],
    [
      'an untrusted tool is of unknown class',
      tool({}, 'bash'),
      context(),
      ['tool_execution_started bash unknown', 'tool_execution_completed bash'],
    ],
    [
      'an ERROR span failed',
      tool({ statusCode: 2, statusMessage: 'permission denied' }),
      context(),
      ['tool_execution_started read read_only', 'tool_execution_failed read'],
    ],
    [
      'an aborted span was interrupted',
      tool({ statusCode: 2, events: ABORTED }),
      context(),
      ['tool_execution_started read read_only', 'tool_execution_interrupted read'],
    ],
    [
      'a span cut off is still running',
      tool(),
      context({ truncated: true }),
      ['tool_execution_started read read_only'],
    ],
    [
      'a span without tool.name names no tool',
      tool({}, null),
      context(),
      ['tool_execution_started - unknown', 'tool_execution_completed -'],
    ],
  ])('%s', (_name, view, ctx, expected) => {
    const facts = adapter.extract(view, 'tool', ctx).facts;
    expect(facts.map(summary)).toEqual(expected);
    expect(facts[0]).toMatchObject({ timeMillis: T0, attempt: 's1' });
  });
});

describe('AGENT spans and structure', () => {
  it.each<[string, Partial<SpanView>, unknown]>([
    ['an OK run carries no error', { statusCode: 1 }, undefined],
    [
      'an ERROR run carries its error, classified',
      { statusCode: 2, statusMessage: 'read ECONNRESET' },
      CONNECTION_RESET,
    ],
    [
      'an ERROR run with nothing to classify carries an unknown error, never none',
      { statusCode: 2 },
      expect.objectContaining({ kind: 'unknown' }),
    ],
  ])('%s', (_name, extra, statusError) => {
    const extraction = adapter.extract(span('AGENT', {}, extra), 'run', context());
    expect(extraction.statusError).toEqual(statusError);
    expect(extraction.facts).toEqual([]);
  });

  it('a run whose native events end it keeps them, at run level, and no status error', () => {
    const events = [{ name: 'agent_incidents.user_cancel', timeMillis: T0 + 300 }];
    const extraction = adapter.extract(span('AGENT', {}, { statusCode: 2, events }), 'run', context());
    expect(extraction.facts).toEqual([expect.objectContaining({ kind: 'user_cancel', attempt: undefined })]);
    expect(extraction.statusError).toBeUndefined();
  });

  it.each<[string, SpanRole]>([
    ['a CHAIN span', 'other'],
    ['a role outside the type, from JavaScript', 'bogus' as SpanRole],
  ])('%s gives its native facts only, none from its attributes', (_name, role) => {
    const view = span('CHAIN', { [`${OUT}content`]: 'Hi', [FINISH]: 'stop' }, { statusCode: 2 });
    expect(adapter.extract(view, role, context())).toEqual({ facts: [] });
    const progress = [{ name: 'agent_incidents.provider_progress', timeMillis: T0 + 5 }];
    expect(kinds(adapter.extract(span('CHAIN', {}, { events: progress }), role, context()))).toEqual([
      'provider_progress',
    ]);
  });
});

// Over 300 lines: the one table of finish values, checked through every convention that reads it.
/**
 * Finish reasons by meaning (docs/conventions.md#finish-reasons-by-meaning):
 * every convention's finish value is read for what it says, one table for
 * all, and a finish must be shown. A value that says the answer did not
 * finish, or that the table does not know, is never a success by default.
 */
import { describe, expect, it } from 'vitest';
import type { ConventionAdapter, ExtractContext, Extraction, SpanView } from '../../src/conventions/index.js';
import { genAiAdapter, openInferenceAdapter, vercelAiAdapter } from '../../src/conventions/index.js';
import type { FinishMeaning } from '../../src/conventions/finish-reasons.js';
import { finishMeaning, finishOf, FINISH_REASON_MEANINGS } from '../../src/conventions/finish-reasons.js';
import { foldTrace } from '../../src/fold/fold-trace.js';
import type { Fact } from '../../src/model/facts.js';

const T0 = 1_700_000_000_000;

function context(overrides: Partial<ExtractContext> = {}): ExtractContext {
  return { attempt: 's1', truncated: false, trustedReadOnlyTools: [], attemptKeyOf: () => undefined, ...overrides };
}

/** One convention: how it writes a finish value on an attempt span. */
interface Convention {
  readonly name: string;
  readonly adapter: ConventionAdapter;
  readonly span: (finish: string | undefined) => SpanView;
}

const attemptSpan = (attributes: Record<string, unknown>, extra: Partial<SpanView> = {}): SpanView => ({
  spanId: 's1',
  parentSpanId: 'r',
  name: 'attempt',
  startMillis: T0 + 10,
  endMillis: T0 + 90,
  attributes,
  events: [],
  links: [],
  statusCode: 0,
  ...extra,
});

const CONVENTIONS: readonly Convention[] = [
  {
    name: 'GenAI `gen_ai.response.finish_reasons`',
    adapter: genAiAdapter,
    span: (finish) =>
      attemptSpan({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.stream': true,
        ...(finish === undefined ? {} : { 'gen_ai.response.finish_reasons': [finish] }),
      }),
  },
  {
    name: 'AI SDK 7 `@ai-sdk/otel` (GenAI, tracer gen_ai)',
    adapter: genAiAdapter,
    span: (finish) =>
      attemptSpan(
        {
          'gen_ai.operation.name': 'chat',
          'gen_ai.response.id': 'resp_1',
          'gen_ai.client.operation.time_to_first_chunk': 0.02,
          ...(finish === undefined ? {} : { 'gen_ai.response.finish_reasons': [finish] }),
        },
        { scopeName: 'gen_ai' },
      ),
  },
  {
    name: 'AI SDK / Vercel `ai.response.finishReason`',
    adapter: vercelAiAdapter,
    span: (finish) =>
      attemptSpan({
        'ai.operationId': 'ai.streamText.doStream',
        'ai.response.text': 'Half an answer',
        ...(finish === undefined ? {} : { 'ai.response.finishReason': finish }),
      }),
  },
  {
    name: 'OpenInference `llm.finish_reason`',
    adapter: openInferenceAdapter,
    span: (finish) =>
      attemptSpan({
        'openinference.span.kind': 'LLM',
        'llm.output_messages.0.message.content': 'Half an answer',
        ...(finish === undefined ? {} : { 'llm.finish_reason': finish }),
      }),
  },
];

/** What an attempt's extraction says about how it ended. */
function ending(extraction: Extraction): FinishMeaning {
  const finished = extraction.facts.some((f) => f.kind === 'attempt_finished');
  const error = extraction.facts.find(
    (f): f is Extract<Fact, { kind: 'provider_error' }> => f.kind === 'provider_error',
  );
  if (error?.error.detail === 'content_filter') return 'refused';
  if (error) return 'error';
  if (extraction.unfinished === true && !finished) return 'unfinished';
  // A limit and a stop read the same: the provider's finish arrived.
  return finished ? 'finished' : 'unfinished';
}

/** The table's rows, with the known spellings of each convention. */
const ROWS: readonly (readonly [string, FinishMeaning])[] = [
  ['stop', 'finished'],
  ['STOP', 'finished'],
  ['end_turn', 'finished'],
  ['stop_sequence', 'finished'],
  ['tool_calls', 'finished'],
  ['tool-calls', 'finished'],
  ['tool_use', 'finished'],
  ['function_call', 'finished'],
  ['length', 'limit'],
  ['max_tokens', 'limit'],
  ['MAX_TOKENS', 'limit'],
  ['model_context_window_exceeded', 'limit'],
  ['content_filter', 'refused'],
  ['content-filter', 'refused'],
  ['refusal', 'refused'],
  ['SAFETY', 'refused'],
  ['error', 'error'],
  ['interrupted', 'unfinished'],
  ['other', 'unfinished'],
  ['unknown', 'unfinished'],
  ['FINISH_REASON_UNSPECIFIED', 'unfinished'],
  ['', 'unfinished'],
  ['eos_token', 'unfinished'],
  ['a value nobody sends', 'unfinished'],
];

describe('the finish-reason table', () => {
  it.each(ROWS)('%j means %s', (value, meaning) => {
    expect(finishMeaning(value)).toBe(meaning);
  });

  it('knows every value it lists by its own spelling, with - or _ and in any case', () => {
    for (const [value, meaning] of Object.entries(FINISH_REASON_MEANINGS)) {
      expect(finishMeaning(value)).toBe(meaning);
      expect(finishMeaning(value.toUpperCase().replaceAll('_', '-'))).toBe(meaning);
    }
  });

  it.each([
    [['stop', 'length'], 'limit'],
    [['stop', 'interrupted'], 'unfinished'],
    [['tool_calls', 'content_filter'], 'refused'],
    [['interrupted', 'error'], 'error'],
    [[], undefined],
    [[...Array.from({ length: 256 }, () => 'stop'), 'stop'], 'unfinished'],
  ] as const)(
    'an attempt with several generations %j is as finished as its least finished one: %s',
    (reasons, meaning) => {
      expect(finishOf(reasons)).toBe(meaning);
    },
  );
});

describe.each(CONVENTIONS)('$name reads a finish by its meaning', ({ adapter, span }) => {
  it.each(ROWS)('%j: %s', (value, meaning) => {
    // A limit reads as the finish it is: the answer is as long as the request allowed.
    const expected = meaning === 'limit' ? 'finished' : meaning;
    expect(ending(adapter.extract(span(value), 'attempt', context()))).toBe(expected);
  });

  it('a content filter is a provider API error that asking again does not fix', () => {
    const error = adapter
      .extract(span('content_filter'), 'attempt', context())
      .facts.find((f) => f.kind === 'provider_error');
    expect(error).toMatchObject({ error: { kind: 'api', detail: 'content_filter', retryable: false } });
  });
});

describe('an attempt that shows no finish reason', () => {
  it.each([
    [
      'GenAI, a declared stream',
      genAiAdapter,
      attemptSpan({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.stream': true }),
      'unfinished',
    ],
    [
      'GenAI, AI SDK 7 (a finish reason on every finish)',
      genAiAdapter,
      attemptSpan({ 'gen_ai.operation.name': 'chat', 'gen_ai.response.id': 'r' }, { scopeName: 'gen_ai' }),
      'unfinished',
    ],
    [
      'GenAI, an instrumentation that records none',
      genAiAdapter,
      attemptSpan({ 'gen_ai.operation.name': 'chat' }),
      'finished',
    ],
    [
      'GenAI, output tokens (usage comes with the finish)',
      genAiAdapter,
      attemptSpan({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.stream': true, 'gen_ai.usage.output_tokens': 3 }),
      'finished',
    ],
    ['AI SDK 6', vercelAiAdapter, attemptSpan({ 'ai.operationId': 'ai.streamText.doStream' }), 'unfinished'],
    [
      'OpenInference, status OK (a whole response read)',
      openInferenceAdapter,
      attemptSpan({ 'openinference.span.kind': 'LLM' }, { statusCode: 1 }),
      'finished',
    ],
    [
      'OpenInference, status UNSET',
      openInferenceAdapter,
      attemptSpan({ 'openinference.span.kind': 'LLM' }),
      'unfinished',
    ],
  ] as const)('%s: %s', (_name, adapter, view, meaning) => {
    expect(ending(adapter.extract(view, 'attempt', context()))).toBe(meaning);
  });
});

describe('native attempts: agent_incidents.attempt_finished, refined by the finish reasons beside it', () => {
  const native = (events: string[], reasons?: string[]) =>
    attemptSpan(
      {
        'gen_ai.operation.name': 'chat',
        'agent_incidents.attempt.number': 1,
        ...(reasons ? { 'gen_ai.response.finish_reasons': reasons } : {}),
      },
      {
        events: events.map((name, i) => ({
          name: `agent_incidents.${name}`,
          timeMillis: T0 + 20 + i,
          attributes: { 'agent_incidents.seq': i + 1 },
        })),
      },
    );

  it.each([
    ['a finish with no reason is a finish', ['attempt_finished'], undefined, 'finished'],
    ['a finish with a reason that says so is a finish', ['attempt_finished'], ['stop'], 'finished'],
    ['a finish at a limit is a finish', ['attempt_finished'], ['length'], 'finished'],
    // The runtime said it finished: a value the table does not know does not undo that.
    ['a finish with an unknown reason is still the runtime’s finish', ['attempt_finished'], ['eos_token'], 'finished'],
    [
      'a finish whose reason says the stream ended without the provider’s finish did not finish',
      ['text_output_started', 'attempt_finished'],
      ['interrupted'],
      'unfinished',
    ],
    ['a finish with AI SDK 6’s filled-in reason did not finish', ['attempt_finished'], ['other'], 'unfinished'],
    [
      'a finish on a content filter is a refusal',
      ['text_output_started', 'attempt_finished'],
      ['content-filter'],
      'refused',
    ],
    [
      'an attempt that ended with neither a finish nor a failure did not finish',
      ['text_output_started'],
      undefined,
      'unfinished',
    ],
  ] as const)('%s', (_name, events, reasons, meaning) => {
    expect(
      ending(genAiAdapter.extract(native([...events], reasons ? [...reasons] : undefined), 'attempt', context())),
    ).toBe(meaning);
  });

  it('an attempt that failed is judged by its failure, whatever its finish reasons say', () => {
    const view = native(['provider_error'], ['stop']);
    expect(genAiAdapter.extract(view, 'attempt', context()).unfinished).toBeUndefined();
  });
});

describe('what the verdict makes of it', () => {
  const run = (chat: Record<string, unknown>): SpanView[] => [
    {
      spanId: 'r',
      name: 'invoke_agent',
      startMillis: T0,
      endMillis: T0 + 100,
      attributes: { 'gen_ai.operation.name': 'invoke_agent' },
      events: [],
      links: [],
      statusCode: 0,
    },
    attemptSpan({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.stream': true,
      'gen_ai.response.time_to_first_chunk': 0.01,
      'gen_ai.input.messages': '[]',
      ...chat,
    }),
  ];
  const verdict = (chat: Record<string, unknown>) => foldTrace(run(chat)).runs.get('r');

  it('a stream that ended without the provider’s finish after text is never a success: terminal_event_missing', () => {
    expect(verdict({ 'gen_ai.response.finish_reasons': ['interrupted'] })).toMatchObject({
      outcome: 'failed',
      cause: 'unknown_interruption',
      phase: 'text_generation',
      missingFacts: ['terminal_event_missing'],
    });
  });

  it('an unknown finish value is not a success by default', () => {
    expect(verdict({ 'gen_ai.response.finish_reasons': ['eos_token'] })).toMatchObject({
      outcome: 'failed',
      missingFacts: ['terminal_event_missing'],
    });
  });

  it('a finish at a limit is a success', () => {
    expect(verdict({ 'gen_ai.response.finish_reasons': ['length'] })).toMatchObject({
      outcome: 'success',
      factsComplete: true,
    });
  });

  it('a content filter fails the run, and it must not be retried', () => {
    expect(verdict({ 'gen_ai.response.finish_reasons': ['content_filter'] })).toMatchObject({
      outcome: 'failed',
      cause: 'provider_api_error',
      causeDetail: 'content_filter',
      retrySafety: 'do_not_retry',
      retrySafetyReason: 'not_retryable_error',
    });
  });
});

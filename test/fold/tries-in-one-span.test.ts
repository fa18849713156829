/**
 * Retries inside one span (docs/conventions.md#retries-inside-one-span). A
 * GenAI span covers its call as the caller saw it, retries included
 * (semantic-conventions-genai #216), and AI SDK 7's `generateText` retries
 * inside one `chat` span: one span can be several provider requests. An
 * earlier failed try is never taken for the span's final state, a call that
 * recovered inside its span reads `recovered`, and one that ran out of
 * retries there counts every try.
 */
import { describe, expect, it } from 'vitest';
import type { EventView, SpanView } from '../../src/conventions/span-view.js';
import { foldTrace } from '../../src/fold/fold-trace.js';

const T0 = 1_700_000_000_000;

function span(
  id: string,
  parent: string | undefined,
  attributes: Record<string, unknown>,
  start: number,
  end: number | undefined,
  extra: Partial<SpanView> = {},
): SpanView {
  return {
    spanId: id,
    parentSpanId: parent,
    name: String(attributes['gen_ai.operation.name'] ?? 'x'),
    attributes,
    startMillis: T0 + start,
    endMillis: end === undefined ? undefined : T0 + end,
    events: [],
    links: [],
    statusCode: 0,
    ...extra,
  };
}
const exception = (at: number, type: string, message: string): EventView => ({
  name: 'exception',
  timeMillis: T0 + at,
  attributes: { 'exception.type': type, 'exception.message': message },
});
const run = (end = 100): SpanView => span('r', undefined, { 'gen_ai.operation.name': 'invoke_agent' }, 0, end);
/** A plain GenAI `chat` span that exposed no tools (its inputs are recorded). */
const chat = (
  id: string,
  parent: string,
  start: number,
  end: number | undefined,
  attributes: Record<string, unknown>,
  extra: Partial<SpanView> = {},
) =>
  span(
    id,
    parent,
    { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': '[]', ...attributes },
    start,
    end,
    extra,
  );

// Python `openai` as an instrumentation records a failed request (`span.record_exception`).
const rateLimited = (at: number) =>
  exception(at, 'openai.RateLimitError', "Error code: 429 - {'error': {'type': 'rate_limit_exceeded'}}");
const overloaded = (at: number) =>
  exception(
    at,
    'openai.InternalServerError',
    "Error code: 503 - {'error': {'message': 'The server is overloaded or not ready yet.', 'type': 'server_error'}}",
  );
const reset = (at: number) =>
  exception(at, 'ConnectionResetError', '[Errno 104] Connection reset by peer (ECONNRESET)');
const finished = { 'gen_ai.response.finish_reasons': ['stop'], 'gen_ai.usage.output_tokens': 12 };

const verdictOf = (spans: SpanView[]) => foldTrace(spans).runs.get('r');

describe('a span that recorded its failed tries', () => {
  it.each([
    ['a 429, then an answer', [rateLimited(30)], 'rate_limit'],
    ['a 503, then an answer', [overloaded(30)], 'server_overload'],
    ['a 429 and a 503, then an answer', [rateLimited(20), overloaded(40)], 'server_overload'],
  ] as const)('%s: recovered, and the earlier failure is not the final state', (_name, events, detail) => {
    const verdict = verdictOf([run(), chat('c', 'r', 10, 90, finished, { events: [...events] })]);
    expect(verdict).toMatchObject({
      outcome: 'recovered',
      cause: 'provider_api_error',
      causeDetail: detail,
      attempts: events.length + 1,
      recoveredAttempts: events.length,
    });
  });

  it('a dropped connection, then an answer: recovered from the disconnect', () => {
    expect(verdictOf([run(), chat('c', 'r', 10, 90, finished, { events: [reset(30)] })])).toMatchObject({
      outcome: 'recovered',
      cause: 'provider_transport_disconnect',
      causeDetail: 'connection_reset',
      attempts: 2,
    });
  });

  it('two failed tries, the span ERROR: failed by the last, after a retry, so the retry budget is spent', () => {
    const verdict = verdictOf([
      run(),
      chat(
        'c',
        'r',
        10,
        90,
        { 'http.response.status_code': 503 },
        { statusCode: 2, statusMessage: 'Error code: 503', events: [rateLimited(30), overloaded(89)] },
      ),
    ]);
    expect(verdict).toMatchObject({
      outcome: 'failed',
      cause: 'provider_api_error',
      causeDetail: 'server_overload',
      errorCode: 'http_503',
      attempts: 2,
      recoveredAttempts: 1,
      retrySafety: 'ask_user_before_retry',
      retrySafetyReason: 'retry_budget_exhausted',
    });
  });

  it('the last try is judged by its own error, not by an earlier try’s', () => {
    // A 429 first, then a reset: the run ended on a disconnect.
    const verdict = verdictOf([
      run(),
      chat('c', 'r', 10, 90, {}, { statusCode: 2, events: [rateLimited(30), reset(89)] }),
    ]);
    expect(verdict).toMatchObject({
      outcome: 'failed',
      cause: 'provider_transport_disconnect',
      causeDetail: 'connection_reset',
      attempts: 2,
    });
  });

  it('an error recorded twice in the same millisecond is one try', () => {
    const twice = [overloaded(30), { ...overloaded(30), timeMillis: T0 + 30.4 }];
    expect(verdictOf([run(), chat('c', 'r', 10, 90, finished, { events: twice })])).toMatchObject({
      outcome: 'recovered',
      attempts: 2,
    });
  });

  it('an exception recorded at the very end of a finished span is no earlier try', () => {
    expect(verdictOf([run(), chat('c', 'r', 10, 90, finished, { events: [reset(90)] })])).toMatchObject({
      outcome: 'success',
      attempts: 1,
    });
  });

  it('a span that ended ERROR is failed even with a finish reason: it never reads recovered by guessing the order', () => {
    const verdict = verdictOf([run(), chat('c', 'r', 10, 90, finished, { statusCode: 2, events: [overloaded(30)] })]);
    expect(verdict).toMatchObject({ outcome: 'failed', cause: 'provider_api_error', attempts: 1 });
  });

  it('the tries count with the attempts around them, in order', () => {
    const spans = [
      run(),
      chat('c1', 'r', 5, 20, { 'gen_ai.response.finish_reasons': ['tool_calls'], 'gen_ai.usage.output_tokens': 3 }),
      chat('c2', 'r', 30, 90, finished, { events: [overloaded(40), overloaded(50)] }),
    ];
    const fold = foldTrace(spans);
    expect(fold.runs.get('r')).toMatchObject({ outcome: 'recovered', attempts: 4, recoveredAttempts: 2 });
  });

  it('a span that recovered inside itself carries no attempt verdict of its own: its call succeeded', () => {
    const fold = foldTrace([run(), chat('c', 'r', 10, 90, finished, { events: [overloaded(30)] })]);
    expect(fold.attempts.get('c')).toBeUndefined();
  });
});

describe("AI SDK 7: the call's retry count (AI_RetryError, `Failed after N attempts`)", () => {
  const retryError = (n: number, at: number) =>
    exception(at, 'AI_RetryError', `Failed after ${n} attempts. Last error: AI_APICallError: Service Unavailable`);
  const failedChat = (id: string, parent: string, n: number, start: number, end: number) =>
    chat(
      id,
      parent,
      start,
      end,
      { 'gen_ai.provider.name': 'openai', 'http.response.status_code': 503 },
      {
        scopeName: 'gen_ai',
        statusCode: 2,
        statusMessage: `Failed after ${n} attempts. Last error: AI_APICallError: Service Unavailable`,
        events: [retryError(n, end)],
      },
    );

  it.each([2, 3])('generateText: %i tries inside one chat span are %i attempts, the budget spent', (n) => {
    const spans = [
      run(),
      span('s', 'r', { 'gen_ai.operation.name': 'agent_step' }, 5, 95, { scopeName: 'gen_ai' }),
      failedChat('c', 's', n, 10, 90),
    ];
    expect(verdictOf(spans)).toMatchObject({
      outcome: 'failed',
      cause: 'provider_api_error',
      causeDetail: 'server_overload',
      attempts: n,
      recoveredAttempts: n - 1,
      retrySafetyReason: 'retry_budget_exhausted',
    });
  });

  it('streamText: a span per try, the failed ones left open: the count is not added twice', () => {
    const spans = [
      run(),
      span('s', 'r', { 'gen_ai.operation.name': 'agent_step' }, 5, 95, { scopeName: 'gen_ai' }),
      chat('c1', 's', 10, undefined, { 'gen_ai.provider.name': 'openai' }, { scopeName: 'gen_ai' }),
      failedChat('c2', 's', 2, 40, 90),
    ];
    expect(verdictOf(spans)).toMatchObject({
      cause: 'provider_api_error',
      attempts: 2,
      retrySafetyReason: 'retry_budget_exhausted',
    });
  });

  it('a later step’s call counts only its own tries', () => {
    const spans = [
      run(),
      span('s1', 'r', { 'gen_ai.operation.name': 'agent_step' }, 5, 30, { scopeName: 'gen_ai' }),
      chat('c1', 's1', 6, 29, { 'gen_ai.response.finish_reasons': ['tool-calls'] }, { scopeName: 'gen_ai' }),
      span('s2', 'r', { 'gen_ai.operation.name': 'agent_step' }, 35, 95, { scopeName: 'gen_ai' }),
      failedChat('c2', 's2', 2, 40, 90),
    ];
    expect(verdictOf(spans)).toMatchObject({ cause: 'provider_api_error', attempts: 3, recoveredAttempts: 1 });
  });
});

describe('every reader of a span sees the same tries', () => {
  it('a run judged while its attempt span is still open counts the tries that span recorded so far', () => {
    // The gateway folds a trace whose attempt never ended: cut off at the run's end, its recorded tries kept.
    const spans = [run(), chat('c', 'r', 10, undefined, {}, { events: [overloaded(30)] })];
    expect(verdictOf(spans)).toMatchObject({
      outcome: 'failed',
      cause: 'unknown_interruption',
      attempts: 2,
      recoveredAttempts: 1,
      missingFacts: expect.arrayContaining(['terminal_event_missing']),
    });
  });
});

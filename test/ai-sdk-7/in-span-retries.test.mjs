/**
 * Retries inside one span, on real AI SDK 7 (docs/conventions.md#retries-inside-one-span).
 * `generateText` retries inside one `chat` span: `@ai-sdk/otel` 1.0.173 starts
 * the span once, and the SDK's retries (`maxRetries`, for a 429, a 503 or
 * Anthropic's 529) run inside it. What the span then shows, observed here
 * against the fake provider over real sockets:
 *
 * - a call that recovered: nothing of the failed tries (no event, no status,
 *   no attribute; the GenAI conventions say a retried error is not recorded
 *   on the span). The plain spans read `success` with one attempt; with
 *   `withAgentRun` the integration records each try natively: `recovered`.
 * - a call that ran out of retries: ERROR, one `AI_RetryError` exception
 *   "Failed after N attempts. Last error: …", `http.response.status_code` of
 *   the last try. Read as N attempts, the earlier ones retried: the retry
 *   budget is spent, as with the integration.
 *
 * Each row runs through the real processor, and the helper's in-process
 * verdict is the exported one.
 */
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { incidentAttributes } from 'agent-incidents';
import { reply, startFakeProvider } from 'agent-incidents/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCall } from './run-ai-sdk-7.mjs';

const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  context.disable();
});

/** `retry-after: 0`, so the SDK retries at once. */
const quiet = { 'retry-after': '0' };
const status = (code) => reply.status(code, quiet);

/** The verdict both ways agree on when the spans show the tries. */
const exhausted = (detail, code, attempts) => ({
  'incident.outcome': 'failed',
  'incident.cause': 'provider_api_error',
  'incident.cause.detail': detail,
  'incident.error.code': code,
  'incident.attempts': attempts,
  'incident.recovered_attempts': attempts - 1,
  'incident.retry_safety': 'ask_user_before_retry',
  'incident.retry_safety.reason': 'retry_budget_exhausted',
});
const recovered = (detail, code) => ({
  'incident.outcome': 'recovered',
  'incident.cause': 'provider_api_error',
  'incident.cause.detail': detail,
  'incident.error.code': code,
  'incident.attempts': 2,
  'incident.recovered_attempts': 1,
});
/** Plain spans of a call that recovered inside its span: nothing shows the failed try. */
const silentRecovery = { 'incident.outcome': 'success', 'incident.attempts': 1 };

const ROWS = [
  {
    name: 'a 429 (OpenAI Responses), then an answer',
    plan: { dialect: 'openai.responses', call: 'generateText', maxRetries: 2 },
    replies: [status(429), reply.text('Done.')],
    helper: recovered('rate_limit', 'http_429'),
    plain: silentRecovery,
  },
  {
    name: 'a 503 (OpenAI Chat Completions), then an answer',
    plan: { dialect: 'openai.chat', call: 'generateText', maxRetries: 2 },
    replies: [status(503), reply.text('Done.')],
    helper: recovered('server_overload', 'http_503'),
    plain: silentRecovery,
  },
  {
    name: "Anthropic's 529 overloaded, then an answer",
    plan: { dialect: 'anthropic', call: 'generateText', maxRetries: 2 },
    replies: [status(529), reply.text('Done.')],
    helper: recovered('server_overload', 'http_529'),
    plain: silentRecovery,
  },
  {
    name: '429 three times: every try counts, the retry budget is spent',
    plan: { dialect: 'openai.responses', call: 'generateText', maxRetries: 2 },
    replies: [status(429), status(429), status(429)],
    helper: exhausted('rate_limit', 'http_429', 3),
    plain: { ...exhausted('rate_limit', 'http_429', 3), 'incident.phase': 'unknown', 'incident.facts_complete': false },
  },
  {
    name: '503 twice: every try counts, the retry budget is spent',
    plan: { dialect: 'openai.chat', call: 'generateText', maxRetries: 1 },
    replies: [status(503), status(503)],
    helper: exhausted('server_overload', 'http_503', 2),
    plain: {
      ...exhausted('server_overload', 'http_503', 2),
      'incident.phase': 'unknown',
      'incident.facts_complete': false,
    },
  },
  {
    name: '529 three times: every try counts, the retry budget is spent',
    plan: { dialect: 'anthropic', call: 'generateText', maxRetries: 2 },
    replies: [status(529), status(529), status(529)],
    helper: exhausted('server_overload', 'http_529', 3),
    plain: {
      ...exhausted('server_overload', 'http_529', 3),
      'incident.phase': 'unknown',
      'incident.facts_complete': false,
    },
  },
  {
    name: 'a 529, then a 400 out of credit: judged by the last try, never by the earlier 529',
    plan: { dialect: 'anthropic', call: 'generateText', maxRetries: 2 },
    replies: [status(529), reply.insufficientQuota(400)],
    helper: {
      'incident.outcome': 'failed',
      'incident.cause.detail': 'quota_exhausted',
      'incident.retry_safety': 'do_not_retry',
      'incident.attempts': 2,
      'incident.recovered_attempts': 1,
    },
    plain: {
      'incident.outcome': 'failed',
      'incident.cause.detail': 'quota_exhausted',
      'incident.retry_safety': 'do_not_retry',
      'incident.attempts': 2,
      'incident.recovered_attempts': 1,
    },
  },
];

async function play(row, helper) {
  const fake = await startFakeProvider();
  try {
    fake.enqueue(...row.replies);
    const outcome = await runCall(fake, row.plan, helper);
    return { ...outcome, requests: fake.requests.length };
  } finally {
    await fake.close();
  }
}

function pick(attributes, want) {
  return Object.fromEntries(Object.keys(want).map((key) => [key, attributes[key]]));
}

describe('AI SDK 7 generateText retries inside one chat span', () => {
  for (const row of ROWS) {
    it(`with withAgentRun: ${row.name}`, async () => {
      const outcome = await play(row, true);
      // The SDK really retried: one request per reply.
      expect(outcome.requests).toBe(row.replies.length);
      const exported = outcome.run?.attributes ?? {};
      expect(pick(exported, row.helper)).toEqual(row.helper);
      const inProcess = incidentAttributes(outcome.inProcess);
      expect(pick(exported, inProcess)).toEqual(inProcess);
    });

    it(`plain @ai-sdk/otel spans: ${row.name}`, async () => {
      const outcome = await play(row, false);
      expect(outcome.requests).toBe(row.replies.length);
      // One chat span, whatever the number of tries.
      expect(outcome.spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat')).toHaveLength(1);
      const exported = outcome.run?.attributes ?? {};
      expect(pick(exported, row.plain)).toEqual(row.plain);
      // The span says how many tries its call made only when they ran out.
      const chat = outcome.spans.find((s) => s.attributes['gen_ai.operation.name'] === 'chat');
      const retryError = chat?.events.find(
        (e) => e.name === 'exception' && e.attributes?.['exception.type'] === 'AI_RetryError',
      );
      if (row.plain['incident.outcome'] === 'success') expect(chat?.events ?? []).toEqual([]);
      else
        expect(String(retryError?.attributes?.['exception.message'])).toMatch(
          new RegExp(`^Failed after ${row.replies.length} attempts`),
        );
    });
  }
});

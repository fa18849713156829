/**
 * A stream that ends cleanly without the provider's finish, on real AI SDK 7
 * (docs/conventions.md#finish-reasons-by-meaning). The fake provider sends
 * some text, then ends the response body as a healthy one ends (no socket
 * error), with no finish chunk (`finish_reason`, `response.completed`,
 * `message_delta` / `message_stop`) and no `[DONE]`: a proxy or a provider
 * that stops mid-answer. AI SDK 7 reports finish reason `interrupted` (the
 * `chat` span and the root carry `gen_ai.response.finish_reasons:
 * ["interrupted"]`, status UNSET, a response id and no usage), and the app
 * sees no error. Before, that read as a success; an attempt that did not
 * finish is `terminal_event_missing`, never a success.
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

const end = { type: 'end' };
const halfAnswer = reply.script({ type: 'text', text: ['Half', ' an answer'] }, end);

/** Cut after text: the user saw part of an answer, what stopped it is unnamed. */
const afterText = {
  'incident.outcome': 'failed',
  'incident.cause': 'unknown_interruption',
  'incident.phase': 'text_generation',
  'incident.missing_facts': ['terminal_event_missing'],
};

const ROWS = [
  {
    name: 'OpenAI Chat Completions: text, then the body ends',
    plan: { dialect: 'openai.chat' },
    replies: [halfAnswer],
    helper: {
      ...afterText,
      'incident.retry_safety': 'offer_continue',
      'incident.retry_safety.reason': 'visible_output_without_tool_execution',
    },
    // Plain spans do not say which tools are safe: nothing is claimed safe to continue.
    plain: { ...afterText, 'incident.retry_safety': 'ask_user_before_retry' },
  },
  {
    name: 'OpenAI Responses: text, then the body ends',
    plan: { dialect: 'openai.responses' },
    replies: [halfAnswer],
    helper: { ...afterText, 'incident.retry_safety': 'offer_continue' },
    plain: { ...afterText, 'incident.retry_safety': 'ask_user_before_retry' },
  },
  {
    name: 'Anthropic Messages: text, then the body ends',
    plan: { dialect: 'anthropic' },
    replies: [halfAnswer],
    helper: { ...afterText, 'incident.retry_safety': 'offer_continue' },
    plain: { ...afterText, 'incident.retry_safety': 'ask_user_before_retry' },
  },
  {
    name: 'Anthropic Messages: text and part of a tool call, then the body ends',
    plan: { dialect: 'anthropic' },
    replies: [
      reply.script(
        { type: 'text', text: 'Let me look.' },
        { type: 'partial-tool-call', name: 'run_shell', arguments: '{"command":"ls"}' },
        end,
      ),
    ],
    helper: {
      ...afterText,
      'incident.phase': 'tool_input_generation',
      'incident.retry_safety.reason': 'partial_tool_input_without_execution',
    },
    plain: {
      'incident.outcome': 'failed',
      'incident.cause': 'unknown_interruption',
      'incident.missing_facts': ['terminal_event_missing'],
    },
  },
  {
    name: 'OpenAI Chat Completions: the stream opens, then the body ends before any output',
    plan: { dialect: 'openai.chat' },
    replies: [reply.script({ type: 'open' }, end)],
    helper: {
      'incident.outcome': 'failed',
      'incident.cause': 'unknown_interruption',
      'incident.phase': 'before_first_provider_progress',
      'incident.missing_facts': ['terminal_event_missing'],
    },
    plain: { 'incident.outcome': 'failed', 'incident.cause': 'unknown_interruption', 'incident.phase': 'unknown' },
  },
];

async function play(row, helper) {
  const fake = await startFakeProvider();
  try {
    fake.enqueue(...row.replies);
    const outcome = await runCall(fake, row.plan, helper);
    return { ...outcome, ends: fake.requests.map((r) => r.end) };
  } finally {
    await fake.close();
  }
}

function pick(attributes, want) {
  return Object.fromEntries(Object.keys(want).map((key) => [key, attributes[key]]));
}

describe('AI SDK 7: a stream that ends without the provider’s finish is never a success', () => {
  for (const row of ROWS) {
    it(`with withAgentRun: ${row.name}`, async () => {
      const outcome = await play(row, true);
      expect(outcome.ends).toEqual(['ended']);
      const exported = outcome.run?.attributes ?? {};
      expect(pick(exported, row.helper)).toEqual(row.helper);
      const inProcess = incidentAttributes(outcome.inProcess);
      expect(pick(exported, inProcess)).toEqual(inProcess);
    });

    it(`plain @ai-sdk/otel spans: ${row.name}`, async () => {
      const outcome = await play(row, false);
      expect(outcome.ends).toEqual(['ended']);
      const chat = outcome.spans.find((s) => s.attributes['gen_ai.operation.name'] === 'chat');
      // What AI SDK 7 writes for it: finish reason `interrupted`, no error.
      expect(chat?.attributes['gen_ai.response.finish_reasons']).toEqual(['interrupted']);
      expect(chat?.status.code).not.toBe(2);
      const exported = outcome.run?.attributes ?? {};
      expect(pick(exported, row.plain)).toEqual(row.plain);
    });
  }
});

describe('AI SDK 7 generateText: a whole answer whose body ends early', () => {
  it('plain @ai-sdk/otel spans: the body is no JSON, an error after the 200 whose cause the span does not name', async () => {
    const row = { plan: { dialect: 'openai.chat', call: 'generateText' }, replies: [halfAnswer] };
    const outcome = await play(row, false);
    expect(outcome.ends).toEqual(['ended']);
    const want = { 'incident.outcome': 'failed', 'incident.cause': 'unknown_interruption', 'incident.attempts': 1 };
    expect(pick(outcome.run?.attributes ?? {}, want)).toEqual(want);
  });
});

/**
 * The Chat Completions dialect of the fake provider: its error bodies, its streamed chunks
 * (role on the first delta, tool-call indexes, finish and usage chunks, `[DONE]`) and its
 * non-streaming answer.
 */
import { describe, expect, it } from 'vitest';
import { chatCompletions, openAiError } from '../../../src/testing/fake-provider/chat-completions.js';
import type { AnswerContext } from '../../../src/testing/fake-provider/dialect.js';
import type { FinishReason, ProviderError } from '../../../src/testing/fake-provider/script.js';

const CONTEXT: AnswerContext = {
  model: 'gpt-x',
  serial: 7,
  created: 1_700_000_000,
  inputTokens: 12,
  includeUsage: false,
};

/** The `data:` payloads of an SSE text, parsed; `[DONE]` stays a string. */
function frames(text: string): unknown[] {
  return text
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => {
      expect(frame.startsWith('data: ')).toBe(true);
      const data = frame.slice('data: '.length);
      return data === '[DONE]' ? data : (JSON.parse(data) as unknown);
    });
}

const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): unknown => ({
  id: 'chatcmpl-fake7',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model: 'gpt-x',
  system_fingerprint: null,
  choices,
  ...extra,
});
const delta = (fields: Record<string, unknown>): unknown =>
  chunk([{ index: 0, delta: fields, logprobs: null, finish_reason: null }]);

describe('openAiError', () => {
  it.each<[number, ProviderError | undefined, ReturnType<typeof openAiError>]>([
    [
      429,
      undefined,
      {
        message: 'Rate limit reached for requests.',
        type: 'rate_limit_exceeded',
        param: null,
        code: 'rate_limit_exceeded',
      },
    ],
    [
      503,
      undefined,
      {
        message: 'The server is overloaded or not ready yet.',
        type: 'server_error',
        param: null,
        code: 'server_error',
      },
    ],
    [
      500,
      undefined,
      {
        message: 'The server had an error while processing your request.',
        type: 'server_error',
        param: null,
        code: 'server_error',
      },
    ],
    [
      502,
      {},
      {
        message: 'The server had an error while processing your request.',
        type: 'server_error',
        param: null,
        code: 'server_error',
      },
    ],
    [
      404,
      undefined,
      {
        message: 'Request failed with status 404.',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_request_error',
      },
    ],
    [
      429,
      { type: 'insufficient_quota' },
      {
        message: 'You exceeded your current quota, please check your plan and billing details.',
        type: 'insufficient_quota',
        param: null,
        code: 'insufficient_quota',
      },
    ],
    [
      400,
      { type: 'bad', code: 'worse', message: 'Nope' },
      { message: 'Nope', type: 'bad', param: null, code: 'worse' },
    ],
  ])('status %d with %j', (status, error, expected) => {
    expect(openAiError(status, error)).toEqual(expected);
  });
});

describe('chatCompletions dialect', () => {
  it('serves /v1/chat/completions and names tool calls call_fake<serial>_<n>', () => {
    expect([chatCompletions.name, chatCompletions.path, chatCompletions.toolCallId(3, 1)]).toEqual([
      'chat-completions',
      '/v1/chat/completions',
      'call_fake3_1',
    ]);
  });

  it.each<[Record<string, unknown>, boolean]>([
    [{ stream: true }, true],
    [{ stream: 'true' }, false],
    [{}, false],
  ])('wantsStream(%j) is %s', (body, expected) => {
    expect(chatCompletions.wantsStream(body)).toBe(expected);
  });

  it('wraps the error object in an error body, and an error step is always a 500', () => {
    expect(JSON.parse(chatCompletions.errorBody(429, undefined))).toEqual({ error: openAiError(429, undefined) });
    expect(chatCompletions.errorStepStatus({ type: 'overloaded_error' })).toBe(500);
  });
});

describe('the stream encoder', () => {
  it('puts the role on the first delta only, and open() writes nothing once a delta went out', () => {
    const encoder = chatCompletions.encoder(CONTEXT);
    expect(frames(encoder.open())).toEqual([delta({ role: 'assistant' })]);
    expect(encoder.open()).toBe('');
    expect(frames(encoder.text('Hi'))).toEqual([delta({ content: 'Hi' })]);
  });

  it('carries the role on the first text delta when the stream was not opened', () => {
    const encoder = chatCompletions.encoder(CONTEXT);
    expect(frames(encoder.text('Hi'))).toEqual([delta({ role: 'assistant', content: 'Hi' })]);
  });

  it('writes nothing for reasoning, a tool-call end or an abandoned call', () => {
    const encoder = chatCompletions.encoder(CONTEXT);
    expect([encoder.reasoning('think'), encoder.toolCallEnd()]).toEqual(['', '']);
    expect(encoder.abandon()).toBeUndefined();
  });

  it('numbers tool calls from 0 and sends argument deltas under the current index', () => {
    const encoder = chatCompletions.encoder(CONTEXT);
    const text =
      encoder.toolCallStart('c1', 'search') + encoder.toolCallDelta('{"q"') + encoder.toolCallStart('c2', 'fetch');
    expect(frames(text)).toEqual([
      delta({
        role: 'assistant',
        tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'search', arguments: '' } }],
      }),
      delta({ tool_calls: [{ index: 0, function: { arguments: '{"q"' } }] }),
      delta({ tool_calls: [{ index: 1, id: 'c2', type: 'function', function: { name: 'fetch', arguments: '' } }] }),
    ]);
  });

  it.each<[FinishReason, string]>([
    ['stop', 'stop'],
    ['tool_calls', 'tool_calls'],
    ['tool_use', 'tool_calls'],
    ['length', 'length'],
    ['content_filter', 'content_filter'],
  ])('finish(%s) writes finish_reason %s then [DONE], with no usage chunk unless asked', (reason, wire) => {
    expect(frames(chatCompletions.encoder(CONTEXT).finish(reason))).toEqual([
      chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: wire }]),
      '[DONE]',
    ]);
  });

  it('adds a usage chunk counting one output token per text or argument delta when include_usage is set', () => {
    const encoder = chatCompletions.encoder({ ...CONTEXT, includeUsage: true });
    encoder.text('a');
    encoder.text('b');
    encoder.toolCallStart('c', 'n');
    encoder.toolCallDelta('{}');
    expect(frames(encoder.finish('stop'))[1]).toEqual(
      chunk([], { usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } }),
    );
  });

  it('writes an error event with the 500 error object', () => {
    expect(frames(chatCompletions.encoder(CONTEXT).error({ message: 'Boom' }))).toEqual([
      { error: { message: 'Boom', type: 'server_error', param: null, code: 'server_error' } },
    ]);
  });
});

describe('the non-streaming answer', () => {
  const base = {
    id: 'chatcmpl-fake7',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-x',
    system_fingerprint: null,
    usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 },
  };

  it('joins the text parts and drops reasoning', () => {
    const parts = [
      { type: 'text', text: 'Hel' },
      { type: 'reasoning', text: 'hidden' },
      { type: 'text', text: 'lo' },
    ] as const;
    expect(chatCompletions.json(parts, 'stop', CONTEXT, 4)).toEqual({
      ...base,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
    });
  });

  it('has null content and the tool calls when the answer is only tool calls', () => {
    const parts = [{ type: 'tool-call', id: 'c1', name: 'search', arguments: '{"q":1}' }] as const;
    expect(chatCompletions.json(parts, 'tool_use', CONTEXT, 4)).toEqual({
      ...base,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{"q":1}' } }],
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
    });
  });

  it('has empty-string content for an empty answer', () => {
    const answer = chatCompletions.json([], 'length', CONTEXT, 0) as {
      choices: [{ message: unknown; finish_reason: string }];
    };
    expect(answer.choices[0]).toMatchObject({ message: { content: '' }, finish_reason: 'length' });
  });
});

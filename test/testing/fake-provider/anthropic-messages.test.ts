/**
 * The Anthropic Messages dialect of the fake provider: its error bodies and statuses, its
 * `event:`/`data:` frames (message_start once, one content block per kind, a thinking block
 * closed by its signature, message_delta and message_stop) and its non-streaming answer.
 */
import { describe, expect, it } from 'vitest';
import { anthropicMessages } from '../../../src/testing/fake-provider/anthropic-messages.js';
import type { AnswerContext } from '../../../src/testing/fake-provider/dialect.js';
import type { FinishReason, ProviderError } from '../../../src/testing/fake-provider/script.js';

const CONTEXT: AnswerContext = {
  model: 'claude-x',
  serial: 4,
  created: 1_700_000_000,
  inputTokens: 9,
  includeUsage: false,
};
const SIGNATURE = 'ZmFrZS1wcm92aWRlci1zaWduYXR1cmU=';

/** `[event, data]` for each frame of an SSE text; the event line must match the data's type. */
function frames(text: string): [string, unknown][] {
  return text
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => {
      const [eventLine = '', dataLine = ''] = frame.split('\n');
      const event = eventLine.replace(/^event: /, '');
      const data = JSON.parse(dataLine.replace(/^data: /, '')) as { type: string };
      expect(data.type).toBe(event);
      return [event, data];
    });
}
const names = (text: string): string[] => frames(text).map(([event]) => event);

describe('error bodies', () => {
  it.each<[number, ProviderError | undefined, { type: string; message: string }]>([
    [401, undefined, { type: 'authentication_error', message: 'invalid x-api-key' }],
    [
      403,
      undefined,
      { type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' },
    ],
    [404, undefined, { type: 'not_found_error', message: 'The requested resource could not be found.' }],
    [413, undefined, { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' }],
    [
      429,
      undefined,
      { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit.' },
    ],
    [503, undefined, { type: 'overloaded_error', message: 'Overloaded' }],
    [529, undefined, { type: 'overloaded_error', message: 'Overloaded' }],
    [500, undefined, { type: 'api_error', message: 'Internal server error' }],
    [418, undefined, { type: 'invalid_request_error', message: 'Request failed with status 418.' }],
    [
      400,
      { type: 'insufficient_quota' },
      {
        type: 'invalid_request_error',
        message:
          'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
      },
    ],
    [500, { type: 'custom', code: 'ignored', message: 'Mine' }, { type: 'custom', message: 'Mine' }],
  ])('status %d with %j', (status, error, expected) => {
    expect(JSON.parse(anthropicMessages.errorBody(status, error))).toEqual({ type: 'error', error: expected });
  });

  it.each<[ProviderError, number]>([
    [{}, 529],
    [{ type: 'overloaded_error' }, 529],
    [{ type: 'api_error' }, 500],
  ])('an error step %j is answered %d when not streaming', (error, status) => {
    expect(anthropicMessages.errorStepStatus(error)).toBe(status);
  });
});

describe('anthropicMessages dialect', () => {
  it('serves /v1/messages, names tool calls toolu_fake<serial>_<n>, and streams only for stream: true', () => {
    expect([anthropicMessages.name, anthropicMessages.path, anthropicMessages.toolCallId(2, 0)]).toEqual([
      'messages',
      '/v1/messages',
      'toolu_fake2_0',
    ]);
    expect([anthropicMessages.wantsStream({ stream: true }), anthropicMessages.wantsStream({})]).toEqual([true, false]);
  });
});

describe('the stream encoder', () => {
  it('opens with message_start once, carrying the model, serial and input tokens', () => {
    const encoder = anthropicMessages.encoder(CONTEXT);
    expect(frames(encoder.open())).toEqual([
      [
        'message_start',
        {
          type: 'message_start',
          message: {
            id: 'msg_fake4',
            type: 'message',
            role: 'assistant',
            model: 'claude-x',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
          },
        },
      ],
    ]);
    expect(encoder.open()).toBe('');
  });

  it('keeps deltas of one kind in one block and closes a thinking block with its signature', () => {
    const encoder = anthropicMessages.encoder(CONTEXT);
    const first = frames(encoder.reasoning('a') + encoder.reasoning('b'));
    expect(first.map(([event]) => event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
    ]);
    expect(first[1]?.[1]).toEqual({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    });
    expect(first[3]?.[1]).toEqual({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'thinking_delta', thinking: 'b' },
    });
    expect(frames(encoder.text('Hi'))).toEqual([
      [
        'content_block_delta',
        { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: SIGNATURE } },
      ],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hi' } }],
    ]);
  });

  it('writes a tool_use block with input_json_delta pieces and closes it at toolCallEnd', () => {
    const encoder = anthropicMessages.encoder(CONTEXT);
    encoder.open();
    expect(
      frames(encoder.toolCallStart('t1', 'search') + encoder.toolCallDelta('{"q":') + encoder.toolCallEnd()),
    ).toEqual([
      [
        'content_block_start',
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 't1', name: 'search', input: {} },
        },
      ],
      [
        'content_block_delta',
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"q":' } },
      ],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ]);
  });

  it('writes no argument delta outside a tool_use block, and no stop for an abandoned call', () => {
    const encoder = anthropicMessages.encoder(CONTEXT);
    encoder.text('x');
    expect(encoder.toolCallDelta('{}')).toBe('');
    encoder.toolCallStart('t1', 'n');
    encoder.abandon();
    expect(names(encoder.finish('tool_use'))).toEqual(['message_delta', 'message_stop']);
  });

  it.each<[FinishReason, string]>([
    ['stop', 'end_turn'],
    ['tool_calls', 'tool_use'],
    ['tool_use', 'tool_use'],
    ['length', 'max_tokens'],
    ['content_filter', 'refusal'],
  ])('finish(%s) closes the open block and stops with %s, counting output tokens', (reason, stop) => {
    const encoder = anthropicMessages.encoder(CONTEXT);
    encoder.text('a');
    encoder.text('b');
    const written = frames(encoder.finish(reason));
    expect(written.map(([event]) => event)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(written[1]?.[1]).toEqual({
      type: 'message_delta',
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: 2 },
    });
  });

  it('starts the message when finishing an answer that wrote nothing', () => {
    expect(names(anthropicMessages.encoder(CONTEXT).finish('stop'))).toEqual([
      'message_start',
      'message_delta',
      'message_stop',
    ]);
  });

  it('writes an error event as the 529 error object, without message_start', () => {
    expect(frames(anthropicMessages.encoder(CONTEXT).error({}))).toEqual([
      ['error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }],
    ]);
  });
});

describe('the non-streaming answer', () => {
  it('writes each part as a content block, parsing tool input (an empty one as {})', () => {
    const parts = [
      { type: 'reasoning', text: 'hmm' },
      { type: 'text', text: 'Hi' },
      { type: 'tool-call', id: 't1', name: 'a', arguments: '{"x":1}' },
      { type: 'tool-call', id: 't2', name: 'b', arguments: '' },
    ] as const;
    expect(anthropicMessages.json(parts, 'tool_calls', CONTEXT, 5)).toEqual({
      id: 'msg_fake4',
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: SIGNATURE },
        { type: 'text', text: 'Hi' },
        { type: 'tool_use', id: 't1', name: 'a', input: { x: 1 } },
        { type: 'tool_use', id: 't2', name: 'b', input: {} },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 5 },
    });
  });
});

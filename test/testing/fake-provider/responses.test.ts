/**
 * The OpenAI Responses dialect of the fake provider: numbered typed events, output items that
 * open and close around their deltas, `response.completed` or `response.incomplete` with usage,
 * the `error` event, and the non-streaming answer.
 */
import { describe, expect, it } from 'vitest';
import { openAiError } from '../../../src/testing/fake-provider/chat-completions.js';
import type { AnswerContext } from '../../../src/testing/fake-provider/dialect.js';
import { responses } from '../../../src/testing/fake-provider/responses.js';
import type { FinishReason } from '../../../src/testing/fake-provider/script.js';

const CONTEXT: AnswerContext = {
  model: 'gpt-r',
  serial: 5,
  created: 1_700_000_000,
  inputTokens: 10,
  includeUsage: false,
};

type Event = { readonly type: string; readonly sequence_number: number } & Record<string, unknown>;

/** The events of an SSE text; the `event:` line must match the data's type. */
function events(text: string): Event[] {
  return text
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => {
      const [eventLine = '', dataLine = ''] = frame.split('\n');
      const data = JSON.parse(dataLine.replace(/^data: /, '')) as Event;
      expect(eventLine).toBe(`event: ${data.type}`);
      return data;
    });
}

describe('responses dialect', () => {
  it('serves /v1/responses with OpenAI error bodies and 500 for an error step', () => {
    expect([responses.name, responses.path, responses.toolCallId(5, 2)]).toEqual([
      'responses',
      '/v1/responses',
      'call_fake5_2',
    ]);
    expect(JSON.parse(responses.errorBody(429, undefined))).toEqual({ error: openAiError(429, undefined) });
    expect(responses.errorStepStatus({})).toBe(500);
    expect([responses.wantsStream({ stream: true }), responses.wantsStream({ stream: false })]).toEqual([true, false]);
  });
});

describe('the stream encoder', () => {
  it('numbers every event from 0 and opens with response.created and response.in_progress once', () => {
    const encoder = responses.encoder(CONTEXT);
    const opened = events(encoder.open());
    expect(opened.map((event) => [event.type, event.sequence_number])).toEqual([
      ['response.created', 0],
      ['response.in_progress', 1],
    ]);
    expect(opened[0]?.response).toEqual({
      id: 'resp_fake5',
      object: 'response',
      created_at: 1_700_000_000,
      model: 'gpt-r',
      status: 'in_progress',
      output: [],
      error: null,
      incomplete_details: null,
      usage: null,
    });
    expect(encoder.open()).toBe('');
    expect(events(encoder.text('x'))[0]?.sequence_number).toBe(2);
  });

  it('opens a message item at the first text delta and keeps later deltas in it', () => {
    const encoder = responses.encoder(CONTEXT);
    encoder.open();
    const written = events(encoder.text('He') + encoder.text('y'));
    expect(written.map((event) => event.type)).toEqual([
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
    ]);
    expect(written[0]?.item).toEqual({
      id: 'msg_fake5_0',
      type: 'message',
      status: 'in_progress',
      role: 'assistant',
      content: [],
    });
    expect(written[3]).toMatchObject({ item_id: 'msg_fake5_0', output_index: 0, content_index: 0, delta: 'y' });
  });

  it('closes the reasoning item with its whole summary when a tool call opens', () => {
    const encoder = responses.encoder(CONTEXT);
    encoder.reasoning('thin');
    encoder.reasoning('k');
    const written = events(encoder.toolCallStart('call_1', 'search'));
    expect(written.map((event) => event.type)).toEqual([
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
    ]);
    expect(written[0]).toMatchObject({ item_id: 'rs_fake5_0', text: 'think' });
    expect(written[2]?.item).toEqual({
      id: 'rs_fake5_0',
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'think' }],
      encrypted_content: null,
    });
    expect(written[3]).toMatchObject({
      output_index: 1,
      item: {
        id: 'fc_fake5_1',
        type: 'function_call',
        status: 'in_progress',
        call_id: 'call_1',
        name: 'search',
        arguments: '',
      },
    });
  });

  it('accumulates tool arguments and closes the call with them at toolCallEnd', () => {
    const encoder = responses.encoder(CONTEXT);
    encoder.toolCallStart('call_1', 'search');
    const written = events(encoder.toolCallDelta('{"q"') + encoder.toolCallDelta(':1}') + encoder.toolCallEnd());
    expect(written.map((event) => event.type)).toEqual([
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
    ]);
    expect(written[2]).toMatchObject({ item_id: 'fc_fake5_0', arguments: '{"q":1}' });
    expect(written[3]?.item).toMatchObject({ status: 'completed', arguments: '{"q":1}' });
  });

  it('writes no argument delta without an open call, and drops an abandoned call from the output', () => {
    const encoder = responses.encoder(CONTEXT);
    expect(encoder.toolCallDelta('x')).toBe('');
    encoder.toolCallStart('call_1', 'search');
    encoder.abandon();
    const [completed] = events(encoder.finish('tool_calls'));
    expect(completed).toMatchObject({ type: 'response.completed', response: { status: 'completed', output: [] } });
  });

  it('finishes with response.completed carrying the done items and the usage', () => {
    const encoder = responses.encoder(CONTEXT);
    encoder.text('a');
    encoder.text('b');
    const written = events(encoder.finish('stop'));
    expect(written.map((event) => event.type)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(written[3]?.response).toMatchObject({
      status: 'completed',
      incomplete_details: null,
      output: [
        {
          id: 'msg_fake5_0',
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'ab', annotations: [], logprobs: [] }],
        },
      ],
      usage: {
        input_tokens: 10,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 2,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 12,
      },
    });
  });

  it.each<[FinishReason, string]>([
    ['length', 'max_output_tokens'],
    ['content_filter', 'content_filter'],
  ])('finishes a %s stop as response.incomplete for %s', (reason, why) => {
    const written = events(responses.encoder(CONTEXT).finish(reason));
    expect(written.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.incomplete',
    ]);
    expect(written[2]?.response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: why },
    });
  });

  it('writes an error event after the opening events, with the OpenAI 500 code and message', () => {
    const written = events(responses.encoder(CONTEXT).error({ type: 'server_error', message: 'Boom' }));
    expect(written[2]).toEqual({
      type: 'error',
      sequence_number: 2,
      code: 'server_error',
      message: 'Boom',
      param: null,
    });
  });
});

describe('the non-streaming answer', () => {
  it('writes one output item per part, indexed by position', () => {
    const parts = [
      { type: 'reasoning', text: 'r' },
      { type: 'text', text: 't' },
      { type: 'tool-call', id: 'call_9', name: 'n', arguments: '{}' },
    ] as const;
    expect(responses.json(parts, 'tool_calls', CONTEXT, 3)).toMatchObject({
      id: 'resp_fake5',
      status: 'completed',
      incomplete_details: null,
      output: [
        {
          id: 'rs_fake5_0',
          type: 'reasoning',
          summary: [{ type: 'summary_text', text: 'r' }],
          encrypted_content: null,
        },
        {
          id: 'msg_fake5_1',
          type: 'message',
          status: 'completed',
          content: [{ type: 'output_text', text: 't', annotations: [], logprobs: [] }],
        },
        { id: 'fc_fake5_2', type: 'function_call', status: 'completed', call_id: 'call_9', name: 'n', arguments: '{}' },
      ],
      usage: { output_tokens: 3, total_tokens: 13 },
    });
  });

  it('is incomplete when it stopped for length', () => {
    expect(responses.json([], 'length', CONTEXT, 0)).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    });
  });
});

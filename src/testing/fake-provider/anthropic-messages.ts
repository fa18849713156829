/**
 * Anthropic Messages (`POST /v1/messages`), as read by `@ai-sdk/anthropic`:
 * `event:` + `data:` frames (`message_start`, `content_block_start` /
 * `content_block_delta` / `content_block_stop` per text, thinking or tool_use
 * block, `message_delta` with the stop reason and usage, `message_stop`), and
 * `event: error` for a provider error.
 */
import type { AnswerContext, ContentPart, Dialect, StreamEncoder } from './dialect.js';
import { resolveError, sse } from './dialect.js';
import type { FinishReason, ProviderError } from './script.js';

function anthropicDefaults(status: number, type: string | undefined): { type: string; message: string } {
  if (type === 'insufficient_quota') {
    return {
      type: 'invalid_request_error',
      message:
        'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
    };
  }
  const byStatus: Readonly<Record<number, { type: string; message: string }>> = {
    401: { type: 'authentication_error', message: 'invalid x-api-key' },
    403: { type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' },
    404: { type: 'not_found_error', message: 'The requested resource could not be found.' },
    413: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' },
    429: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit.' },
    503: { type: 'overloaded_error', message: 'Overloaded' },
    529: { type: 'overloaded_error', message: 'Overloaded' },
  };
  return (
    byStatus[status] ??
    (status >= 500
      ? { type: 'api_error', message: 'Internal server error' }
      : { type: 'invalid_request_error', message: `Request failed with status ${status}.` })
  );
}

function errorObject(
  status: number,
  error: ProviderError | undefined,
): { readonly type: 'error'; readonly error: { type: string; message: string } } {
  const { type, message } = resolveError(anthropicDefaults, status, error);
  return { type: 'error', error: { type, message } };
}

const STOP: Readonly<Record<FinishReason, string>> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  tool_use: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
};

/** A placeholder: clients pass it back unread, and only Anthropic can check it. */
const SIGNATURE = 'ZmFrZS1wcm92aWRlci1zaWduYXR1cmU=';

type BlockType = 'text' | 'thinking' | 'tool_use';

class MessagesEncoder implements StreamEncoder {
  readonly #context: AnswerContext;
  #started = false;
  #blocks = 0;
  #open: { readonly type: BlockType; readonly index: number } | undefined;
  #outputTokens = 0;

  constructor(context: AnswerContext) {
    this.#context = context;
  }

  open(): string {
    return this.#start();
  }

  #start(): string {
    if (this.#started) return '';
    this.#started = true;
    const { serial, model, inputTokens } = this.#context;
    const message = {
      id: `msg_fake${serial}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: inputTokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 1,
      },
    };
    return sse({ type: 'message_start', message }, 'message_start');
  }

  #close(): string {
    const block = this.#open;
    if (block === undefined) return '';
    this.#open = undefined;
    // A thinking block ends with its signature, which the client must send back next turn.
    const signature =
      block.type === 'thinking'
        ? sse(
            {
              type: 'content_block_delta',
              index: block.index,
              delta: { type: 'signature_delta', signature: SIGNATURE },
            },
            'content_block_delta',
          )
        : '';
    return signature + sse({ type: 'content_block_stop', index: block.index }, 'content_block_stop');
  }

  #openBlock(type: BlockType, contentBlock: Record<string, unknown>): string {
    const frames = this.#start() + this.#close();
    const index = this.#blocks;
    this.#blocks += 1;
    this.#open = { type, index };
    return frames + sse({ type: 'content_block_start', index, content_block: contentBlock }, 'content_block_start');
  }

  #delta(type: BlockType, delta: Record<string, unknown>, emptyBlock: Record<string, unknown>): string {
    const frames = this.#open?.type === type ? '' : this.#openBlock(type, emptyBlock);
    this.#outputTokens += 1;
    const index = this.#open?.index ?? 0;
    return frames + sse({ type: 'content_block_delta', index, delta }, 'content_block_delta');
  }

  text(delta: string): string {
    return this.#delta('text', { type: 'text_delta', text: delta }, { type: 'text', text: '' });
  }

  reasoning(delta: string): string {
    return this.#delta(
      'thinking',
      { type: 'thinking_delta', thinking: delta },
      { type: 'thinking', thinking: '', signature: '' },
    );
  }

  toolCallStart(id: string, name: string): string {
    return this.#openBlock('tool_use', { type: 'tool_use', id, name, input: {} });
  }

  toolCallDelta(delta: string): string {
    if (this.#open?.type !== 'tool_use') return '';
    this.#outputTokens += 1;
    return sse(
      {
        type: 'content_block_delta',
        index: this.#open.index,
        delta: { type: 'input_json_delta', partial_json: delta },
      },
      'content_block_delta',
    );
  }

  toolCallEnd(): string {
    return this.#close();
  }

  abandon(): void {
    this.#open = undefined;
  }

  error(error: ProviderError): string {
    // No message_start first: an error as the first event is what makes the
    // SDK fail the call itself (a retryable 529 for overloaded_error).
    return sse(errorObject(529, error), 'error');
  }

  finish(reason: FinishReason): string {
    const frames = this.#start() + this.#close();
    const delta = {
      type: 'message_delta',
      delta: { stop_reason: STOP[reason], stop_sequence: null },
      usage: { output_tokens: this.#outputTokens },
    };
    return frames + sse(delta, 'message_delta') + sse({ type: 'message_stop' }, 'message_stop');
  }
}

function contentBlock(part: ContentPart): Record<string, unknown> {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'reasoning':
      return { type: 'thinking', thinking: part.text, signature: SIGNATURE };
    case 'tool-call':
      return {
        type: 'tool_use',
        id: part.id,
        name: part.name,
        input: JSON.parse(part.arguments === '' ? '{}' : part.arguments) as unknown,
      };
  }
}

/** The Anthropic Messages dialect. */
export const anthropicMessages: Dialect = {
  name: 'messages',
  path: '/v1/messages',
  toolCallId: (serial, n) => `toolu_fake${serial}_${n}`,
  wantsStream: (body) => body.stream === true,
  errorBody: (status, error) => JSON.stringify(errorObject(status, error)),
  // Anthropic answers `overloaded_error` with 529; other errors here are server errors.
  errorStepStatus: (error) => (error.type === undefined || error.type === 'overloaded_error' ? 529 : 500),
  encoder: (context) => new MessagesEncoder(context),
  json(parts: readonly ContentPart[], reason: FinishReason, context: AnswerContext, outputTokens: number): unknown {
    return {
      id: `msg_fake${context.serial}`,
      type: 'message',
      role: 'assistant',
      model: context.model,
      content: parts.map(contentBlock),
      stop_reason: STOP[reason],
      stop_sequence: null,
      usage: {
        input_tokens: context.inputTokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: outputTokens,
      },
    };
  },
};

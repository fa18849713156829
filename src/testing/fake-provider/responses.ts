/**
 * OpenAI Responses (`POST /v1/responses`), as read by `@ai-sdk/openai`'s default
 * `openai(model)`: typed events with a `sequence_number` (`response.created`,
 * `response.output_item.added`/`.done`, `response.output_text.delta`,
 * `response.reasoning_summary_text.delta`, `response.function_call_arguments.delta`,
 * `response.completed` with usage, or `error`). Every item of the answer is
 * an output item; a message, reasoning or function call closes when the next
 * item opens or the answer finishes.
 */
import { openAiError } from './chat-completions.js';
import type { AnswerContext, ContentPart, Dialect, StreamEncoder } from './dialect.js';
import { sse } from './dialect.js';
import type { FinishReason, ProviderError } from './script.js';

type Item =
  | { readonly type: 'message'; readonly id: string; readonly index: number; text: string }
  | { readonly type: 'reasoning'; readonly id: string; readonly index: number; text: string }
  | {
      readonly type: 'function_call';
      readonly id: string;
      readonly index: number;
      readonly callId: string;
      readonly name: string;
      arguments: string;
    };

function itemId(type: Item['type'], serial: number, index: number): string {
  return `${{ message: 'msg', reasoning: 'rs', function_call: 'fc' }[type]}_fake${serial}_${index}`;
}

/** The item as the API shows it, at `added` (in progress) or `done`. */
function itemBody(item: Item, done: boolean): Record<string, unknown> {
  switch (item.type) {
    case 'message':
      return {
        id: item.id,
        type: 'message',
        status: done ? 'completed' : 'in_progress',
        role: 'assistant',
        content: done ? [{ type: 'output_text', text: item.text, annotations: [], logprobs: [] }] : [],
      };
    case 'reasoning':
      return {
        id: item.id,
        type: 'reasoning',
        summary: done ? [{ type: 'summary_text', text: item.text }] : [],
        encrypted_content: null,
      };
    case 'function_call':
      return {
        id: item.id,
        type: 'function_call',
        status: done ? 'completed' : 'in_progress',
        call_id: item.callId,
        name: item.name,
        arguments: done ? item.arguments : '',
      };
  }
}

function usage(context: AnswerContext, outputTokens: number): Record<string, unknown> {
  return {
    input_tokens: context.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: context.inputTokens + outputTokens,
  };
}

function response(
  context: AnswerContext,
  status: string,
  output: readonly unknown[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: `resp_fake${context.serial}`,
    object: 'response',
    created_at: context.created,
    model: context.model,
    status,
    output,
    error: null,
    incomplete_details: null,
    usage: null,
    ...extra,
  };
}

/**
 * `length` and `content_filter` are an incomplete response; every other reason
 * completes it (tool calls are read from the output).
 */
function ending(reason: FinishReason): { readonly status: string; readonly incompleteDetails: unknown } {
  if (reason === 'length') return { status: 'incomplete', incompleteDetails: { reason: 'max_output_tokens' } };
  if (reason === 'content_filter') return { status: 'incomplete', incompleteDetails: { reason: 'content_filter' } };
  return { status: 'completed', incompleteDetails: null };
}

class ResponsesEncoder implements StreamEncoder {
  readonly #context: AnswerContext;
  readonly #done: Record<string, unknown>[] = [];
  #sequence = 0;
  #started = false;
  #items = 0;
  #open: Item | undefined;
  #outputTokens = 0;

  constructor(context: AnswerContext) {
    this.#context = context;
  }

  #event(type: string, fields: Record<string, unknown>): string {
    const frame = sse({ type, sequence_number: this.#sequence, ...fields }, type);
    this.#sequence += 1;
    return frame;
  }

  open(): string {
    return this.#start();
  }

  #start(): string {
    if (this.#started) return '';
    this.#started = true;
    const created = response(this.#context, 'in_progress', []);
    return (
      this.#event('response.created', { response: created }) +
      this.#event('response.in_progress', { response: created })
    );
  }

  #close(): string {
    const item = this.#open;
    if (item === undefined) return '';
    this.#open = undefined;
    const at = { item_id: item.id, output_index: item.index };
    let frames = '';
    if (item.type === 'message') {
      frames += this.#event('response.output_text.done', { ...at, content_index: 0, text: item.text, logprobs: [] });
      frames += this.#event('response.content_part.done', {
        ...at,
        content_index: 0,
        part: { type: 'output_text', text: item.text, annotations: [] },
      });
    } else if (item.type === 'reasoning') {
      frames += this.#event('response.reasoning_summary_text.done', { ...at, summary_index: 0, text: item.text });
      frames += this.#event('response.reasoning_summary_part.done', {
        ...at,
        summary_index: 0,
        part: { type: 'summary_text', text: item.text },
      });
    } else {
      frames += this.#event('response.function_call_arguments.done', { ...at, arguments: item.arguments });
    }
    const body = itemBody(item, true);
    this.#done.push(body);
    return frames + this.#event('response.output_item.done', { output_index: item.index, item: body });
  }

  /** The id and output index of the next item of this type. */
  #next(type: Item['type']): { readonly id: string; readonly index: number } {
    const index = this.#items;
    this.#items += 1;
    return { id: itemId(type, this.#context.serial, index), index };
  }

  /** Closes the open item and opens `item`, with its `added` events. */
  #openItem(item: Item): string {
    let frames = this.#start() + this.#close();
    const index = item.index;
    this.#open = item;
    frames += this.#event('response.output_item.added', { output_index: index, item: itemBody(item, false) });
    const at = { item_id: item.id, output_index: index };
    if (item.type === 'message') {
      frames += this.#event('response.content_part.added', {
        ...at,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      });
    } else if (item.type === 'reasoning') {
      frames += this.#event('response.reasoning_summary_part.added', {
        ...at,
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      });
    }
    return frames;
  }

  text(delta: string): string {
    const frames =
      this.#open?.type === 'message' ? '' : this.#openItem({ type: 'message', ...this.#next('message'), text: '' });
    const item = this.#open as Item & { type: 'message' };
    item.text += delta;
    this.#outputTokens += 1;
    return (
      frames +
      this.#event('response.output_text.delta', {
        item_id: item.id,
        output_index: item.index,
        content_index: 0,
        delta,
        logprobs: [],
      })
    );
  }

  reasoning(delta: string): string {
    const frames =
      this.#open?.type === 'reasoning'
        ? ''
        : this.#openItem({ type: 'reasoning', ...this.#next('reasoning'), text: '' });
    const item = this.#open as Item & { type: 'reasoning' };
    item.text += delta;
    this.#outputTokens += 1;
    return (
      frames +
      this.#event('response.reasoning_summary_text.delta', {
        item_id: item.id,
        output_index: item.index,
        summary_index: 0,
        delta,
      })
    );
  }

  toolCallStart(callId: string, name: string): string {
    return this.#openItem({ type: 'function_call', ...this.#next('function_call'), callId, name, arguments: '' });
  }

  toolCallDelta(delta: string): string {
    const item = this.#open;
    if (item?.type !== 'function_call') return '';
    item.arguments += delta;
    this.#outputTokens += 1;
    return this.#event('response.function_call_arguments.delta', { item_id: item.id, output_index: item.index, delta });
  }

  toolCallEnd(): string {
    return this.#close();
  }

  abandon(): void {
    this.#open = undefined;
  }

  error(error: ProviderError): string {
    const { message, code } = openAiError(500, error);
    return this.#start() + this.#event('error', { code, message, param: null });
  }

  finish(reason: FinishReason): string {
    const frames = this.#start() + this.#close();
    const { status, incompleteDetails } = ending(reason);
    const final = response(this.#context, status, this.#done, {
      incomplete_details: incompleteDetails,
      usage: usage(this.#context, this.#outputTokens),
    });
    return (
      frames + this.#event(status === 'completed' ? 'response.completed' : 'response.incomplete', { response: final })
    );
  }
}

/** The output items of a non-streaming answer. */
function outputItems(parts: readonly ContentPart[], serial: number): Record<string, unknown>[] {
  return parts.map((part, index) => {
    if (part.type === 'tool-call') {
      const id = itemId('function_call', serial, index);
      return itemBody(
        { type: 'function_call', id, index, callId: part.id, name: part.name, arguments: part.arguments },
        true,
      );
    }
    const type = part.type === 'text' ? 'message' : 'reasoning';
    return itemBody({ type, id: itemId(type, serial, index), index, text: part.text }, true);
  });
}

/** The Responses dialect. */
export const responses: Dialect = {
  name: 'responses',
  path: '/v1/responses',
  toolCallId: (serial, n) => `call_fake${serial}_${n}`,
  wantsStream: (body) => body.stream === true,
  errorBody: (status, error) => JSON.stringify({ error: openAiError(status, error) }),
  errorStepStatus: () => 500,
  encoder: (context) => new ResponsesEncoder(context),
  json(parts: readonly ContentPart[], reason: FinishReason, context: AnswerContext, outputTokens: number): unknown {
    const { status, incompleteDetails } = ending(reason);
    return response(context, status, outputItems(parts, context.serial), {
      incomplete_details: incompleteDetails,
      usage: usage(context, outputTokens),
    });
  },
};

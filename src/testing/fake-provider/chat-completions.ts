/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`), as read by
 * `@ai-sdk/openai`'s `openai.chat(model)` and the `openai` SDK: `data:` lines of
 * `chat.completion.chunk`, a usage chunk when `stream_options.include_usage` is
 * set, then `data: [DONE]`. The format has no reasoning field its parsers read,
 * so reasoning steps write nothing, and no tool-call done event: a call ends
 * when the stream finishes (so a partial call followed by `finish` looks
 * complete to a parser).
 */
import type { AnswerContext, ContentPart, Dialect, StreamEncoder } from './dialect.js';
import { resolveError, sse } from './dialect.js';
import type { FinishReason, ProviderError } from './script.js';

function openAiDefaults(status: number, type: string | undefined): { type: string; message: string } {
  if (type === 'insufficient_quota') {
    return { type, message: 'You exceeded your current quota, please check your plan and billing details.' };
  }
  if (status === 429) return { type: 'rate_limit_exceeded', message: 'Rate limit reached for requests.' };
  if (status === 503) return { type: 'server_error', message: 'The server is overloaded or not ready yet.' };
  if (status >= 500) return { type: 'server_error', message: 'The server had an error while processing your request.' };
  return { type: 'invalid_request_error', message: `Request failed with status ${status}.` };
}

/** The OpenAI error object, shared with the Responses dialect. */
export function openAiError(
  status: number,
  error: ProviderError | undefined,
): { readonly message: string; readonly type: string; readonly param: null; readonly code: string } {
  const fields = resolveError(openAiDefaults, status, error);
  return { message: fields.message, type: fields.type, param: null, code: fields.code };
}

const FINISH: Readonly<Record<FinishReason, string>> = {
  stop: 'stop',
  tool_calls: 'tool_calls',
  tool_use: 'tool_calls',
  length: 'length',
  content_filter: 'content_filter',
};

function usage(context: AnswerContext, outputTokens: number): Record<string, number> {
  return {
    prompt_tokens: context.inputTokens,
    completion_tokens: outputTokens,
    total_tokens: context.inputTokens + outputTokens,
  };
}

class ChatEncoder implements StreamEncoder {
  readonly #context: AnswerContext;
  #roleSent = false;
  #toolIndex = -1;
  #outputTokens = 0;

  constructor(context: AnswerContext) {
    this.#context = context;
  }

  #chunk(choices: readonly unknown[], extra: Record<string, unknown> = {}): string {
    const { serial, created, model } = this.#context;
    return sse({
      id: `chatcmpl-fake${serial}`,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: null,
      choices,
      ...extra,
    });
  }

  open(): string {
    // A role-only first chunk, with no content: the stream started, no output did.
    return this.#roleSent ? '' : this.#delta({});
  }

  #delta(fields: Record<string, unknown>): string {
    // The role rides on the first delta, as the real API sends it.
    const delta = this.#roleSent ? fields : { role: 'assistant', ...fields };
    this.#roleSent = true;
    return this.#chunk([{ index: 0, delta, logprobs: null, finish_reason: null }]);
  }

  text(delta: string): string {
    this.#outputTokens += 1;
    return this.#delta({ content: delta });
  }

  reasoning(): string {
    return '';
  }

  toolCallStart(id: string, name: string): string {
    this.#toolIndex += 1;
    return this.#delta({
      tool_calls: [{ index: this.#toolIndex, id, type: 'function', function: { name, arguments: '' } }],
    });
  }

  toolCallDelta(delta: string): string {
    this.#outputTokens += 1;
    return this.#delta({ tool_calls: [{ index: this.#toolIndex, function: { arguments: delta } }] });
  }

  toolCallEnd(): string {
    return '';
  }

  abandon(): void {}

  error(error: ProviderError): string {
    return sse({ error: openAiError(500, error) });
  }

  finish(reason: FinishReason): string {
    const last = this.#chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: FINISH[reason] }]);
    const usageChunk = this.#context.includeUsage
      ? this.#chunk([], { usage: usage(this.#context, this.#outputTokens) })
      : '';
    return `${last}${usageChunk}data: [DONE]\n\n`;
  }
}

/** The Chat Completions dialect. */
export const chatCompletions: Dialect = {
  name: 'chat-completions',
  path: '/v1/chat/completions',
  toolCallId: (serial, n) => `call_fake${serial}_${n}`,
  wantsStream: (body) => body.stream === true,
  errorBody: (status, error) => JSON.stringify({ error: openAiError(status, error) }),
  errorStepStatus: () => 500,
  encoder: (context) => new ChatEncoder(context),
  json(parts: readonly ContentPart[], reason: FinishReason, context: AnswerContext, outputTokens: number): unknown {
    const text = parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    const toolCalls = parts.flatMap((part) =>
      part.type === 'tool-call'
        ? [{ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } }]
        : [],
    );
    const message = {
      role: 'assistant',
      content: text === '' && toolCalls.length > 0 ? null : text,
      refusal: null,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    };
    return {
      id: `chatcmpl-fake${context.serial}`,
      object: 'chat.completion',
      created: context.created,
      model: context.model,
      system_fingerprint: null,
      choices: [{ index: 0, message, logprobs: null, finish_reason: FINISH[reason] }],
      usage: usage(context, outputTokens),
    };
  },
};

/**
 * What the fake provider answers to one request: an HTTP error, or a script of
 * steps that each dialect renders in its own wire format. A script is played in
 * order and flushed step by step, so a client sees every step before the next
 * one happens (text before a later `destroy`, for example).
 */

/**
 * Why the model stopped. `tool_calls` and `tool_use` are the same reason in the
 * OpenAI and Anthropic spellings; each dialect writes its own. `content_filter`
 * is the provider's content policy cutting the answer short (Chat Completions
 * `content_filter`, Responses `incomplete` for `content_filter`, Anthropic
 * `refusal`), with the usage of what streamed, as the providers bill it.
 */
export type FinishReason = 'stop' | 'tool_calls' | 'tool_use' | 'length' | 'content_filter';

/**
 * A provider error, in words both dialects share. OpenAI writes
 * `{ message, type, code, param }`, Anthropic `{ type, message }` (no code).
 */
export interface ProviderError {
  /** @default per dialect and status, e.g. `server_error` (OpenAI) or `overloaded_error` (Anthropic) */
  readonly type?: string;
  /** OpenAI only. @default the type */
  readonly code?: string;
  /** @default per dialect and status, e.g. `Overloaded` */
  readonly message?: string;
}

/** One step of a scripted answer. */
export type Step =
  /** Text: a string is one delta, an array is one delta per element. */
  | { readonly type: 'text'; readonly text: string | readonly string[] }
  /**
   * Reasoning: Anthropic `thinking`, Responses reasoning summary. Chat Completions
   * has no reasoning field its parsers read, so it writes nothing there.
   */
  | { readonly type: 'reasoning'; readonly text: string | readonly string[] }
  /** A complete tool call: start, argument deltas (`arguments` in up to 3 pieces), done. */
  | { readonly type: 'tool-call'; readonly id?: string; readonly name: string; readonly arguments: string }
  /**
   * A tool call that never completes: start and argument deltas of `arguments`,
   * no done event, even if the script finishes afterwards.
   */
  | { readonly type: 'partial-tool-call'; readonly id?: string; readonly name: string; readonly arguments: string }
  /**
   * A provider error event (OpenAI `error`, Anthropic `overloaded_error`). Like the
   * real providers, the answer ends with it: later steps are ignored. A
   * non-streaming request gets it as an HTTP error instead (500, Anthropic 529).
   */
  | { readonly type: 'error'; readonly error?: ProviderError }
  /**
   * The provider's opening events with no content yet (a role-only chunk,
   * `response.created`, `message_start`): the stream started, no output did.
   * Followed by `stall`, a connect stall. Nothing in a non-streaming answer.
   */
  | { readonly type: 'open' }
  /** Wait before the next step. */
  | { readonly type: 'delay'; readonly ms: number }
  /** Stop writing and keep the socket open until the client aborts or the server closes. */
  | { readonly type: 'stall' }
  /** Destroy the socket abruptly (`socket.destroy()`): undici reports `TypeError: terminated`. */
  | { readonly type: 'destroy' }
  /**
   * End the answer cleanly without the provider's finish: the response body
   * ends as a healthy one does (no socket error), but no finish chunk
   * (`finish_reason`, `response.completed`, `message_delta` / `message_stop`)
   * or `[DONE]` was sent. A proxy or a provider that stops mid-answer looks
   * like this; AI SDK 7 reports finish reason `interrupted`. In a
   * non-streaming answer, the body is cut where the step stands (not JSON).
   */
  | { readonly type: 'end' }
  /** Finish normally with this reason; later steps are ignored. */
  | { readonly type: 'finish'; readonly reason: FinishReason };

/**
 * An HTTP error answer. The body is the dialect's error format unless `body` is
 * given, e.g. `{ status: 429, headers: { 'retry-after': '0' } }`.
 */
export interface StatusReply {
  readonly status: number;
  /** @default {} */
  readonly headers?: Readonly<Record<string, string>>;
  /** Fields of the dialect's error body. @default per dialect and status */
  readonly error?: ProviderError;
  /** A raw body written as is, replacing the dialect's error body. @default undefined */
  readonly body?: string;
}

/**
 * A scripted answer. Response headers are sent with the first byte of content,
 * so a script that starts with `stall` or `destroy` does so before the first
 * byte; one that starts with `delay` delays the first byte. A script that ends
 * without `finish`, `error`, `stall`, `destroy` or `end` finishes normally, with
 * `tool_calls` if it made a tool call and `stop` otherwise.
 */
export interface ScriptReply {
  readonly steps: readonly Step[];
  /** Extra response headers. @default {} */
  readonly headers?: Readonly<Record<string, string>>;
}

/** What one request is answered with. */
export type Reply = StatusReply | ScriptReply;

/** Builders of common replies, named for what the client sees. */
export const reply = {
  /** Answers with these steps. */
  script: (...steps: readonly Step[]): ScriptReply => ({ steps }),
  /** A text answer: a string is one delta, an array one delta per element. */
  text: (text: string | readonly string[]): ScriptReply => ({ steps: [{ type: 'text', text }] }),
  /** A single tool call whose arguments are `input` as JSON; finishes with `tool_calls`. */
  toolCall: (name: string, input: unknown, id?: string): ScriptReply => ({
    steps: [{ type: 'tool-call', name, arguments: JSON.stringify(input), ...(id === undefined ? {} : { id }) }],
  }),
  /** An HTTP error with the dialect's error body. @default headers {} */
  status: (status: number, headers: Readonly<Record<string, string>> = {}): StatusReply => ({ status, headers }),
  /**
   * A 400 saying the account is out of credit: OpenAI `insufficient_quota` (the
   * real API sends it as 429; pass `status` to match), Anthropic
   * `invalid_request_error` "Your credit balance is too low…".
   * @default status 400
   */
  insufficientQuota: (status = 400): StatusReply => ({ status, error: { type: 'insufficient_quota' } }),
  /** Accepts the request and never answers, until the client aborts or the server closes. */
  stall: (): ScriptReply => ({ steps: [{ type: 'stall' }] }),
  /** Destroys the socket before the first byte of the answer. */
  destroy: (): ScriptReply => ({ steps: [{ type: 'destroy' }] }),
} as const;

/** The answer used when no reply is queued. */
export const DEFAULT_REPLY: Reply = reply.text('Hello from the fake provider.');

/** Whether a reply is an HTTP error answer. */
export function isStatusReply(value: Reply): value is StatusReply {
  return 'status' in value;
}

/**
 * The contract between the request runner and a wire format: the runner plays a
 * script and a dialect turns each step into that provider's events, or the
 * whole answer into its JSON body.
 */
import type { FinishReason, ProviderError } from './script.js';

/** The wire formats the fake provider speaks. */
export type DialectName = 'chat-completions' | 'responses' | 'messages';

/** A finished piece of a non-streaming answer. */
export type ContentPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'reasoning'; readonly text: string }
  | { readonly type: 'tool-call'; readonly id: string; readonly name: string; readonly arguments: string };

/** Facts about one answer that every event of it repeats. */
export interface AnswerContext {
  /** The model the request named (echoed back, as providers do). */
  readonly model: string;
  /** Distinguishes this answer's ids from other answers'. */
  readonly serial: number;
  /** Epoch seconds. */
  readonly created: number;
  /** A rough input token count: the request body's length / 4. */
  readonly inputTokens: number;
  /** The request asked for a usage chunk (`stream_options.include_usage`). */
  readonly includeUsage: boolean;
}

/**
 * Writes one streamed answer event by event. Each method returns the SSE text
 * to write (possibly empty) and keeps the open block: a `text` after a
 * `reasoning` closes the reasoning block first, and so on.
 */
export interface StreamEncoder {
  /** The opening events before any content (empty when already sent). */
  open(): string;
  text(delta: string): string;
  reasoning(delta: string): string;
  toolCallStart(id: string, name: string): string;
  toolCallDelta(delta: string): string;
  toolCallEnd(): string;
  /** Forgets the open block without closing it: a tool call that never completes. */
  abandon(): void;
  error(error: ProviderError): string;
  /** Closes the open block and writes the final events. */
  finish(reason: FinishReason): string;
}

/** One wire format. */
export interface Dialect {
  readonly name: DialectName;
  /** The request path, e.g. `/v1/messages`. */
  readonly path: string;
  /** The n-th tool call id of an answer, in the provider's style. */
  toolCallId(serial: number, n: number): string;
  /** Whether the request body asks for a stream. */
  wantsStream(body: Readonly<Record<string, unknown>>): boolean;
  /** The JSON error body for an HTTP error. */
  errorBody(status: number, error: ProviderError | undefined): string;
  /** The HTTP status a non-streaming request gets for an `error` step. */
  errorStepStatus(error: ProviderError): number;
  encoder(context: AnswerContext): StreamEncoder;
  /** The non-streaming answer. */
  json(parts: readonly ContentPart[], reason: FinishReason, context: AnswerContext, outputTokens: number): unknown;
}

/** One server-sent event; `event` is the optional `event:` line. */
export function sse(data: unknown, event?: string): string {
  return `${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`;
}

/** Resolved error fields: every dialect writes a type and a message. */
export interface ErrorFields {
  readonly type: string;
  readonly code: string;
  readonly message: string;
}

/**
 * Fills the fields of `error` the caller left out from the dialect's defaults
 * for `status` (or for the `insufficient_quota` type, which each dialect words
 * its own way).
 */
export function resolveError(
  defaults: (status: number, type: string | undefined) => { readonly type: string; readonly message: string },
  status: number,
  error: ProviderError | undefined,
): ErrorFields {
  const fallback = defaults(status, error?.type);
  const type = error?.type === 'insufficient_quota' ? fallback.type : (error?.type ?? fallback.type);
  return { type, code: error?.code ?? error?.type ?? fallback.type, message: error?.message ?? fallback.message };
}

/**
 * The error a span shows, read from its `exception` events, `error.type`,
 * HTTP status and status message (codes quoted inside messages included), and
 * classified, with what the AI SDK's error names add. Shared by every
 * convention.
 */
import { classifyError } from '../derive/classify-error.js';
import type { ErrorDescription } from '../derive/classify-error.js';
import type { ErrorFact } from '../model/facts.js';
import { GEN_AI } from '../model/native-convention.js';
import type { EventView, SpanView } from './span-view.js';
import { numberAttr, stringAttr } from './span-view.js';
/** OTLP status code of a failed span. */
export const STATUS_ERROR = 2;

// Only real error codes: a bare `E[A-Z]+` would turn words such as ERROR or EMPTY into codes.
const CODE_IN_TEXT =
  /\b(UND_ERR_[A-Z_]+|ERR_[A-Z_]+|E(?:CONNRESET|CONNREFUSED|CONNABORTED|TIMEDOUT|PIPE|NOTFOUND|AI_AGAIN|HOSTUNREACH|NETUNREACH|ACCES|PERM|NOENT))\b/g;

/**
 * Names of exceptions that mean "stopped by a signal", not "failed": an abort,
 * or `AbortSignal.timeout()` firing (DOM, undici, AI SDK).
 */
const ABORT_NAMES = new Set(['AbortError', 'ResponseAborted', 'TimeoutError']);

/**
 * Reads the error of a span from its `exception` events, `error.type` and
 * status. `events`: the exception events to read (by default all; a span
 * that covers retries passes those of its last try).
 */
export function describeSpanError(view: SpanView, events: readonly EventView[] = view.events): ErrorDescription {
  const names: string[] = [];
  const messages: string[] = [];
  const codes: string[] = [];
  const errorType = stringAttr(view.attributes, GEN_AI.ERROR_TYPE);
  if (errorType) codes.push(errorType);
  for (const event of events) {
    if (event.name !== 'exception') continue;
    const type = stringAttr(event.attributes, 'exception.type');
    const message = stringAttr(event.attributes, 'exception.message');
    if (type) names.push(type);
    if (message) messages.push(message.slice(0, 4096));
  }
  if (view.statusMessage) messages.push(view.statusMessage.slice(0, 4096));
  // Codes quoted inside messages ("read ECONNRESET", "cause: UND_ERR_SOCKET") survive any language's wrapping.
  for (const text of messages) {
    for (const match of text.matchAll(CODE_IN_TEXT)) codes.push(match[1] as string);
  }
  const status = numberAttr(view.attributes, GEN_AI.HTTP_STATUS);
  return { names, messages, codes, httpStatus: status };
}

/** The error one `exception` event describes alone: its type, its message and the codes quoted in it. */
export function describeException(event: EventView): ErrorDescription {
  const type = stringAttr(event.attributes, 'exception.type');
  const message = stringAttr(event.attributes, 'exception.message')?.slice(0, 4096);
  const codes = message === undefined ? [] : [...message.matchAll(CODE_IN_TEXT)].map((m) => m[1] as string);
  return { names: type ? [type] : [], messages: message ? [message] : [], codes };
}

/**
 * An error read from a span or an exception event. The AI SDK names the
 * layer that failed: `AI_APICallError` is the provider's answer, an API error
 * even when the text does not say which.
 */
export function classifyDescribed(description: ErrorDescription): ErrorFact {
  const classified = classifyError(description);
  if (classified.kind !== 'unknown') return classified;
  const names = description.names ?? [];
  if (names.includes('AI_APICallError') || names.includes('AI_RetryError')) {
    return {
      kind: 'api',
      detail: 'unknown',
      code: classified.code,
      retryable: names.includes('AI_RetryError') ? false : undefined,
    };
  }
  return classified;
}

/** True when the span's recorded exception is an abort (the work was stopped, it did not fail). */
export function isAbortError(description: ErrorDescription): boolean {
  return (description.names ?? []).some((name) => ABORT_NAMES.has(name));
}

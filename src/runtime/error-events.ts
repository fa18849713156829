/**
 * Thrown errors as fact events: each error is described through its cause
 * chain and classified by the pure core (src/derive/classify-error.ts), and
 * comes out as the event that records it plus what the recorder writes on an
 * owned span it ends (`error.type`, the status message).
 */
import type { Attributes } from '@opentelemetry/api';
import {
  classifyError,
  classifyToolError,
  describeError,
  retryAfterMillis,
  toolErrorCode,
} from '../derive/classify-error.js';
import { NATIVE_ATTR as A, NATIVE_EVENT as E } from '../model/native-convention.js';
import type { FactEvent } from './fact-events.js';

/** An error that ended a span: its fact event and the span's `error.type` and status message. */
export interface SpanFailure {
  readonly event: FactEvent;
  /** The span's `error.type` (docs/attributes.md#span-status-and-errortype). */
  readonly errorType: string;
  /** The span's status message. */
  readonly message: string;
}

/** A provider attempt's failure; `retryAfterMillis` is the wait it asked for, when it asked. */
export interface ProviderFailure extends SpanFailure {
  readonly retryAfterMillis: number | undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * `provider_error`, classified from the error's cause chain (`TypeError:
 * terminated` → `UND_ERR_SOCKET`). The retry-after wait is `retryAfter` when
 * given, else read from the error against `now()` (only then is the clock read).
 */
export function providerFailureOf(error: unknown, retryAfter: number | undefined, now: () => number): ProviderFailure {
  const description = describeError(error);
  const classified = classifyError(description);
  const attributes: Attributes = { [A.ERROR_KIND]: classified.kind };
  if (classified.detail) attributes[A.ERROR_DETAIL] = classified.detail;
  if (classified.code) attributes[A.ERROR_CODE] = classified.code;
  if (classified.retryable !== undefined) attributes[A.ERROR_RETRYABLE] = classified.retryable;
  const wait = retryAfter ?? retryAfterMillis(description.retryAfter, now());
  if (wait !== undefined && Number.isFinite(wait) && wait >= 0) attributes[A.ERROR_RETRY_AFTER_MS] = wait;
  return {
    event: { name: E.PROVIDER_ERROR, attributes },
    retryAfterMillis: attributes[A.ERROR_RETRY_AFTER_MS] as number | undefined,
    errorType: classified.code ?? classified.detail ?? '_OTHER',
    message: messageOf(error),
  };
}

/** `tool_execution_failed`: the tool's error classified into a closed kind, with its code when it has a safe one. */
export function toolFailureOf(error: unknown): SpanFailure {
  const description = describeError(error);
  const code = toolErrorCode(description);
  const kind = classifyToolError(description);
  const attributes: Attributes = { [A.TOOL_FAILURE_KIND]: kind };
  if (code) attributes[A.ERROR_CODE] = code;
  return {
    event: { name: E.TOOL_EXECUTION_FAILED, attributes },
    errorType: code ?? String(kind),
    message: messageOf(error),
  };
}

/** `setup_failure`: building the provider request failed, with the error's code when it has one. */
export function setupFailureEvent(error: unknown): FactEvent {
  const code = classifyError(describeError(error)).code;
  return { name: E.SETUP_FAILURE, attributes: code ? { [A.ERROR_CODE]: code } : {} };
}

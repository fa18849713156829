// Over 300 lines: reading an error (its chain, headers and codes) and classifying it are one job, kept together.
/**
 * Reduces an error to closed values: provider error class, detail, a
 * low-cardinality code and technical retryability. Pure and total: any input,
 * including non-errors and cyclic cause chains, gives a result.
 */
import { usualRetryableByDetail } from '../model/cause-table.js';
import type { ApiErrorKind, ToolFailureKind, TransportDetail } from '../model/enums.js';
import type { ErrorFact } from '../model/facts.js';

/** The parts of an error that classification reads. Every field is optional. */
export interface ErrorDescription {
  /** `name` of the error and of each error in its `cause` chain, outermost first. */
  readonly names?: readonly string[];
  /** `message` of each error in the chain (read for known phrases only; never exported). */
  readonly messages?: readonly string[];
  /** `code` of each error in the chain (`UND_ERR_SOCKET`, `ECONNRESET`, `insufficient_quota`). */
  readonly codes?: readonly string[];
  /** HTTP status of the provider response, if any. */
  readonly httpStatus?: number;
  /** Provider error type from a response body or stream error chunk (`overloaded_error`). */
  readonly providerType?: string;
  /** The client library's own retryability hint (`APICallError.isRetryable`). */
  readonly isRetryable?: boolean;
  /**
   * The provider's `retry-after-ms` or `retry-after` response header, raw
   * (`APICallError.responseHeaders`, the `openai` SDK's `APIError.headers`).
   * {@link retryAfterMillis} reads it.
   */
  readonly retryAfter?: { readonly header: 'retry-after-ms' | 'retry-after'; readonly value: string };
}

/** A header read from a `Headers` instance or a plain record, case-insensitively. */
function headerOf(headers: unknown, name: string): string | undefined {
  if (headers === null || typeof headers !== 'object') return undefined;
  const get = field(headers, 'get');
  if (typeof get === 'function') {
    try {
      return str(get.call(headers, name));
    } catch {
      return undefined;
    }
  }
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() === name) return str(field(headers, key));
  }
  return undefined;
}

function retryAfterOf(error: unknown): ErrorDescription['retryAfter'] {
  for (const headers of [field(error, 'responseHeaders'), field(error, 'headers')]) {
    const millis = headerOf(headers, 'retry-after-ms');
    if (millis !== undefined) return { header: 'retry-after-ms', value: millis };
    const seconds = headerOf(headers, 'retry-after');
    if (seconds !== undefined) return { header: 'retry-after', value: seconds };
  }
  return undefined;
}

/**
 * The three HTTP-date forms (RFC 9110 §5.6.7): IMF-fixdate
 * `Sun, 06 Nov 1994 08:49:37 GMT`, RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT`
 * and asctime `Sun Nov  6 08:49:37 1994`. Checked before `Date.parse`, which
 * reads `-5` or `tomorrow 1` as dates.
 */
const HTTP_DATE =
  /^(?:[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT|[A-Z][a-z]+, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4})$/;

/**
 * Milliseconds to wait from a `retry-after` header: `retry-after-ms`, or
 * `retry-after` as seconds or an HTTP date measured from `nowMillis`.
 * Undefined for a value that is neither (never a guess).
 */
export function retryAfterMillis(retryAfter: ErrorDescription['retryAfter'], nowMillis: number): number | undefined {
  if (!retryAfter) return undefined;
  const text = retryAfter.value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) {
    const value = Number(text);
    return retryAfter.header === 'retry-after-ms' ? value : value * 1000;
  }
  if (retryAfter.header === 'retry-after-ms' || !HTTP_DATE.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isFinite(date) ? Math.max(0, date - nowMillis) : undefined;
}

const SAFE_CODE = /^[A-Za-z0-9_.:-]{1,64}$/;
const MAX_CHAIN = 8;

/** Returns `value` when it is a safe low-cardinality token, otherwise undefined. */
export function safeCode(value: unknown): string | undefined {
  return typeof value === 'string' && SAFE_CODE.test(value) ? value : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function field(value: unknown, key: string): unknown {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return undefined;
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    // A getter that throws is still "no value" for classification.
    return undefined;
  }
}

/**
 * Reads an {@link ErrorDescription} from any thrown value, following its
 * `cause` chain (at most 8 deep, cycles stopped) the way undici and the AI SDK
 * nest errors: `TypeError: terminated` → `SocketError` with `UND_ERR_SOCKET`.
 */
export function describeError(error: unknown): ErrorDescription {
  const names: string[] = [];
  const messages: string[] = [];
  const codes: string[] = [];
  let httpStatus: number | undefined;
  let providerType: string | undefined;
  let isRetryable: boolean | undefined;
  let retryAfter: ErrorDescription['retryAfter'];
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current !== undefined && current !== null && !seen.has(current) && seen.size < MAX_CHAIN) {
    seen.add(current);
    if (typeof current === 'string') {
      messages.push(current);
      break;
    }
    const name = str(field(current, 'name'));
    if (name) names.push(name);
    const message = str(field(current, 'message'));
    if (message) messages.push(message);
    const code = field(current, 'code');
    if (typeof code === 'string') codes.push(code);
    const status = field(current, 'statusCode') ?? field(current, 'status');
    if (httpStatus === undefined && typeof status === 'number' && Number.isInteger(status)) httpStatus = status;
    const retryable = field(current, 'isRetryable');
    if (isRetryable === undefined && typeof retryable === 'boolean') isRetryable = retryable;
    retryAfter ??= retryAfterOf(current);
    providerType ??= str(field(field(current, 'error'), 'type')) ?? str(field(current, 'type'));
    const data = field(current, 'data');
    providerType ??= str(field(field(data, 'error'), 'type')) ?? str(field(field(data, 'error'), 'code'));
    current = field(current, 'cause');
  }
  return { names, messages, codes, httpStatus, providerType, isRetryable, retryAfter };
}

const TRANSPORT_CODES: ReadonlyMap<string, TransportDetail> = new Map([
  ['UND_ERR_SOCKET', 'socket_closed'],
  ['UND_ERR_CLOSED', 'socket_closed'],
  ['ECONNRESET', 'connection_reset'],
  ['EPIPE', 'connection_reset'],
  ['ECONNABORTED', 'connection_reset'],
  ['ECONNREFUSED', 'unknown'],
  ['ETIMEDOUT', 'unknown'],
  ['EAI_AGAIN', 'unknown'],
  ['ENETUNREACH', 'unknown'],
  ['EHOSTUNREACH', 'unknown'],
  ['UND_ERR_CONNECT_TIMEOUT', 'unknown'],
  ['UND_ERR_HEADERS_TIMEOUT', 'unknown'],
  ['UND_ERR_BODY_TIMEOUT', 'unknown'],
  ['ERR_STREAM_PREMATURE_CLOSE', 'stream_terminated'],
]);

/** The usual retryability of each transport detail and API error kind (the cause table's `retryable`). */
const TRANSPORT_RETRYABLE = usualRetryableByDetail('provider_transport_disconnect');
const API_RETRYABLE = usualRetryableByDetail('provider_api_error');

/** A transport error with the usual retryability of its detail. */
function transport(detail: TransportDetail, code: string | undefined): ErrorFact {
  return { kind: 'transport', detail, code, retryable: TRANSPORT_RETRYABLE.get(detail) };
}

/** An API error kind with its usual retryability; `unknown` has none, so it reads as retryable only when told. */
function usual(kind: ApiErrorKind): { kind: ApiErrorKind; retryable: boolean } {
  return { kind, retryable: API_RETRYABLE.get(kind) ?? false };
}

const PROVIDER_TYPES: ReadonlyMap<string, ApiErrorKind> = new Map([
  ['overloaded_error', 'server_overload'],
  ['server_error', 'server_overload'],
  ['api_error', 'server_overload'],
  ['service_unavailable', 'server_overload'],
  ['rate_limit_error', 'rate_limit'],
  ['rate_limit_exceeded', 'rate_limit'],
  ['insufficient_quota', 'quota_exhausted'],
  ['billing_error', 'quota_exhausted'],
  ['authentication_error', 'auth'],
  ['permission_error', 'auth'],
  ['invalid_api_key', 'auth'],
  ['invalid_request_error', 'invalid_request'],
  ['not_found_error', 'invalid_request'],
  ['context_length_exceeded', 'context_overflow'],
  ['content_filter', 'content_filter'],
]);

function includesAny(texts: readonly string[], phrases: readonly string[]): boolean {
  return texts.some((t) => {
    const lower = t.slice(0, 2000).toLowerCase();
    return phrases.some((p) => lower.includes(p));
  });
}

function apiKindFromText(texts: readonly string[]): ApiErrorKind | undefined {
  if (includesAny(texts, ['insufficient_quota', 'exceeded your current quota', 'credit balance', 'billing'])) {
    return 'quota_exhausted';
  }
  if (
    includesAny(texts, ['context_length_exceeded', 'maximum context length', 'prompt is too long', 'too many tokens'])
  ) {
    return 'context_overflow';
  }
  if (includesAny(texts, ['content_filter', 'content policy', 'content_policy'])) return 'content_filter';
  if (includesAny(texts, ['overloaded'])) return 'server_overload';
  if (includesAny(texts, ['rate limit', 'rate_limit', 'too many requests'])) return 'rate_limit';
  return undefined;
}

function apiKindFromStatus(status: number): { kind: ApiErrorKind; retryable: boolean } | undefined {
  if (status === 401 || status === 403) return usual('auth');
  if (status === 402) return usual('quota_exhausted');
  if (status === 429) return usual('rate_limit');
  // A timeout or a conflict names no closed kind, yet a retry may well succeed.
  if (status === 408 || status === 409) return { kind: 'unknown', retryable: true };
  if (status === 413) return usual('context_overflow');
  if (status >= 400 && status < 500) return usual('invalid_request');
  if (status >= 500 && status < 600) return usual('server_overload');
  return undefined;
}

/** API error kinds no retry can fix, whatever the client's hint says (usually not retryable in the cause table). */
const NON_RETRYABLE_KINDS: ReadonlySet<string> = new Set(
  [...API_RETRYABLE].filter(([, retryable]) => !retryable).map(([kind]) => kind),
);

/**
 * Classifies a provider-attempt error. Transport codes found anywhere in the
 * cause chain win (a socket drop wrapped in a generic `TypeError` is still a
 * socket drop); then the HTTP status and provider error type; then known
 * phrases. Anything else is `unknown`, never guessed to be a disconnect.
 */
export function classifyError(description: ErrorDescription): ErrorFact {
  const codes = description.codes ?? [];
  const texts = [...(description.messages ?? []), ...(description.names ?? [])];
  for (const code of codes) {
    const detail = TRANSPORT_CODES.get(code);
    if (detail) return transport(detail, code);
    if (/CERT|TLS|SSL|UNABLE_TO_VERIFY|SELF_SIGNED/.test(code)) return transport('tls', safeCode(code));
  }
  const status = description.httpStatus;
  const statusCode = status !== undefined && status >= 100 && status < 600 ? `http_${status}` : undefined;
  const typeKey = description.providerType?.toLowerCase();
  const typeKind = typeKey ? PROVIDER_TYPES.get(typeKey) : undefined;
  const fromType = typeKind ? usual(typeKind) : undefined;
  const codeKind = codes.map((c) => PROVIDER_TYPES.get(c.toLowerCase())).find((k) => k !== undefined);
  const fromCodes = codeKind ? usual(codeKind) : undefined;
  const fromText = apiKindFromText([...texts, ...codes, description.providerType ?? '']);
  const fromStatus = status !== undefined ? apiKindFromStatus(status) : undefined;
  // A 429 or 400 that says "quota" is a quota problem, not a rate limit: text refines status.
  const refined =
    fromText && (fromText === 'quota_exhausted' || fromText === 'context_overflow' || fromText === 'content_filter')
      ? { kind: fromText, retryable: false }
      : undefined;
  const api =
    refined ??
    fromType ??
    fromCodes ??
    fromStatus ??
    (fromText ? { kind: fromText, retryable: !NON_RETRYABLE_KINDS.has(fromText) } : undefined);
  if (api) {
    const retryable = NON_RETRYABLE_KINDS.has(api.kind) ? false : (description.isRetryable ?? api.retryable);
    return {
      kind: 'api',
      detail: api.kind,
      code: statusCode ?? safeCode(description.providerType) ?? codes.map(safeCode).find(Boolean),
      retryable,
    };
  }
  if (statusCode) {
    return { kind: 'api', detail: 'unknown', code: statusCode, retryable: description.isRetryable };
  }
  if (includesAny(texts, ['other side closed', 'socket hang up', 'socket closed'])) {
    return transport('socket_closed', codes.map(safeCode).find(Boolean));
  }
  // undici reports a body cut mid-stream as `TypeError: terminated`.
  if ((description.messages ?? []).some((m) => m.trim().toLowerCase() === 'terminated')) {
    return transport('stream_terminated', codes.map(safeCode).find(Boolean));
  }
  return { kind: 'unknown', code: codes.map(safeCode).find(Boolean), retryable: description.isRetryable };
}

/** Classifies the error of a failed tool execution into a closed kind. */
export function classifyToolError(description: ErrorDescription): ToolFailureKind {
  const codes = description.codes ?? [];
  const texts = [...(description.messages ?? []), ...(description.names ?? [])];
  if (
    includesAny(texts, ['invalidtoolarguments', 'invalid arguments', 'invalid_arguments', 'zoderror', 'validation'])
  ) {
    return 'invalid_arguments';
  }
  if (
    codes.some((c) => c === 'EACCES' || c === 'EPERM') ||
    includesAny(texts, ['permission denied', 'not permitted', 'forbidden'])
  ) {
    return 'permission_denied';
  }
  if (codes.some((c) => c === 'ETIMEDOUT') || includesAny(texts, ['timed out', 'timeout'])) return 'timeout';
  if (
    codes.some((c) => c === 'ENOENT' || c === 'ENOTDIR' || c === 'EMFILE' || c === 'ENOSPC') ||
    includesAny(texts, ['command not found', 'no such file'])
  ) {
    return 'environment';
  }
  if (description.httpStatus !== undefined || includesAny(texts, ['apicallerror'])) return 'provider';
  return 'unknown';
}

/** Sanitized code of a tool error, if it has one. */
export function toolErrorCode(description: ErrorDescription): string | undefined {
  if (description.httpStatus !== undefined) return `http_${description.httpStatus}`;
  return (description.codes ?? []).map(safeCode).find(Boolean);
}

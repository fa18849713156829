/**
 * Which worker a span goes to: the hash of its trace id, so every span of a trace, in any request and either
 * encoding, reaches the same worker (the fold needs the whole trace). `splitBody` cuts a request body into one
 * request per worker: a protobuf body from byte slices (`otlp-protobuf-split.ts`, no span decoded), a JSON body
 * parsed and written again per worker. A span without a valid trace id goes to worker 0, which rejects it as the
 * in-process gateway does (counted once in `partialSuccess.rejectedSpans`).
 */
import { Buffer } from 'node:buffer';
import type { RequestPart } from '../otlp/otlp-protobuf-split.js';
import { splitExportTraceRequest } from '../otlp/otlp-protobuf-split.js';
import { ProtobufDecodeError } from '../otlp/otlp-protobuf.js';
import type { BodyEncoding } from './decode-body.js';

const UTF8 = new TextEncoder();
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const TRACE_ID_BYTES = 16;

/** The part (0 … parts − 1) of a trace id given as its 16 bytes; 0 for anything else. */
export function partOfTraceIdBytes(id: Uint8Array | undefined, parts: number): number {
  if (parts <= 1 || id === undefined || id.length !== TRACE_ID_BYTES) return 0;
  let hash = FNV_OFFSET;
  for (let i = 0; i < TRACE_ID_BYTES; i += 1) hash = Math.imul(hash ^ id[i]!, FNV_PRIME);
  return (hash >>> 0) % parts;
}

function hexDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return -1;
}

/** The part of a trace id given as OTLP/JSON hex (32 digits); the same part as its bytes get. 0 for anything else. */
export function partOfTraceIdHex(id: unknown, parts: number): number {
  if (parts <= 1 || typeof id !== 'string' || id.length !== 2 * TRACE_ID_BYTES) return 0;
  let hash = FNV_OFFSET;
  for (let i = 0; i < TRACE_ID_BYTES; i += 1) {
    const high = hexDigit(id.charCodeAt(2 * i));
    const low = hexDigit(id.charCodeAt(2 * i + 1));
    if (high < 0 || low < 0) return 0;
    hash = Math.imul(hash ^ ((high << 4) | low), FNV_PRIME);
  }
  return (hash >>> 0) % parts;
}

/** A body cut into one request per worker, or why it cannot be read (always a 400). */
export type SplitBody =
  | { readonly ok: true; readonly parts: readonly RequestPart[] }
  | { readonly ok: false; readonly status: 400; readonly message: string };

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Splits an OTLP/JSON request object by trace id; what is not a span under a scope goes to part 0. */
function splitJson(request: unknown, parts: number): { requests: (Json | undefined)[]; spans: number[] } {
  const requests: (Json | undefined)[] = new Array<Json | undefined>(parts).fill(undefined);
  const spans = new Array<number>(parts).fill(0);
  const resourceSpans = isObject(request) ? request.resourceSpans : undefined;
  // Not the shape of a request: worker 0 decodes it as it is (to nothing, or to its error).
  if (!Array.isArray(resourceSpans)) {
    requests[0] = isObject(request) ? request : {};
    return { requests, spans };
  }
  const resourcesOf = (part: number): unknown[] =>
    ((requests[part] ??= { resourceSpans: [] }).resourceSpans as unknown[]) ?? [];
  for (const resource of resourceSpans) {
    const scopes = isObject(resource) ? resource.scopeSpans : undefined;
    if (!isObject(resource) || !Array.isArray(scopes)) {
      resourcesOf(0).push(resource);
      continue;
    }
    const scopesByPart = new Map<number, unknown[]>();
    const scopesOf = (part: number): unknown[] => {
      let list = scopesByPart.get(part);
      if (!list) {
        scopesByPart.set(part, (list = []));
        resourcesOf(part).push({ ...resource, scopeSpans: list });
      }
      return list;
    };
    if (scopes.length === 0) scopesOf(0);
    for (const scope of scopes) {
      const list = isObject(scope) ? scope.spans : undefined;
      if (!isObject(scope) || !Array.isArray(list) || list.length === 0) {
        scopesOf(0).push(scope);
        continue;
      }
      const byPart = new Map<number, unknown[]>();
      for (const span of list) {
        const part = isObject(span) ? partOfTraceIdHex(span.traceId, parts) : 0;
        let into = byPart.get(part);
        if (!into) {
          byPart.set(part, (into = []));
          scopesOf(part).push({ ...scope, spans: into });
        }
        into.push(span);
        spans[part]! += 1;
      }
    }
  }
  return { requests, spans };
}

/** JSON writes -0 as 0: a `doubleValue` of -0 is written as text, which OTLP/JSON readers take as the number. */
function keepNegativeZero(key: string, value: unknown): unknown {
  return key === 'doubleValue' && Object.is(value, -0) ? '-0' : value;
}

/** Cuts `body` into `parts` requests by trace id. Never throws for bad input: a body that is not OTLP is a 400. */
export function splitBody(encoding: BodyEncoding, body: Uint8Array, parts: number): SplitBody {
  if (encoding === 'protobuf') {
    try {
      return { ok: true, parts: splitExportTraceRequest(body, parts, (id) => partOfTraceIdBytes(id, parts)) };
    } catch (error) {
      if (error instanceof ProtobufDecodeError)
        return { ok: false, status: 400, message: `malformed OTLP protobuf: ${error.message}` };
      throw error;
    }
  }
  try {
    const request = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')) as unknown;
    const { requests, spans } = splitJson(request, parts);
    return {
      ok: true,
      parts: requests.map((part, i) => ({
        // Its own buffer (a small Buffer.from would share Node's pool), so it can be transferred to a worker.
        body: part === undefined ? undefined : UTF8.encode(JSON.stringify(part, keepNegativeZero)),
        spans: spans[i] ?? 0,
      })),
    };
  } catch (error) {
    const what = error instanceof RangeError ? 'values nested too deeply' : 'body is not valid JSON';
    return { ok: false, status: 400, message: `malformed OTLP JSON: ${what}` };
  }
}

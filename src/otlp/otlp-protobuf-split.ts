/**
 * Splits an OTLP/protobuf `ExportTraceServiceRequest` into one request per part (a gateway's workers), each span
 * going to the part its trace id names, without decoding the spans: the walk reads only the message structure
 * (ResourceSpans, ScopeSpans, and each span's top-level fields to find its trace id), and every part is built
 * from byte slices of the input. A resource's and a scope's own fields (and unknown fields) are copied into each
 * part that gets a span under them; the spans are copied as they came; only the length prefixes of the enclosing
 * messages are written anew. Decoding a part (`decodeExportTraceRequest`) gives exactly the spans of the input that
 * went to it, with their resource and scope.
 *
 * Malformed structure fails as the decoder fails ({@link ProtobufDecodeError} naming the byte); what lies inside a
 * span (attributes, events) is left to the decoder of its part. A resource or scope with no span at all goes to
 * part 0, so a malformed one is still found there.
 */
import { LEN, Reader } from './protobuf-reader.js';
import { varintSize, writeVarint } from './varint.js';

/** Which part a span goes to, from its trace id's bytes (undefined when it has none). */
export type PartOfTraceId = (bytes: Uint8Array | undefined) => number;

/** One part of a split request: its bytes (undefined when no span went to it) and how many spans it holds. */
export interface RequestPart {
  readonly body: Uint8Array | undefined;
  readonly spans: number;
}

const RESOURCE_SPANS = (1 << 3) | LEN;
const SCOPE_SPANS = (2 << 3) | LEN;
const SPAN = (2 << 3) | LEN;
const TRACE_ID = (1 << 3) | LEN;

interface Scope {
  /** Byte ranges of the ScopeSpans' own fields (scope, schema URL, unknown fields). */
  readonly envelope: number[];
  /** Byte ranges of its span fields (tag and length included), by part. */
  readonly spans: number[][];
}

interface Resource {
  readonly envelope: number[];
  readonly scopes: Scope[];
}

/** The trace id of the span in `[start, end)` (the last one, as the decoder keeps it), or undefined. */
function traceIdOf(r: Reader, start: number, end: number): Uint8Array | undefined {
  let id: Uint8Array | undefined;
  r.pos = start;
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    if (tag === TRACE_ID) {
      const stop = r.limit(end);
      id = r.bytes.subarray(r.pos, stop);
      r.pos = stop;
    } else r.skip(tag, end, at);
  }
  return id;
}

function readScope(r: Reader, end: number, parts: number, partOf: PartOfTraceId, counts: number[]): Scope {
  const scope: Scope = { envelope: [], spans: Array.from({ length: parts }, () => []) };
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    if (tag === SPAN) {
      const stop = r.limit(end);
      const part = partOf(traceIdOf(r, r.pos, stop));
      scope.spans[part]!.push(at, stop);
      counts[part]! += 1;
      r.pos = stop;
    } else {
      r.skip(tag, end, at);
      scope.envelope.push(at, r.pos);
    }
  }
  return scope;
}

function readResource(r: Reader, end: number, parts: number, partOf: PartOfTraceId, counts: number[]): Resource {
  const resource: Resource = { envelope: [], scopes: [] };
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    if (tag === SCOPE_SPANS) {
      const stop = r.limit(end);
      resource.scopes.push(readScope(r, stop, parts, partOf, counts));
      r.pos = stop;
    } else {
      r.skip(tag, end, at);
      resource.envelope.push(at, r.pos);
    }
  }
  return resource;
}

/** Total length of byte ranges given as `[start, end, start, end, …]`. */
function rangesLength(ranges: readonly number[]): number {
  let length = 0;
  for (let i = 0; i < ranges.length; i += 2) length += ranges[i + 1]! - ranges[i]!;
  return length;
}

function copyRanges(out: Uint8Array, pos: number, bytes: Uint8Array, ranges: readonly number[]): number {
  for (let i = 0; i < ranges.length; i += 2) {
    out.set(bytes.subarray(ranges[i]!, ranges[i + 1]!), pos);
    pos += ranges[i + 1]! - ranges[i]!;
  }
  return pos;
}

/** Whether a scope goes to `part`: it has spans there, or it has none at all and `part` is 0. */
function scopeIn(scope: Scope, part: number): boolean {
  if (scope.spans[part]!.length > 0) return true;
  return part === 0 && scope.spans.every((spans) => spans.length === 0);
}

/** The content length of a ScopeSpans in `part`. */
function scopeLength(scope: Scope, part: number): number {
  return rangesLength(scope.envelope) + rangesLength(scope.spans[part]!);
}

/** The content length of a ResourceSpans in `part` (0 scopes: not in it, unless it has no scope at all and part is 0). */
function resourceLength(resource: Resource, part: number): number | undefined {
  let length = rangesLength(resource.envelope);
  let scopes = 0;
  for (const scope of resource.scopes) {
    if (!scopeIn(scope, part)) continue;
    const inner = scopeLength(scope, part);
    length += 1 + varintSize(inner) + inner;
    scopes += 1;
  }
  if (scopes === 0 && !(part === 0 && resource.scopes.every((scope) => !scope.spans.some((s) => s.length > 0))))
    return undefined;
  return length;
}

/**
 * Splits `bytes` into `parts` requests by `partOf` (a span without a trace id goes where `partOf(undefined)` says).
 * @throws {ProtobufDecodeError} when the request's structure is malformed
 */
export function splitExportTraceRequest(bytes: Uint8Array, parts: number, partOf: PartOfTraceId): RequestPart[] {
  const r = new Reader(bytes);
  const end = bytes.length;
  const counts = new Array<number>(parts).fill(0);
  const resources: Resource[] = [];
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    if (tag === RESOURCE_SPANS) {
      const stop = r.limit(end);
      resources.push(readResource(r, stop, parts, partOf, counts));
      r.pos = stop;
    } else r.skip(tag, end, at);
  }
  const result: RequestPart[] = [];
  for (let part = 0; part < parts; part += 1) {
    const lengths = resources.map((resource) => resourceLength(resource, part));
    let total = 0;
    for (const length of lengths) if (length !== undefined) total += 1 + varintSize(length) + length;
    if (total === 0 && counts[part] === 0 && part !== 0) {
      result.push({ body: undefined, spans: 0 });
      continue;
    }
    const out = new Uint8Array(total);
    let pos = 0;
    resources.forEach((resource, i) => {
      const length = lengths[i];
      if (length === undefined) return;
      out[pos++] = RESOURCE_SPANS;
      pos = writeVarint(out, pos, length);
      pos = copyRanges(out, pos, bytes, resource.envelope);
      for (const scope of resource.scopes) {
        if (!scopeIn(scope, part)) continue;
        out[pos++] = SCOPE_SPANS;
        pos = writeVarint(out, pos, scopeLength(scope, part));
        pos = copyRanges(out, pos, bytes, scope.envelope);
        pos = copyRanges(out, pos, bytes, scope.spans[part]!);
      }
    });
    result.push({ body: total === 0 && counts[part] === 0 ? undefined : out, spans: counts[part]! });
  }
  return result;
}

/**
 * OTLP/protobuf for traces, without generated code or a protobuf library.
 *
 * `decodeExportTraceRequest` turns an `ExportTraceServiceRequest` into the
 * OTLP/JSON object shape, so `decodeOtlpJsonSpans` reads both encodings and
 * there is one span model, not two. The wire-format reader (protobuf-reader.ts)
 * is written by hand for the few message types OTLP traces use: every read
 * is bounds-checked against the end of the enclosing message, nothing is
 * copied (strings and bytes are read from views of the input), unknown fields
 * of every wire type are skipped, and the only recursion without a schema
 * bound (AnyValue) is capped, so hostile input gets a
 * {@link ProtobufDecodeError}, never a RangeError, a TypeError or a blown
 * stack.
 *
 * This file holds the trace messages' walkers; AnyValue's is
 * protobuf-any-value.ts, the shape they produce otlp-trace-shape.ts, and the
 * response encoder otlp-protobuf-response.ts (re-exported here, the one
 * import path of OTLP/protobuf).
 */
import type {
  EventJson,
  ExportTraceRequestJson,
  LinkJson,
  ResourceJson,
  ResourceSpansJson,
  ScopeJson,
  ScopeSpansJson,
  SpanJson,
  StatusJson,
} from './otlp-trace-shape.js';
import { decodeKeyValue } from './protobuf-any-value.js';
import { I32, I64, LEN, ProtobufDecodeError, Reader, VARINT } from './protobuf-reader.js';

export { encodeExportTraceResponse } from './otlp-protobuf-response.js';
export { ProtobufDecodeError, ProtobufItemLimitError } from './protobuf-reader.js';
// ---------------------------------------------------------------------------
// Messages. Each decoder reads fields until `end`. A field with an unexpected
// wire type is treated as unknown and skipped, as the reference
// implementations do. A singular message field that occurs twice is merged
// into the first, as protobuf requires, hence the `into` parameters.

function decodeResource(r: Reader, end: number, into: ResourceJson): ResourceJson {
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    if (tag === ((1 << 3) | LEN)) into.attributes.push(decodeKeyValue(r, r.limit(end), 1));
    else if (tag === ((2 << 3) | VARINT)) into.droppedAttributesCount = r.uint32(end);
    else r.skip(tag, end, at);
  }
  return into;
}

function decodeScope(r: Reader, end: number, into: ScopeJson): ScopeJson {
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    switch (tag) {
      case (1 << 3) | LEN:
        into.name = r.string(end);
        break;
      case (2 << 3) | LEN:
        into.version = r.string(end);
        break;
      case (3 << 3) | LEN:
        into.attributes.push(decodeKeyValue(r, r.limit(end), 1));
        break;
      case (4 << 3) | VARINT:
        into.droppedAttributesCount = r.uint32(end);
        break;
      default:
        r.skip(tag, end, at);
    }
  }
  return into;
}

function decodeStatus(r: Reader, end: number, into: StatusJson): StatusJson {
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    // Field 1 is the reserved, deprecated code: skipped like any unknown field.
    if (tag === ((2 << 3) | LEN)) into.message = r.string(end);
    else if (tag === ((3 << 3) | VARINT)) into.code = r.int32(end);
    else r.skip(tag, end, at);
  }
  return into;
}

function decodeEvent(r: Reader, end: number): EventJson {
  r.count();
  const event: EventJson = { timeUnixNano: '0', name: '', attributes: [], droppedAttributesCount: 0 };
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    switch (tag) {
      case (1 << 3) | I64:
        event.timeUnixNano = r.fixed64(end);
        break;
      case (2 << 3) | LEN:
        event.name = r.string(end);
        break;
      case (3 << 3) | LEN:
        event.attributes.push(decodeKeyValue(r, r.limit(end), 1));
        break;
      case (4 << 3) | VARINT:
        event.droppedAttributesCount = r.uint32(end);
        break;
      default:
        r.skip(tag, end, at);
    }
  }
  return event;
}

function decodeLink(r: Reader, end: number): LinkJson {
  r.count();
  const link: LinkJson = {
    traceId: '',
    spanId: '',
    traceState: '',
    attributes: [],
    droppedAttributesCount: 0,
    flags: 0,
  };
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    switch (tag) {
      case (1 << 3) | LEN:
        link.traceId = r.hex(end);
        break;
      case (2 << 3) | LEN:
        link.spanId = r.hex(end);
        break;
      case (3 << 3) | LEN:
        link.traceState = r.string(end);
        break;
      case (4 << 3) | LEN:
        link.attributes.push(decodeKeyValue(r, r.limit(end), 1));
        break;
      case (5 << 3) | VARINT:
        link.droppedAttributesCount = r.uint32(end);
        break;
      case (6 << 3) | I32:
        link.flags = r.fixed32(end);
        break;
      default:
        r.skip(tag, end, at);
    }
  }
  return link;
}

function decodeSpan(r: Reader, end: number): SpanJson {
  r.count();
  const span: SpanJson = {
    traceId: '',
    spanId: '',
    traceState: '',
    parentSpanId: '',
    flags: 0,
    name: '',
    kind: 0,
    startTimeUnixNano: '0',
    endTimeUnixNano: '0',
    attributes: [],
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    links: [],
    droppedLinksCount: 0,
    status: { code: 0, message: '' },
  };
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    switch (tag) {
      case (1 << 3) | LEN:
        span.traceId = r.hex(end);
        break;
      case (2 << 3) | LEN:
        span.spanId = r.hex(end);
        break;
      case (3 << 3) | LEN:
        span.traceState = r.string(end);
        break;
      case (4 << 3) | LEN:
        span.parentSpanId = r.hex(end);
        break;
      case (5 << 3) | LEN:
        span.name = r.string(end);
        break;
      case (6 << 3) | VARINT:
        span.kind = r.int32(end);
        break;
      case (7 << 3) | I64:
        span.startTimeUnixNano = r.fixed64(end);
        break;
      case (8 << 3) | I64:
        span.endTimeUnixNano = r.fixed64(end);
        break;
      case (9 << 3) | LEN:
        span.attributes.push(decodeKeyValue(r, r.limit(end), 1));
        break;
      case (10 << 3) | VARINT:
        span.droppedAttributesCount = r.uint32(end);
        break;
      case (11 << 3) | LEN:
        span.events.push(decodeEvent(r, r.limit(end)));
        break;
      case (12 << 3) | VARINT:
        span.droppedEventsCount = r.uint32(end);
        break;
      case (13 << 3) | LEN:
        span.links.push(decodeLink(r, r.limit(end)));
        break;
      case (14 << 3) | VARINT:
        span.droppedLinksCount = r.uint32(end);
        break;
      case (15 << 3) | LEN:
        decodeStatus(r, r.limit(end), span.status);
        break;
      case (16 << 3) | I32:
        span.flags = r.fixed32(end);
        break;
      default:
        r.skip(tag, end, at);
    }
  }
  return span;
}

function decodeScopeSpans(r: Reader, end: number): ScopeSpansJson {
  const scopeSpans: ScopeSpansJson = {
    scope: { name: '', version: '', attributes: [], droppedAttributesCount: 0 },
    spans: [],
    schemaUrl: '',
  };
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    if (tag === ((1 << 3) | LEN)) decodeScope(r, r.limit(end), scopeSpans.scope);
    else if (tag === ((2 << 3) | LEN)) scopeSpans.spans.push(decodeSpan(r, r.limit(end)));
    else if (tag === ((3 << 3) | LEN)) scopeSpans.schemaUrl = r.string(end);
    else r.skip(tag, end, at);
  }
  return scopeSpans;
}

function decodeResourceSpans(r: Reader, end: number): ResourceSpansJson {
  const resourceSpans: ResourceSpansJson = {
    resource: { attributes: [], droppedAttributesCount: 0 },
    scopeSpans: [],
    schemaUrl: '',
  };
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    if (tag === ((1 << 3) | LEN)) decodeResource(r, r.limit(end), resourceSpans.resource);
    else if (tag === ((2 << 3) | LEN)) resourceSpans.scopeSpans.push(decodeScopeSpans(r, r.limit(end)));
    else if (tag === ((3 << 3) | LEN)) resourceSpans.schemaUrl = r.string(end);
    else r.skip(tag, end, at);
  }
  return resourceSpans;
}

/**
 * Decodes an OTLP/protobuf `ExportTraceServiceRequest` (the body of a
 * `POST /v1/traces` with `Content-Type: application/x-protobuf`) into the
 * OTLP/JSON object shape, ready for `decodeOtlpJsonSpans`.
 *
 * Ids become lowercase hex, uint64/int64 become decimal strings, bytes become
 * base64, as in OTLP/JSON. Every field is present, absent ones with their
 * proto3 default (`'0'` for an absent end time, which readers take as an open
 * span). Unknown fields are skipped; invalid UTF-8 becomes U+FFFD.
 *
 * `options.maxItems` (default unlimited) bounds the spans, events, links,
 * attributes and values decoded: past it a {@link ProtobufItemLimitError}; `options.tally.items` says how many.
 *
 * @throws {ProtobufDecodeError} on malformed input (truncation, bad wire type,
 * over-long length or varint, field number 0, unmatched groups, AnyValue
 * nested deeper than 32), and on input that is not a Uint8Array. Nothing else.
 */
export function decodeExportTraceRequest(
  bytes: Uint8Array,
  options: { readonly maxItems?: number; readonly tally?: { items: number } } = {},
): unknown {
  if (!(bytes instanceof Uint8Array)) throw new ProtobufDecodeError('input is not a Uint8Array at byte 0', 0);
  const r = new Reader(bytes, options.maxItems);
  const end = bytes.length;
  const request: ExportTraceRequestJson = { resourceSpans: [] };
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    if (tag === ((1 << 3) | LEN)) request.resourceSpans.push(decodeResourceSpans(r, r.limit(end)));
    else r.skip(tag, end, at);
  }
  if (options.tally) options.tally.items = r.items;
  return request;
}

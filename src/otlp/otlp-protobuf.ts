/**
 * OTLP/protobuf for traces, without generated code or a protobuf library.
 *
 * `decodeExportTraceRequest` turns an `ExportTraceServiceRequest` into the
 * OTLP/JSON object shape, so `decodeOtlpJsonSpans` reads both encodings and
 * there is one span model, not two. The wire-format reader below is written by
 * hand for the few message types OTLP traces use: every read is bounds-checked
 * against the end of the enclosing message, nothing is copied (strings and
 * bytes are read from views of the input), unknown fields of every wire type
 * are skipped, and the only recursion without a schema bound (AnyValue) is
 * capped, so hostile input gets a {@link ProtobufDecodeError}, never a
 * RangeError, a TypeError or a blown stack.
 */
import { Buffer, constants } from 'node:buffer';

/** Malformed protobuf input. `offset` is the byte of the input where decoding failed. */
export class ProtobufDecodeError extends Error {
  override readonly name = 'ProtobufDecodeError';

  constructor(
    message: string,
    /** Byte offset into the decoded input where the malformed item starts. */
    readonly offset: number,
  ) {
    super(message);
  }
}

/** The request holds more items than the caller allows: too large, not malformed. */
export class ProtobufItemLimitError extends ProtobufDecodeError {
  constructor(maxItems: number, offset: number) {
    super(`more than ${maxItems} spans, events, links and attributes at byte ${offset}`, offset);
  }
}

// Wire types. 3 and 4 (groups) are deprecated, but still valid on the wire, so
// an unknown group must be skipped rather than rejected; 6 and 7 do not exist.
const VARINT = 0;
const I64 = 1;
const LEN = 2;
const SGROUP = 3;
const EGROUP = 4;
const I32 = 5;

/**
 * How deep AnyValue may nest (arrays and maps inside arrays and maps). The
 * schema bounds every other message; this one recurses, so without a cap a
 * few hundred kilobytes of nested length prefixes would overflow the stack.
 */
const MAX_ANY_VALUE_DEPTH = 32;

const TWO_32 = 4294967296;
const MAX_STRING_LENGTH = constants.MAX_STRING_LENGTH;

const utf8Encoder = new TextEncoder();

// ---------------------------------------------------------------------------
// The OTLP/JSON shape produced. Every field is present: absent proto3 fields
// carry their default (0, '', []), so readers never meet a missing member.

interface AnyValueJson {
  stringValue?: string;
  boolValue?: boolean;
  /** int64 as a decimal string, as the OTLP/JSON mapping writes it. */
  intValue?: string;
  doubleValue?: number;
  arrayValue?: { values: AnyValueJson[] };
  kvlistValue?: { values: KeyValueJson[] };
  /** Base64, as the OTLP/JSON mapping writes bytes. */
  bytesValue?: string;
}

interface KeyValueJson {
  key: string;
  value: AnyValueJson;
}

interface ResourceJson {
  attributes: KeyValueJson[];
  droppedAttributesCount: number;
}

interface ScopeJson {
  name: string;
  version: string;
  attributes: KeyValueJson[];
  droppedAttributesCount: number;
}

interface StatusJson {
  code: number;
  message: string;
}

interface EventJson {
  timeUnixNano: string;
  name: string;
  attributes: KeyValueJson[];
  droppedAttributesCount: number;
}

interface LinkJson {
  traceId: string;
  spanId: string;
  traceState: string;
  attributes: KeyValueJson[];
  droppedAttributesCount: number;
  flags: number;
}

interface SpanJson {
  traceId: string;
  spanId: string;
  traceState: string;
  parentSpanId: string;
  flags: number;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: KeyValueJson[];
  droppedAttributesCount: number;
  events: EventJson[];
  droppedEventsCount: number;
  links: LinkJson[];
  droppedLinksCount: number;
  status: StatusJson;
}

interface ScopeSpansJson {
  scope: ScopeJson;
  spans: SpanJson[];
  schemaUrl: string;
}

interface ResourceSpansJson {
  resource: ResourceJson;
  scopeSpans: ScopeSpansJson[];
  schemaUrl: string;
}

interface ExportTraceRequestJson {
  resourceSpans: ResourceSpansJson[];
}

// ---------------------------------------------------------------------------
// Wire-format reader. One reader walks the whole input; a nested message is a
// range [pos, end) of it, so descending costs no copy and no allocation.

class Reader {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  /**
   * The same memory as a Buffer, for its native UTF-8, hex and base64
   * decoding: flat strings in one call, several times faster than building
   * them in JS. Invalid UTF-8 becomes U+FFFD rather than failing the batch,
   * and a leading U+FEFF is kept.
   */
  readonly buffer: Buffer;
  pos = 0;
  /** Low and high 32 bits (unsigned) of the last varint read by {@link varint}. */
  lo = 0;
  hi = 0;

  /** Items (spans, events, links, attributes, values) decoded so far, and the most allowed. */
  items = 0;
  readonly maxItems: number;

  constructor(bytes: Uint8Array, maxItems = Number.POSITIVE_INFINITY) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.maxItems = maxItems;
  }

  /**
   * Counts one decoded item. An empty span is 2 bytes on the wire but a few
   * hundred in memory: the budget stops a small request expanding without end.
   */
  count(): void {
    this.items += 1;
    if (this.items > this.maxItems) throw new ProtobufItemLimitError(this.maxItems, this.pos);
  }

  fail(message: string, at: number): never {
    throw new ProtobufDecodeError(`${message} at byte ${at}`, at);
  }

  /** Reads a varint of up to 64 bits into `lo`/`hi`. */
  varint(end: number): void {
    const bytes = this.bytes;
    const start = this.pos;
    let pos = start;
    let lo = 0;
    // Bytes 0–3 carry bits 0–27, all in `lo`.
    for (let shift = 0; shift < 28; shift += 7) {
      if (pos >= end) this.fail('truncated varint', start);
      const byte = bytes[pos++]!;
      lo |= (byte & 0x7f) << shift;
      if (byte < 0x80) {
        this.pos = pos;
        this.lo = lo >>> 0;
        this.hi = 0;
        return;
      }
    }
    // Byte 4 straddles the halves: 4 bits to `lo`, 3 to `hi`.
    if (pos >= end) this.fail('truncated varint', start);
    let byte = bytes[pos++]!;
    lo |= (byte & 0x0f) << 28;
    let hi = (byte & 0x7f) >>> 4;
    if (byte >= 0x80) {
      // Bytes 5–9 carry bits 35–63; the tenth may only hold bit 63.
      for (let shift = 3; ; shift += 7) {
        if (pos >= end) this.fail('truncated varint', start);
        byte = bytes[pos++]!;
        if (shift === 31 && byte > 1) this.fail('varint longer than 64 bits', start);
        hi |= (byte & 0x7f) << shift;
        if (byte < 0x80) break;
      }
    }
    this.pos = pos;
    this.lo = lo >>> 0;
    this.hi = hi >>> 0;
  }

  /** A tag: field number << 3 | wire type. */
  tag(end: number): number {
    const start = this.pos;
    // Most tags are one byte.
    const first = this.bytes[start]!;
    if (first < 0x80 && first >= 8) {
      this.pos = start + 1;
      return first;
    }
    this.varint(end);
    if (this.hi !== 0) this.fail('tag longer than 32 bits', start);
    if (this.lo >>> 3 === 0) this.fail('field number 0', start);
    return this.lo;
  }

  /** Reads a length prefix and returns the end of the range it delimits. */
  limit(end: number): number {
    const start = this.pos;
    this.varint(end);
    const remaining = end - this.pos;
    if (this.hi !== 0 || this.lo > remaining) {
      const length = this.hi === 0 ? String(this.lo) : uint64String(this.lo, this.hi);
      this.fail(`length ${length} exceeds remaining ${remaining} bytes`, start);
    }
    return this.pos + this.lo;
  }

  uint32(end: number): number {
    this.varint(end);
    return this.lo;
  }

  /** An enum or int32: the low 32 bits, signed (negative values arrive sign-extended to 64). */
  int32(end: number): number {
    this.varint(end);
    return this.lo | 0;
  }

  bool(end: number): boolean {
    this.varint(end);
    return (this.lo | this.hi) !== 0;
  }

  /** int64 as a decimal string. */
  int64(end: number): string {
    this.varint(end);
    return int64String(this.lo, this.hi);
  }

  private need(size: number, end: number, what: string): number {
    const at = this.pos;
    if (end - at < size) this.fail(`truncated ${what}`, at);
    this.pos = at + size;
    return at;
  }

  fixed32(end: number): number {
    return this.view.getUint32(this.need(4, end, 'fixed32'), true);
  }

  /** fixed64 (uint64) as a decimal string. */
  fixed64(end: number): string {
    const at = this.need(8, end, 'fixed64');
    return uint64String(this.view.getUint32(at, true), this.view.getUint32(at + 4, true));
  }

  double(end: number): number {
    return this.view.getFloat64(this.need(8, end, 'double'), true);
  }

  string(end: number): string {
    return this.text(end, 'utf8', 1);
  }

  /** Bytes as lowercase hex, the OTLP/JSON form of trace and span ids. */
  hex(end: number): string {
    return this.text(end, 'hex', 2);
  }

  /** Bytes as base64, the OTLP/JSON form of a bytes value. */
  base64(end: number): string {
    return this.text(end, 'base64', 4 / 3);
  }

  private text(end: number, encoding: 'utf8' | 'hex' | 'base64', charsPerByte: number): string {
    const at = this.pos;
    const stop = this.limit(end);
    const start = this.pos;
    // V8 cannot make a string this long and would throw a plain Error.
    if ((stop - start) * charsPerByte > MAX_STRING_LENGTH)
      this.fail(`${stop - start}-byte ${encoding} field too long for a string`, at);
    this.pos = stop;
    return this.buffer.toString(encoding, start, stop);
  }

  /** Skips the field whose tag was just read (tag starts at `tagAt`). */
  skip(tag: number, end: number, tagAt: number): void {
    switch (tag & 7) {
      case VARINT:
        this.varint(end);
        return;
      case I64:
        this.need(8, end, '64-bit field');
        return;
      case LEN:
        this.pos = this.limit(end);
        return;
      case I32:
        this.need(4, end, '32-bit field');
        return;
      case SGROUP:
        this.skipGroup(tag >>> 3, end);
        return;
      case EGROUP:
        this.fail('end-group without start-group', tagAt);
        break;
      default:
        this.fail(`bad wire type ${tag & 7}`, tagAt);
    }
  }

  /**
   * Skips a group up to its matching end-group tag. Iterative, with an
   * explicit stack of open field numbers, so nesting depth costs heap, not stack.
   */
  private skipGroup(field: number, end: number): void {
    const open = [field];
    while (open.length > 0) {
      if (this.pos >= end) this.fail(`truncated group (field ${open[open.length - 1]})`, this.pos);
      const at = this.pos;
      const tag = this.tag(end);
      const wire = tag & 7;
      if (wire === SGROUP) open.push(tag >>> 3);
      else if (wire === EGROUP) {
        if (open.pop() !== tag >>> 3) this.fail(`end-group for field ${tag >>> 3} does not match its start-group`, at);
      } else this.skip(tag, end, at);
    }
  }
}

function uint64String(lo: number, hi: number): string {
  // Below 2^53 a double is exact and much cheaper than a BigInt.
  if (hi < 0x200000) return String(hi * TWO_32 + lo);
  return ((BigInt(hi) << 32n) | BigInt(lo)).toString();
}

function int64String(lo: number, hi: number): string {
  if (hi < 0x200000) return String(hi * TWO_32 + lo);
  // Negative and at least -2^53: still exact as a double.
  if (hi >= 0xffe00000) return String((hi - TWO_32) * TWO_32 + lo);
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo)).toString();
}

// ---------------------------------------------------------------------------
// Messages. Each decoder reads fields until `end`. A field with an unexpected
// wire type is treated as unknown and skipped, as the reference
// implementations do. A singular message field that occurs twice is merged
// into the first, as protobuf requires, hence the `into` parameters.

function decodeAnyValue(r: Reader, end: number, depth: number, into: AnyValueJson | undefined): AnyValueJson {
  if (depth > MAX_ANY_VALUE_DEPTH) r.fail(`AnyValue nested deeper than ${MAX_ANY_VALUE_DEPTH}`, r.pos);
  r.count();
  // A oneof: a later member replaces an earlier one, a repeated message member merges.
  let value: AnyValueJson = into ?? {};
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    switch (tag) {
      case (1 << 3) | LEN:
        value = { stringValue: r.string(end) };
        break;
      case (2 << 3) | VARINT:
        value = { boolValue: r.bool(end) };
        break;
      case (3 << 3) | VARINT:
        value = { intValue: r.int64(end) };
        break;
      case (4 << 3) | I64:
        value = { doubleValue: r.double(end) };
        break;
      case (5 << 3) | LEN: {
        const array = value.arrayValue ?? { values: [] };
        value = { arrayValue: array };
        const stop = r.limit(end);
        while (r.pos < stop) {
          const itemAt = r.pos;
          const itemTag = r.tag(stop);
          if (itemTag === ((1 << 3) | LEN)) array.values.push(decodeAnyValue(r, r.limit(stop), depth + 1, undefined));
          else r.skip(itemTag, stop, itemAt);
        }
        break;
      }
      case (6 << 3) | LEN: {
        const list = value.kvlistValue ?? { values: [] };
        value = { kvlistValue: list };
        const stop = r.limit(end);
        while (r.pos < stop) {
          const itemAt = r.pos;
          const itemTag = r.tag(stop);
          if (itemTag === ((1 << 3) | LEN)) list.values.push(decodeKeyValue(r, r.limit(stop), depth + 1));
          else r.skip(itemTag, stop, itemAt);
        }
        break;
      }
      case (7 << 3) | LEN:
        value = { bytesValue: r.base64(end) };
        break;
      default:
        r.skip(tag, end, at);
    }
  }
  return value;
}

/** A KeyValue whose value sits at AnyValue nesting `depth`. */
function decodeKeyValue(r: Reader, end: number, depth: number): KeyValueJson {
  r.count();
  let key = '';
  let value: AnyValueJson | undefined;
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    if (tag === ((1 << 3) | LEN)) key = r.string(end);
    else if (tag === ((2 << 3) | LEN)) value = decodeAnyValue(r, r.limit(end), depth, value);
    else r.skip(tag, end, at);
  }
  return { key, value: value ?? {} };
}

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
 * attributes and values decoded: past it a {@link ProtobufItemLimitError}.
 *
 * @throws {ProtobufDecodeError} on malformed input (truncation, bad wire type,
 * over-long length or varint, field number 0, unmatched groups, AnyValue
 * nested deeper than 32), and on input that is not a Uint8Array. Nothing else.
 */
export function decodeExportTraceRequest(bytes: Uint8Array, options: { readonly maxItems?: number } = {}): unknown {
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
  return request;
}

// ---------------------------------------------------------------------------
// Response.

function varintSize(value: number): number {
  let size = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 0x80);
    size++;
  }
  return size;
}

function writeVarint(out: Uint8Array, pos: number, value: number): number {
  // Division, not shifts: shifts would truncate values above 2^32.
  while (value >= 0x80) {
    out[pos++] = (value % 0x80) | 0x80;
    value = Math.floor(value / 0x80);
  }
  out[pos++] = value;
  return pos;
}

/**
 * Encodes an OTLP/protobuf `ExportTraceServiceResponse`.
 *
 * Without `partial` (or with 0 rejected spans and no message), the empty
 * message: full success, as the spec asks servers to answer. Otherwise a
 * `partial_success` with `rejected_spans` and `error_message`; 0 rejected
 * spans with a message is how OTLP carries a warning.
 *
 * @throws {RangeError} if `rejectedSpans` is not a non-negative safe integer.
 */
export function encodeExportTraceResponse(partial?: { rejectedSpans: number; errorMessage?: string }): Uint8Array {
  if (partial === undefined) return new Uint8Array(0);
  const { rejectedSpans, errorMessage = '' } = partial;
  if (!Number.isSafeInteger(rejectedSpans) || rejectedSpans < 0) {
    throw new RangeError(`rejectedSpans must be a non-negative safe integer, got ${rejectedSpans}`);
  }
  if (rejectedSpans === 0 && errorMessage === '') return new Uint8Array(0);
  const message = utf8Encoder.encode(errorMessage);
  // proto3: fields at their default are not written.
  const bodySize =
    (rejectedSpans === 0 ? 0 : 1 + varintSize(rejectedSpans)) +
    (message.length === 0 ? 0 : 1 + varintSize(message.length) + message.length);
  const out = new Uint8Array(1 + varintSize(bodySize) + bodySize);
  let pos = 0;
  out[pos++] = (1 << 3) | LEN; // partial_success
  pos = writeVarint(out, pos, bodySize);
  if (rejectedSpans !== 0) {
    out[pos++] = (1 << 3) | VARINT; // rejected_spans
    pos = writeVarint(out, pos, rejectedSpans);
  }
  if (message.length !== 0) {
    out[pos++] = (2 << 3) | LEN; // error_message
    pos = writeVarint(out, pos, message.length);
    out.set(message, pos);
  }
  return out;
}

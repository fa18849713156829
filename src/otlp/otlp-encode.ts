/**
 * Encodes spans as an OTLP `ExportTraceServiceRequest`, protobuf or JSON,
 * with every field OTLP carries: trace state, span and link flags, resource
 * and scope schema URLs, scope attributes, every dropped count, and int64
 * values beyond ±2^53 (bigint) exactly. The gateway forwards with it, so what
 * a sender sent leaves as it came, plus the verdict. The SDK's serializer
 * (`@opentelemetry/otlp-transformer`) cannot: it takes `ReadableSpan`s, which
 * have no place for most of these, and writes nothing for a bigint.
 */

import type { WireDouble } from './wire-double.js';
import { isWireDouble } from './wire-double.js';

/**
 * An attribute value the encoder writes, each as its `AnyValue` kind: a
 * string, a boolean, a number (`intValue` when it is a safe integer, else
 * `doubleValue`), a boxed `Number` (always `doubleValue`: `3.0`, `-0`,
 * `NaN`), a bigint (`intValue`, as text past int64), bytes, an array
 * (`arrayValue`), a plain object (`kvlistValue`), and `null` (an empty
 * `AnyValue`).
 */
export type EncodableValue =
  | string
  | number
  | bigint
  | boolean
  | Uint8Array
  | WireDouble
  | readonly (EncodableValue | undefined)[]
  | EncodableMap
  | null;

/** A `kvlistValue`: entries by key. */
export interface EncodableMap {
  readonly [key: string]: EncodableValue | undefined;
}

/** Attributes by key. */
export type EncodableAttributes = Readonly<Record<string, EncodableValue | undefined>>;

/** A resource: spans sharing this object are written under one `ResourceSpans`. */
export interface EncodableResource {
  readonly attributes: EncodableAttributes;
  readonly droppedAttributesCount?: number;
  readonly schemaUrl?: string;
}

/** An instrumentation scope: spans sharing this object (under one resource) are written under one `ScopeSpans`. */
export interface EncodableScope {
  readonly name: string;
  readonly version?: string;
  readonly attributes?: EncodableAttributes;
  readonly droppedAttributesCount?: number;
  readonly schemaUrl?: string;
}

/** A span as the encoder reads it. Ids are lowercase hex; times are epoch nanoseconds. */
export interface EncodableSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly traceState?: string;
  readonly flags?: number;
  readonly name: string;
  /** OTLP numbering: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly otlpKind: number;
  readonly startTimeUnixNano: bigint;
  readonly endTimeUnixNano: bigint;
  readonly attributes: EncodableAttributes;
  readonly droppedAttributesCount?: number;
  readonly events: readonly {
    readonly timeUnixNano: bigint;
    readonly name: string;
    readonly attributes?: EncodableAttributes;
    readonly droppedAttributesCount?: number;
  }[];
  readonly droppedEventsCount?: number;
  readonly links: readonly {
    readonly traceId: string;
    readonly spanId: string;
    readonly traceState?: string;
    readonly flags?: number;
    readonly attributes?: EncodableAttributes;
    readonly droppedAttributesCount?: number;
  }[];
  readonly droppedLinksCount?: number;
  readonly status: { readonly code: number; readonly message?: string };
  readonly otlpResource: EncodableResource;
  readonly otlpScope: EncodableScope;
}

/** Spans grouped by resource, then scope, in first-seen order. */
function grouped(spans: readonly EncodableSpan[]): Map<EncodableResource, Map<EncodableScope, EncodableSpan[]>> {
  const resources = new Map<EncodableResource, Map<EncodableScope, EncodableSpan[]>>();
  for (const span of spans) {
    let scopes = resources.get(span.otlpResource);
    if (!scopes) resources.set(span.otlpResource, (scopes = new Map()));
    let list = scopes.get(span.otlpScope);
    if (!list) scopes.set(span.otlpScope, (list = []));
    list.push(span);
  }
  return resources;
}

const UTF8 = new TextEncoder();
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A growable protobuf writer. Nested messages reserve a one-byte length and widen it when they end. */
class Writer {
  buffer = new Uint8Array(64 * 1024);
  view = new DataView(this.buffer.buffer);
  pos = 0;

  ensure(more: number): void {
    if (this.pos + more <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.pos + more) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buffer.subarray(0, this.pos));
    this.buffer = next;
    this.view = new DataView(next.buffer);
  }

  varint(value: number): void {
    this.ensure(10);
    let v = value;
    while (v > 0x7f) {
      this.buffer[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buffer[this.pos++] = v;
  }

  /** A 64-bit two's-complement varint (int64). */
  varint64(value: bigint): void {
    this.ensure(10);
    let v = BigInt.asUintN(64, value);
    while (v > 0x7fn) {
      this.buffer[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buffer[this.pos++] = Number(v);
  }

  tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  fixed64(field: number, value: bigint): void {
    this.tag(field, 1);
    this.ensure(8);
    this.view.setBigUint64(this.pos, BigInt.asUintN(64, value), true);
    this.pos += 8;
  }

  fixed32(field: number, value: number): void {
    this.tag(field, 5);
    this.ensure(4);
    this.view.setUint32(this.pos, value >>> 0, true);
    this.pos += 4;
  }

  double(field: number, value: number): void {
    this.tag(field, 1);
    this.ensure(8);
    this.view.setFloat64(this.pos, value, true);
    this.pos += 8;
  }

  bytes(field: number, value: Uint8Array): void {
    this.tag(field, 2);
    this.varint(value.length);
    this.ensure(value.length);
    this.buffer.set(value, this.pos);
    this.pos += value.length;
  }

  string(field: number, value: string): void {
    // At most 3 bytes per UTF-16 unit: encode in place, then write the length before it.
    this.tag(field, 2);
    const start = this.begin(value.length * 3);
    const { written } = UTF8.encodeInto(value, this.buffer.subarray(this.pos));
    this.pos += written;
    this.end(start);
  }

  hex(field: number, value: string): void {
    this.bytes(field, Buffer.from(value, 'hex'));
  }

  /** Starts a length-delimited field's content; returns where its length goes. */
  begin(reserve = 0): number {
    this.ensure(1 + reserve);
    const at = this.pos;
    this.pos += 1;
    return at;
  }

  /** Writes the length of the content started at `at`, widening its prefix when it needs more than one byte. */
  end(at: number): void {
    const length = this.pos - at - 1;
    let width = 1;
    for (let v = length; v > 0x7f; v = Math.floor(v / 0x80)) width += 1;
    if (width > 1) {
      this.ensure(width - 1);
      this.buffer.copyWithin(at + width, at + 1, this.pos);
      this.pos += width - 1;
    }
    let v = length;
    let i = at;
    while (v > 0x7f) {
      this.buffer[i++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buffer[i] = v;
  }

  message(field: number, write: () => void): void {
    this.tag(field, 2);
    const at = this.begin();
    write();
    this.end(at);
  }

  finish(): Uint8Array {
    return this.buffer.slice(0, this.pos);
  }
}

function writeAnyValue(w: Writer, value: EncodableValue): void {
  // null: the empty AnyValue, no member written.
  if (value === null) return;
  if (typeof value === 'string') w.string(1, value);
  else if (typeof value === 'boolean') {
    w.tag(2, 0);
    w.varint(value ? 1 : 0);
  } else if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && !Object.is(value, -0)) {
      w.tag(3, 0);
      w.varint64(BigInt(value));
    } else w.double(4, value);
  } else if (typeof value === 'bigint') {
    if (value >= INT64_MIN && value <= INT64_MAX) {
      w.tag(3, 0);
      w.varint64(value);
    } else w.string(1, value.toString());
  } else if (value instanceof Uint8Array) w.bytes(7, value);
  else if (isWireDouble(value)) w.double(4, value.valueOf());
  else if (Array.isArray(value)) {
    w.message(5, () => {
      for (const item of value as readonly (EncodableValue | undefined)[])
        w.message(1, () => writeAnyValue(w, item ?? null));
    });
  } else if (typeof value === 'object') {
    w.message(6, () => writeAttributes(w, 1, value as EncodableMap));
  } else throw new TypeError(`not an OTLP value: ${typeof value}`);
}

function writeAttributes(w: Writer, field: number, attributes: EncodableAttributes | EncodableMap | undefined): void {
  if (!attributes) return;
  for (const key in attributes) {
    const value = attributes[key];
    if (value === undefined) continue;
    w.message(field, () => {
      w.string(1, key);
      w.message(2, () => writeAnyValue(w, value));
    });
  }
}

function writeCount(w: Writer, field: number, value: number | undefined): void {
  if (!value) return;
  w.tag(field, 0);
  w.varint(value);
}

function writeSpan(w: Writer, span: EncodableSpan): void {
  w.hex(1, span.traceId);
  w.hex(2, span.spanId);
  if (span.traceState) w.string(3, span.traceState);
  if (span.parentSpanId) w.hex(4, span.parentSpanId);
  w.string(5, span.name);
  if (span.otlpKind) {
    w.tag(6, 0);
    w.varint(span.otlpKind);
  }
  w.fixed64(7, span.startTimeUnixNano);
  w.fixed64(8, span.endTimeUnixNano);
  writeAttributes(w, 9, span.attributes);
  writeCount(w, 10, span.droppedAttributesCount);
  for (const event of span.events) {
    w.message(11, () => {
      w.fixed64(1, event.timeUnixNano);
      w.string(2, event.name);
      writeAttributes(w, 3, event.attributes);
      writeCount(w, 4, event.droppedAttributesCount);
    });
  }
  writeCount(w, 12, span.droppedEventsCount);
  for (const link of span.links) {
    w.message(13, () => {
      w.hex(1, link.traceId);
      w.hex(2, link.spanId);
      if (link.traceState) w.string(3, link.traceState);
      writeAttributes(w, 4, link.attributes);
      writeCount(w, 5, link.droppedAttributesCount);
      if (link.flags) w.fixed32(6, link.flags);
    });
  }
  writeCount(w, 14, span.droppedLinksCount);
  w.message(15, () => {
    if (span.status.message) w.string(2, span.status.message);
    if (span.status.code) {
      w.tag(3, 0);
      w.varint(span.status.code);
    }
  });
  if (span.flags) w.fixed32(16, span.flags);
}

/** The protobuf `ExportTraceServiceRequest` of `spans`. */
export function encodeTraceRequestProtobuf(spans: readonly EncodableSpan[]): Uint8Array {
  const w = new Writer();
  for (const [resource, scopes] of grouped(spans)) {
    w.message(1, () => {
      w.message(1, () => {
        writeAttributes(w, 1, resource.attributes);
        writeCount(w, 2, resource.droppedAttributesCount);
      });
      for (const [scope, list] of scopes) {
        w.message(2, () => {
          w.message(1, () => {
            w.string(1, scope.name);
            if (scope.version) w.string(2, scope.version);
            writeAttributes(w, 3, scope.attributes);
            writeCount(w, 4, scope.droppedAttributesCount);
          });
          for (const span of list) w.message(2, () => writeSpan(w, span));
          if (scope.schemaUrl) w.string(3, scope.schemaUrl);
        });
      }
      if (resource.schemaUrl) w.string(3, resource.schemaUrl);
    });
  }
  return w.finish();
}

type Json = Record<string, unknown>;

/** A double as OTLP/JSON writes it: a number, or text for what JSON has no number for (`NaN`, `±Infinity`, `-0`). */
function jsonDouble(value: number): number | string {
  if (Number.isFinite(value)) return Object.is(value, -0) ? '-0' : value;
  return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
}

function jsonValue(value: EncodableValue): Json {
  if (value === null || value === undefined) return {};
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  // OTLP/JSON writes int64 as a decimal string: exact at any size.
  if (typeof value === 'number')
    return Number.isSafeInteger(value) && !Object.is(value, -0)
      ? { intValue: String(value) }
      : { doubleValue: jsonDouble(value) };
  if (typeof value === 'bigint')
    return value >= INT64_MIN && value <= INT64_MAX
      ? { intValue: value.toString() }
      : { stringValue: value.toString() };
  if (value instanceof Uint8Array) return { bytesValue: Buffer.from(value).toString('base64') };
  if (isWireDouble(value)) return { doubleValue: jsonDouble(value.valueOf()) };
  if (Array.isArray(value))
    return {
      arrayValue: { values: (value as readonly (EncodableValue | undefined)[]).map((item) => jsonValue(item ?? null)) },
    };
  if (typeof value === 'object') return { kvlistValue: { values: jsonAttributes(value as EncodableMap) } };
  throw new TypeError(`not an OTLP value: ${typeof value}`);
}

function jsonAttributes(attributes: EncodableAttributes | EncodableMap | undefined): Json[] {
  const out: Json[] = [];
  if (!attributes) return out;
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined) out.push({ key, value: jsonValue(value) });
  }
  return out;
}

function jsonSpan(span: EncodableSpan): Json {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.traceState ? { traceState: span.traceState } : {}),
    ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
    ...(span.flags ? { flags: span.flags } : {}),
    name: span.name,
    kind: span.otlpKind,
    startTimeUnixNano: span.startTimeUnixNano.toString(),
    endTimeUnixNano: span.endTimeUnixNano.toString(),
    attributes: jsonAttributes(span.attributes),
    droppedAttributesCount: span.droppedAttributesCount ?? 0,
    events: span.events.map((e) => ({
      timeUnixNano: e.timeUnixNano.toString(),
      name: e.name,
      attributes: jsonAttributes(e.attributes),
      droppedAttributesCount: e.droppedAttributesCount ?? 0,
    })),
    droppedEventsCount: span.droppedEventsCount ?? 0,
    links: span.links.map((l) => ({
      traceId: l.traceId,
      spanId: l.spanId,
      ...(l.traceState ? { traceState: l.traceState } : {}),
      attributes: jsonAttributes(l.attributes),
      droppedAttributesCount: l.droppedAttributesCount ?? 0,
      ...(l.flags ? { flags: l.flags } : {}),
    })),
    droppedLinksCount: span.droppedLinksCount ?? 0,
    status: { ...(span.status.message ? { message: span.status.message } : {}), code: span.status.code },
  };
}

/** The OTLP/JSON `ExportTraceServiceRequest` of `spans`, as UTF-8 bytes. */
export function encodeTraceRequestJson(spans: readonly EncodableSpan[]): Uint8Array {
  const resourceSpans: Json[] = [];
  for (const [resource, scopes] of grouped(spans)) {
    resourceSpans.push({
      resource: {
        attributes: jsonAttributes(resource.attributes),
        droppedAttributesCount: resource.droppedAttributesCount ?? 0,
      },
      scopeSpans: [...scopes].map(([scope, list]) => ({
        scope: {
          name: scope.name,
          ...(scope.version ? { version: scope.version } : {}),
          attributes: jsonAttributes(scope.attributes),
          droppedAttributesCount: scope.droppedAttributesCount ?? 0,
        },
        spans: list.map(jsonSpan),
        ...(scope.schemaUrl ? { schemaUrl: scope.schemaUrl } : {}),
      })),
      ...(resource.schemaUrl ? { schemaUrl: resource.schemaUrl } : {}),
    });
  }
  return UTF8.encode(JSON.stringify({ resourceSpans }));
}

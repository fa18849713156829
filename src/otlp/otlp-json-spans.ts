// Over 300 lines: the OTLP/JSON span decoder and the decoded types it fills, kept together so that
// each field's type and how it is read change in one place.
/**
 * Decodes the spans of an OTLP/JSON `ExportTraceServiceRequest` into plain
 * records. Pure: malformed members are skipped or defaulted; only values
 * nested past {@link MAX_VALUE_DEPTH} throw ({@link OtlpNestingError}). An open span (as recorded fixtures keep them) has no end time.
 */
import type { SpanView } from '../conventions/span-view.js';
import type { WireDouble } from './wire-double.js';
import { isWireDouble, wireDouble } from './wire-double.js';

/**
 * A decoded `AnyValue`, keeping its wire type so it leaves as it came
 * (docs/gateway.md, "Values keep their type"): a string, a boolean, an
 * `intValue` as a number (past ±2^53 an exact bigint), a `doubleValue` as a
 * number when it has a fraction, else as a {@link WireDouble} (`3.0`, `-0`,
 * `NaN` and the infinities would read as an int or not at all), bytes as
 * bytes (sanitization reads them as UTF-8), an `arrayValue` as an array, a
 * `kvlistValue` as a plain object, and an empty `AnyValue` (what an SDK's
 * `null` array item becomes on the wire) as `null`. `undefined` only for a
 * value no decoder could read.
 */
export type DecodedValue =
  string | number | bigint | boolean | Uint8Array | WireDouble | DecodedValue[] | DecodedMap | null | undefined;

/** A decoded `kvlistValue`: its entries by key, later duplicates winning. */
export interface DecodedMap {
  [key: string]: DecodedValue;
}

/** A resource's or scope's own fields besides its attributes, shared by the spans under it. */
export interface DecodedEnvelope {
  readonly droppedAttributesCount?: number;
  /** The `schema_url` of the `ResourceSpans` or `ScopeSpans` message. */
  readonly schemaUrl?: string;
}

/** An instrumentation scope as received, shared by the spans under it. */
export interface DecodedScope extends DecodedEnvelope {
  readonly name: string;
  readonly version?: string;
  readonly attributes: Record<string, DecodedValue>;
}

/** One decoded span. Times are epoch nanoseconds. */
export interface DecodedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  /** OTLP numbering: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly startTimeUnixNano: bigint;
  /** Undefined while the span is open (`endTimeUnixNano` absent or 0). */
  readonly endTimeUnixNano?: bigint;
  readonly attributes: Record<string, DecodedValue>;
  readonly events: readonly {
    readonly name: string;
    readonly timeUnixNano: bigint;
    readonly attributes: Record<string, DecodedValue>;
    /** Attributes the sender's SDK dropped from the event. */
    readonly droppedAttributesCount?: number;
  }[];
  readonly links: readonly {
    readonly traceId: string;
    readonly spanId: string;
    readonly traceState?: string;
    readonly flags?: number;
    readonly attributes: Record<string, DecodedValue>;
    readonly droppedAttributesCount?: number;
  }[];
  /** W3C trace state, as sent. */
  readonly traceState?: string;
  /** OTLP span flags (trace flags, and whether the parent is remote), as sent. */
  readonly flags?: number;
  /** Attributes the sender's SDK dropped (span limits). */
  readonly droppedAttributesCount?: number;
  /** Events the sender's SDK dropped (span limits drop the oldest: a fact may be among them). */
  readonly droppedEventsCount?: number;
  /** Links the sender's SDK dropped. */
  readonly droppedLinksCount?: number;
  /** 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  readonly statusMessage?: string;
  readonly scopeName?: string;
  readonly scopeVersion?: string;
  /** The whole scope (attributes, schema URL, dropped count), one object per `ScopeSpans`. */
  readonly scope?: DecodedScope;
  readonly resource: Record<string, DecodedValue>;
  /** The resource's dropped count and schema URL, one object per `ResourceSpans`. */
  readonly resourceEnvelope?: DecodedEnvelope;
}

type Json = Record<string, unknown>;

/** Deepest nesting of array and map values accepted; OTLP senders nest a few levels at most. */
export const MAX_VALUE_DEPTH = 64;

/** An attribute value nested deeper than {@link MAX_VALUE_DEPTH}: the request is malformed. */
export class OtlpNestingError extends Error {
  constructor() {
    super(`attribute values nested more than ${MAX_VALUE_DEPTH} levels deep`);
    this.name = 'OtlpNestingError';
  }
}

function objectOf(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function listOf(value: unknown): Json[] {
  return Array.isArray(value) ? value.map(objectOf) : [];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A lowercase hex id of `length` characters that is not all zeros. */
function validId(id: string | undefined, length: number): id is string {
  return id !== undefined && id.length === length && /^[0-9a-f]+$/.test(id) && !/^0+$/.test(id);
}

/** A count the sender reported (`droppedEventsCount`…), or undefined when absent or zero. */
function count(value: unknown): number | undefined {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined;
}

/** A fixed32 the sender set (span and link flags), or undefined. */
function flagsOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= 0xffffffff ? value : undefined;
}

function nanos(value: unknown): bigint | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  try {
    const n = BigInt(typeof value === 'number' ? Math.trunc(value) : value);
    return n > 0n ? n : undefined;
  } catch {
    return undefined;
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * An `intValue`: a number while a double holds it exactly, past ±2^53 an exact
 * bigint (from its digits when it came as text, as OTLP/JSON and the protobuf
 * decoder give it). An integral number past int64 (a JSON encoder's quirk)
 * stays the double it is.
 */
function int64Of(raw: unknown): DecodedValue {
  if (typeof raw === 'string') {
    try {
      const exact = BigInt(raw.trim());
      if (exact >= INT64_MIN && exact <= INT64_MAX)
        return exact >= -SAFE_MAX && exact <= SAFE_MAX ? Number(exact) : exact;
    } catch {
      // not an integer's digits: read as a number below
    }
  }
  const n = Number(raw);
  if (!Number.isFinite(n)) return undefined;
  if (Number.isSafeInteger(n) || !Number.isInteger(n) || n < -(2 ** 63) || n >= 2 ** 63) return n;
  return BigInt(n);
}

/** A `doubleValue` as OTLP/JSON writes it: a number, or `"NaN"`, `"Infinity"`, `"-Infinity"` (or any number as text). */
function doubleOf(raw: unknown): number | undefined {
  if (typeof raw === 'number') return raw;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (text === 'NaN') return Number.NaN;
  if (text === 'Infinity') return Number.POSITIVE_INFINITY;
  if (text === '-Infinity') return Number.NEGATIVE_INFINITY;
  const n = text === '' ? Number.NaN : Number(text);
  return Number.isNaN(n) ? undefined : n;
}

function decodeValue(raw: unknown, depth = 0): DecodedValue {
  if (depth > MAX_VALUE_DEPTH) throw new OtlpNestingError();
  const value = objectOf(raw);
  if (typeof value.stringValue === 'string') return value.stringValue;
  if (typeof value.boolValue === 'boolean') return value.boolValue;
  if (value.doubleValue !== undefined) {
    const double = doubleOf(value.doubleValue);
    if (double !== undefined) return wireDouble(double);
  }
  if (value.intValue !== undefined) return int64Of(value.intValue);
  if (value.arrayValue !== undefined)
    return listOf(objectOf(value.arrayValue).values).map((item) => decodeValue(item, depth + 1) ?? null);
  if (value.kvlistValue !== undefined) return mapOf(objectOf(value.kvlistValue).values, depth + 1);
  if (typeof value.bytesValue === 'string') return new Uint8Array(Buffer.from(value.bytesValue, 'base64'));
  // An empty AnyValue (no member set): the wire's null, kept as one.
  return null;
}

/** A `kvlistValue`'s entries: every key kept, an unreadable value as `null`. */
function mapOf(list: unknown, depth: number): DecodedMap {
  const map: DecodedMap = {};
  for (const entry of listOf(list)) {
    const key = text(entry.key);
    if (key === undefined) continue;
    map[key] = decodeValue(entry.value, depth) ?? null;
  }
  return map;
}

/**
 * A text that is equal for two decoded values exactly when they are equal
 * with their types: every value is written as `[kind, content]`, so the
 * string `""` and empty bytes, the int `3` and the double `3.0`, `-0` and `0`,
 * a map and an array never share a key. The gateway caches resources and
 * scopes under it.
 */
export function decodedKey(value: unknown): string {
  return JSON.stringify(tagged(value));
}

function tagged(value: unknown): unknown {
  if (value === null || value === undefined) return ['n'];
  if (typeof value === 'string') return ['s', value];
  if (typeof value === 'boolean') return ['b', value];
  if (typeof value === 'bigint') return ['i', value.toString()];
  if (typeof value === 'number') return ['i', Object.is(value, -0) ? '-0' : String(value)];
  if (isWireDouble(value)) return ['d', Object.is(value.valueOf(), -0) ? '-0' : String(value.valueOf())];
  if (value instanceof Uint8Array) return ['y', Buffer.from(value).toString('base64')];
  if (Array.isArray(value)) return ['a', value.map(tagged)];
  if (typeof value === 'object') return ['m', Object.entries(value).map(([key, item]) => [key, tagged(item)])];
  return ['?', String(value)];
}

/** A value a forwarded span attribute holds: any decoded value (see {@link DecodedValue}) but `undefined`. */
export type SpanAttributeValue = Exclude<DecodedValue, undefined>;

/** Decoded attributes as span attributes: every value as it came, with its type; only unreadable ones left out. */
export function spanAttributesOf(map: Record<string, DecodedValue>): Record<string, SpanAttributeValue> {
  const out: Record<string, SpanAttributeValue> = {};
  for (const key in map) {
    const value = map[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** Decodes an OTLP `KeyValue[]` list; later duplicates win. */
export function attributesOf(list: unknown, depth = 0): Record<string, DecodedValue> {
  const attributes: Record<string, DecodedValue> = {};
  for (const entry of listOf(list)) {
    const key = text(entry.key);
    if (key === undefined || key === '') continue;
    // An attribute with an empty value is kept (as `null`): it was sent, and leaves as it came.
    attributes[key] = decodeValue(entry.value, depth) ?? null;
  }
  return attributes;
}

/** Every span of an OTLP/JSON trace export request, in document order. */
export function decodeOtlpJsonSpans(request: unknown): DecodedSpan[] {
  const spans: DecodedSpan[] = [];
  for (const resourceSpans of listOf(objectOf(request).resourceSpans)) {
    const resource = attributesOf(objectOf(resourceSpans.resource).attributes);
    const resourceEnvelope: DecodedEnvelope = {
      droppedAttributesCount: count(objectOf(resourceSpans.resource).droppedAttributesCount),
      schemaUrl: text(resourceSpans.schemaUrl) || undefined,
    };
    for (const scopeSpans of listOf(resourceSpans.scopeSpans)) {
      const rawScope = objectOf(scopeSpans.scope);
      const scopeName = text(rawScope.name);
      const scopeVersion = text(rawScope.version) || undefined;
      const scope: DecodedScope = {
        name: scopeName ?? '',
        version: scopeVersion,
        attributes: attributesOf(rawScope.attributes),
        droppedAttributesCount: count(rawScope.droppedAttributesCount),
        schemaUrl: text(scopeSpans.schemaUrl) || undefined,
      };
      for (const span of listOf(scopeSpans.spans)) {
        const spanId = text(span.spanId)?.toLowerCase();
        const traceId = text(span.traceId)?.toLowerCase();
        const start = nanos(span.startTimeUnixNano);
        // OTLP ids are 16 and 8 bytes, never all zero; anything else would poison a forwarded batch.
        if (!validId(traceId, 32) || !validId(spanId, 16) || start === undefined) continue;
        const parentSpanId = text(span.parentSpanId)?.toLowerCase();
        const status = objectOf(span.status);
        spans.push({
          traceId,
          spanId,
          parentSpanId: validId(parentSpanId, 16) ? parentSpanId : undefined,
          name: text(span.name) ?? '',
          kind: typeof span.kind === 'number' ? span.kind : 0,
          startTimeUnixNano: start,
          endTimeUnixNano: nanos(span.endTimeUnixNano),
          attributes: attributesOf(span.attributes),
          events: listOf(span.events).map((event) => ({
            name: text(event.name) ?? '',
            timeUnixNano: nanos(event.timeUnixNano) ?? start,
            attributes: attributesOf(event.attributes),
            droppedAttributesCount: count(event.droppedAttributesCount),
          })),
          links: listOf(span.links)
            .filter(
              (link) => validId(text(link.traceId)?.toLowerCase(), 32) && validId(text(link.spanId)?.toLowerCase(), 16),
            )
            .map((link) => ({
              traceId: (text(link.traceId) as string).toLowerCase(),
              spanId: (text(link.spanId) as string).toLowerCase(),
              traceState: text(link.traceState) || undefined,
              flags: flagsOf(link.flags),
              attributes: attributesOf(link.attributes),
              droppedAttributesCount: count(link.droppedAttributesCount),
            })),
          traceState: text(span.traceState) || undefined,
          flags: flagsOf(span.flags),
          droppedAttributesCount: count(span.droppedAttributesCount),
          droppedEventsCount: count(span.droppedEventsCount),
          droppedLinksCount: count(span.droppedLinksCount),
          statusCode: typeof status.code === 'number' ? status.code : 0,
          statusMessage: text(status.message) || undefined,
          scopeName,
          scopeVersion,
          scope,
          resource,
          resourceEnvelope,
        });
      }
    }
  }
  return spans;
}

function millis(nanos: bigint): number {
  // Split to keep sub-millisecond precision without losing integer range.
  return Number(nanos / 1_000_000n) + Number(nanos % 1_000_000n) / 1e6;
}

/** OTLP span flags: bit 8 says whether bit 9 is known; bit 9, that the parent is remote. */
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;

/** True when the sender's flags say the span's parent is in another process; false when they say it is not or say nothing. */
export function parentIsRemote(flags: number | undefined): boolean {
  return flags !== undefined && (flags & HAS_IS_REMOTE) !== 0 && (flags & IS_REMOTE) !== 0;
}

/**
 * Attributes as the fold reads them: a {@link WireDouble} as the number it
 * holds (`gen_ai.usage.input_tokens` sent as `120.0` is 120 tokens). The map
 * itself when it holds none, so the common case allocates nothing.
 */
function viewAttributes(map: Record<string, DecodedValue>): Record<string, DecodedValue> {
  let out: Record<string, DecodedValue> | undefined;
  for (const key in map) {
    const value = map[key];
    if (!isWireDouble(value)) continue;
    out ??= { ...map };
    out[key] = value.valueOf();
  }
  return out ?? map;
}

/** The {@link SpanView} adapters read, of a decoded span. */
export function spanViewOfDecoded(span: DecodedSpan): SpanView {
  return {
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    name: span.name,
    startMillis: millis(span.startTimeUnixNano),
    endMillis: span.endTimeUnixNano === undefined ? undefined : millis(span.endTimeUnixNano),
    attributes: viewAttributes(span.attributes),
    events: span.events.map((e) => ({
      name: e.name,
      timeMillis: millis(e.timeUnixNano),
      attributes: viewAttributes(e.attributes),
      droppedAttributesCount: e.droppedAttributesCount,
    })),
    links: span.links.map((l) => ({ spanId: l.spanId, attributes: viewAttributes(l.attributes) })),
    statusCode: span.statusCode,
    statusMessage: span.statusMessage,
    scopeName: span.scopeName,
    parentIsRemote: parentIsRemote(span.flags),
    droppedEventsCount: span.droppedEventsCount,
    droppedAttributesCount: span.droppedAttributesCount,
  };
}

/**
 * The OTLP/JSON encoding of spans (the OTLP specification's JSON mapping): ids as hex,
 * 64-bit integers as decimal text, bytes as base64, doubles JSON has no
 * number for as text. Re-exported by otlp-encode.ts.
 */
import type { EncodableAttributes, EncodableMap, EncodableSpan, EncodableValue } from './encodable-span.js';
import { grouped } from './encodable-span.js';
import { INT64_MAX, INT64_MIN } from './int64-range.js';
import { isWireDouble } from './wire-double.js';

const UTF8 = new TextEncoder();
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

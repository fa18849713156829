/**
 * Encodes spans as an OTLP `ExportTraceServiceRequest`, protobuf or JSON,
 * with every field OTLP carries: trace state, span and link flags, resource
 * and scope schema URLs, scope attributes, every dropped count, and int64
 * values beyond ±2^53 (bigint) exactly. The gateway forwards with it, so what
 * a sender sent leaves as it came, plus the verdict. The SDK's serializer
 * (`@opentelemetry/otlp-transformer`) cannot: it takes `ReadableSpan`s, which
 * have no place for most of these, and writes nothing for a bigint.
 *
 * This file writes protobuf; otlp-encode-json.ts writes JSON and is
 * re-exported here, as are the span types (encodable-span.ts).
 */
import type { EncodableAttributes, EncodableMap, EncodableSpan, EncodableValue } from './encodable-span.js';
import { grouped } from './encodable-span.js';
import { INT64_MAX, INT64_MIN } from './int64-range.js';
import { Writer } from './protobuf-writer.js';
import { isWireDouble } from './wire-double.js';

export type {
  EncodableAttributes,
  EncodableMap,
  EncodableResource,
  EncodableScope,
  EncodableSpan,
  EncodableValue,
} from './encodable-span.js';
export { encodeTraceRequestJson } from './otlp-encode-json.js';
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

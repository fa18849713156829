/**
 * What a decoded span costs in memory, estimated from its contents: the
 * gateway bounds what it holds by this (limits.maxHeldBytes), not by the size
 * of the request it came in. A 20-byte protobuf span decodes to objects of
 * several hundred bytes; a kilobyte string costs two kilobytes as UTF-16.
 * The constants are rounded up from V8's object sizes and checked against
 * `npm run bench:gateway-load`: with traces held, 265 MiB estimated at 267 MiB
 * RSS (which includes the process's own ~60 MiB).
 */
import type { DecodedSpan, DecodedValue } from '../otlp/otlp-json-spans.js';
import { isWireDouble } from '../otlp/wire-double.js';

/** A span record, its ids, times, status and the view objects the fold builds from it. */
const SPAN_BYTES = 1_200;
/** An object property: the key's string, the slot, the value's box. */
const ENTRY_BYTES = 64;
/** An event or link record with its attribute map. */
const CHILD_BYTES = 200;

function valueBytes(value: DecodedValue): number {
  if (typeof value === 'string') return 24 + value.length * 2;
  if (value instanceof Uint8Array) return 96 + value.length;
  if (Array.isArray(value)) {
    let bytes = 32;
    for (const item of value) bytes += 8 + valueBytes(item);
    return bytes;
  }
  // A kvlist: a map like any attribute map. (A boxed double, a number, a boolean, null: one slot.)
  if (value !== null && typeof value === 'object' && !isWireDouble(value)) return mapBytes(value);
  return 16;
}

function mapBytes(map: Readonly<Record<string, DecodedValue>>): number {
  let bytes = 56;
  for (const key in map) bytes += ENTRY_BYTES + key.length * 2 + valueBytes(map[key]);
  return bytes;
}

/** Estimated bytes `span` holds in memory while the gateway keeps it (its resource is shared and counted once per request). */
export function decodedSpanBytes(span: DecodedSpan): number {
  let bytes = SPAN_BYTES + span.name.length * 2 + (span.statusMessage?.length ?? 0) * 2 + mapBytes(span.attributes);
  for (const event of span.events) bytes += CHILD_BYTES + event.name.length * 2 + mapBytes(event.attributes);
  for (const link of span.links) bytes += CHILD_BYTES + mapBytes(link.attributes);
  return bytes;
}

/** Estimated bytes of a request's decoded spans, resources counted once each. */
export function decodedRequestBytes(spans: readonly DecodedSpan[]): number {
  let bytes = 0;
  const resources = new Set<object>();
  for (const span of spans) {
    bytes += decodedSpanBytes(span);
    if (!resources.has(span.resource)) {
      resources.add(span.resource);
      bytes += mapBytes(span.resource);
    }
  }
  return bytes;
}

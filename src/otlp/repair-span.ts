/**
 * Repair, never drop (docs/gateway.md, "Values keep their type"): a span
 * the encoder cannot write because of one value is written with that value
 * replaced by a marker, so the span and its batch-mates still go on. Pure.
 */
import type { EncodableAttributes, EncodableSpan, EncodableValue } from './otlp-encode.js';
import { MAX_VALUE_DEPTH } from './otlp-json-spans.js';
import { isWireDouble } from './wire-double.js';

/** What replaces a value that cannot be encoded: the marker of a field that cannot be sanitized (docs/sanitization.md). */
export const UNENCODABLE_VALUE = '[redacted:unsanitizable]';

/** Nesting written as it is; deeper values are replaced (the decoder refuses deeper input). */
const MAX_DEPTH = MAX_VALUE_DEPTH;

/** True when the encoder writes `value` as an `AnyValue` (see `EncodableValue`). */
export function isEncodableValue(value: unknown, depth = 0): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || typeof value === 'bigint')
    return true;
  if (typeof value === 'number' || isWireDouble(value) || value instanceof Uint8Array) return true;
  if (depth >= MAX_DEPTH || typeof value !== 'object') return false;
  if (Array.isArray(value))
    return value.every((item: unknown) => item === undefined || isEncodableValue(item, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined && !isEncodableValue(item, depth + 1)) return false;
  }
  return true;
}

/** `value` with every part the encoder cannot write replaced by {@link UNENCODABLE_VALUE}; `count` is told how many. */
function repairValue(value: unknown, count: () => void, depth: number): EncodableValue {
  if (isEncodableValue(value, depth)) return value as EncodableValue;
  if (depth < MAX_DEPTH && Array.isArray(value))
    return value.map((item: unknown) => (item === undefined ? null : repairValue(item, count, depth + 1)));
  if (
    depth < MAX_DEPTH &&
    value !== null &&
    typeof value === 'object' &&
    Object.getPrototypeOf(value) === Object.prototype
  ) {
    const out: Record<string, EncodableValue> = {};
    for (const key in value) {
      const item = (value as Record<string, unknown>)[key];
      if (item !== undefined) out[key] = repairValue(item, count, depth + 1);
    }
    return out;
  }
  count();
  return UNENCODABLE_VALUE;
}

function repairAttributes(
  attributes: EncodableAttributes | undefined,
  count: () => void,
): EncodableAttributes | undefined {
  if (attributes === undefined) return undefined;
  const out: Record<string, EncodableValue> = {};
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined) out[key] = repairValue(value, count, 0);
  }
  return out;
}

/**
 * A copy of `span` the encoder can write: every value it cannot (in the
 * span's attributes, events, links, resource and scope) replaced by
 * {@link UNENCODABLE_VALUE}. Returns the span and how many values were
 * replaced.
 */
export function repairedSpan(span: EncodableSpan): { readonly span: EncodableSpan; readonly repaired: number } {
  let repaired = 0;
  const count = (): void => {
    repaired += 1;
  };
  const copy: EncodableSpan = {
    ...span,
    name: String(span.name),
    attributes: repairAttributes(span.attributes, count) ?? {},
    events: span.events.map((event) => ({
      ...event,
      name: String(event.name),
      attributes: repairAttributes(event.attributes, count),
    })),
    links: span.links.map((link) => ({ ...link, attributes: repairAttributes(link.attributes, count) })),
    status: {
      code: span.status.code,
      message: span.status.message === undefined ? undefined : String(span.status.message),
    },
    otlpResource: { ...span.otlpResource, attributes: repairAttributes(span.otlpResource.attributes, count) ?? {} },
    otlpScope: { ...span.otlpScope, attributes: repairAttributes(span.otlpScope.attributes, count) },
  };
  return { span: copy, repaired };
}

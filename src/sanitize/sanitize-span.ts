/**
 * Sanitizes one span in place, whoever holds it: the SDK processor applies it
 * to a live span while it ends, the gateway to a received span before it is
 * forwarded. Typed by shape, so it needs no OpenTelemetry SDK type.
 *
 * Fails closed field by field (docs/sanitization.md, "Fields that cannot be
 * sanitized"): each field is sanitized on its own, and a field that cannot be
 * (a value of the wrong type, a getter that throws) is replaced by the
 * `[redacted:unsanitizable]` marker. One bad field never lets the fields after
 * it leave unsanitized.
 */
import type { Sanitizer } from './sanitizer.js';
import { sanitizeAttributeMap, UNSANITIZABLE } from './sanitizer.js';
import type { RedactionTally } from './scrubber.js';
import { countRedaction } from './scrubber.js';
import { documentedSpanName } from './span-name.js';

type Attributes = Parameters<typeof sanitizeAttributeMap>[0];

/** The parts of a span sanitization reads and rewrites. */
export interface SanitizableSpan {
  name: string;
  attributes: Attributes;
  readonly events: readonly { name: string; attributes?: Attributes }[];
  readonly links: readonly { attributes?: Attributes }[];
  status: { readonly code: number; readonly message?: string };
}

/**
 * Sanitizes `span` in place: attributes, event names and attributes (with
 * `exception.message` and `exception.stacktrace`), link attributes, the status
 * message and the span name. Adds what was removed or changed to `tally`.
 * Never throws for what a span holds.
 */
export function sanitizeSpanInPlace(span: SanitizableSpan, sanitizer: Sanitizer, tally: RedactionTally): void {
  const conventionAttributes = typeof span.attributes === 'object' && span.attributes !== null ? span.attributes : {};
  const attributes = sanitizeMap(span.attributes, sanitizer, tally);
  // A fresh object rather than `delete` on the span's own: deleting keys drops
  // V8 into dictionary mode and slows every later read, export included.
  if (attributes !== span.attributes) span.attributes = attributes ?? {};
  for (const event of listOf(span, 'events', tally)) {
    const name = sanitizeText(event.name, sanitizer, tally);
    if (name !== event.name) event.name = name as string;
    if (event.attributes !== undefined) event.attributes = sanitizeMap(event.attributes, sanitizer, tally);
  }
  for (const link of listOf(span, 'links', tally)) {
    if (link.attributes !== undefined) link.attributes = sanitizeMap(link.attributes, sanitizer, tally);
  }
  const status = span.status as { readonly code: number; readonly message?: unknown } | undefined;
  if (status !== null && typeof status === 'object' && status.message !== undefined) {
    const message = sanitizeText(status.message, sanitizer, tally);
    if (message !== status.message) span.status = { code: status.code, message: message as string };
  }
  // A GenAI span's name carrying more than its documented name (tool arguments, a prompt) gets the
  // documented one; read before the attributes were sanitized, as the convention wrote them.
  const documented = typeof span.name === 'string' ? documentedSpanName(span.name, conventionAttributes) : undefined;
  if (documented !== undefined) {
    countRedaction(tally, 'content_key');
    tally.changed += 1;
  }
  const name = sanitizeText(documented ?? span.name, sanitizer, tally);
  if (name !== span.name) span.name = name as string;
}

/** Counts one field that could not be sanitized. */
function unsanitizable(tally: RedactionTally): string {
  tally.changed += 1;
  countRedaction(tally, 'unsanitizable');
  return UNSANITIZABLE;
}

/**
 * A text field scrubbed: strings by the rules; `undefined`, `null`, numbers
 * and booleans (which hold no text) as they are; anything else, or a scrub
 * that throws, the marker.
 */
function sanitizeText(value: unknown, sanitizer: Sanitizer, tally: RedactionTally): unknown {
  if (typeof value !== 'string') {
    if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean') return value;
    return unsanitizable(tally);
  }
  try {
    const scrubbed = sanitizer.scrub(value, tally);
    if (scrubbed !== value) tally.changed += 1;
    return scrubbed;
  } catch {
    return unsanitizable(tally);
  }
}

/** An attribute map sanitized; a map that cannot even be read becomes one marker attribute. */
function sanitizeMap(attributes: unknown, sanitizer: Sanitizer, tally: RedactionTally): Attributes | undefined {
  if (attributes === undefined || attributes === null) return attributes as undefined;
  try {
    if (typeof attributes !== 'object') throw new TypeError('not an attribute map');
    return sanitizeAttributeMap(attributes as Attributes, sanitizer, tally);
  } catch {
    return { 'agent_incidents.unsanitizable': unsanitizable(tally) };
  }
}

/**
 * The span's events or links to sanitize. A list that is not an array (or
 * cannot be read) is replaced by an empty one and counted: what it held
 * cannot be sanitized, so it does not leave.
 */
function listOf<K extends 'events' | 'links'>(
  span: SanitizableSpan,
  key: K,
  tally: RedactionTally,
): SanitizableSpan[K] {
  const empty = [] as unknown as SanitizableSpan[K];
  let list: unknown;
  try {
    list = span[key];
  } catch {
    list = null;
  }
  if (Array.isArray(list)) return list as SanitizableSpan[K];
  if (list === undefined) return empty;
  unsanitizable(tally);
  try {
    (span as Record<K, unknown>)[key] = empty;
  } catch {
    // A read-only list that is not an array: nothing more can be done here.
  }
  return empty;
}

/**
 * Replaces every text field of `span` by the marker: what an edge does when
 * sanitizing the span failed as a whole (it should not), so nothing leaves
 * unsanitized. Ids, times, kind and status code stay.
 */
export function redactSpanInPlace(span: SanitizableSpan, tally: RedactionTally): void {
  span.name = unsanitizable(tally);
  span.attributes = { 'agent_incidents.unsanitizable': UNSANITIZABLE };
  for (const event of Array.isArray(span.events) ? span.events : []) {
    event.name = UNSANITIZABLE;
    event.attributes = {};
  }
  for (const link of Array.isArray(span.links) ? span.links : []) link.attributes = {};
  const code = typeof span.status?.code === 'number' ? span.status.code : 0;
  span.status = span.status?.message === undefined ? { code } : { code, message: UNSANITIZABLE };
}

/**
 * Sanitizes one span in place, whoever holds it: the SDK processor applies it
 * to a live span while it ends, the gateway to a received span before it is
 * forwarded. Typed by shape, so it needs no OpenTelemetry SDK type.
 */
import type { Sanitizer } from './sanitizer.js';
import { sanitizeAttributeMap } from './sanitizer.js';
import type { RedactionTally } from './scrubber.js';

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
 */
export function sanitizeSpanInPlace(span: SanitizableSpan, sanitizer: Sanitizer, tally: RedactionTally): void {
  const attributes = sanitizeAttributeMap(span.attributes, sanitizer, tally);
  // A fresh object rather than `delete` on the span's own: deleting keys drops
  // V8 into dictionary mode and slows every later read, export included.
  if (attributes !== span.attributes) span.attributes = attributes;
  for (const event of span.events) {
    const name = sanitizer.scrub(event.name, tally);
    if (name !== event.name) {
      event.name = name;
      tally.changed += 1;
    }
    if (event.attributes) event.attributes = sanitizeAttributeMap(event.attributes, sanitizer, tally);
  }
  for (const link of span.links) {
    if (link.attributes) link.attributes = sanitizeAttributeMap(link.attributes, sanitizer, tally);
  }
  if (typeof span.status.message === 'string') {
    const message = sanitizer.scrub(span.status.message, tally);
    if (message !== span.status.message) {
      span.status = { code: span.status.code, message };
      tally.changed += 1;
    }
  }
  const name = sanitizer.scrub(span.name, tally);
  if (name !== span.name) {
    span.name = name;
    tally.changed += 1;
  }
}

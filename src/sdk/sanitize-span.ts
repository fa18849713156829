/**
 * Applies the pure sanitizer to a live SDK span while it is ending, so every
 * processor's `onEnd` and every exporter sees only sanitized data.
 */
import type { Span } from '@opentelemetry/sdk-trace-base';
import type { Sanitizer } from '../sanitize/sanitizer.js';
import { sanitizeAttributeMap } from '../sanitize/sanitizer.js';
import type { RedactionTally } from '../sanitize/scrubber.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Sanitizes `span` in place: attributes, event names and attributes (with
 * `exception.message` and `exception.stacktrace`), link attributes, the status
 * message and the span name. Adds what was removed or changed to `tally`.
 */
export function sanitizeSpanInPlace(span: Span, sanitizer: Sanitizer, tally: RedactionTally): void {
  const mutable = span as unknown as Mutable<Span>;
  const attributes = sanitizeAttributeMap(span.attributes, sanitizer, tally);
  // A fresh object rather than `delete` on the span's own: deleting keys drops
  // V8 into dictionary mode and slows every later read, export included.
  if (attributes !== span.attributes) mutable.attributes = attributes as Span['attributes'];
  for (const event of span.events) {
    const e = event as Mutable<typeof event>;
    const name = sanitizer.scrub(e.name, tally);
    if (name !== e.name) {
      e.name = name;
      tally.changed += 1;
    }
    if (e.attributes) e.attributes = sanitizeAttributeMap(e.attributes, sanitizer, tally) as typeof e.attributes;
  }
  for (const link of span.links) {
    if (link.attributes) (link as Mutable<typeof link>).attributes = sanitizeAttributeMap(link.attributes, sanitizer, tally) as typeof link.attributes;
  }
  if (typeof span.status.message === 'string') {
    const message = sanitizer.scrub(span.status.message, tally);
    if (message !== span.status.message) {
      mutable.status = { code: span.status.code, message };
      tally.changed += 1;
    }
  }
  const name = sanitizer.scrub(span.name, tally);
  if (name !== span.name) {
    mutable.name = name;
    tally.changed += 1;
  }
}

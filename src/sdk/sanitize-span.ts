/**
 * Applies the pure sanitizer to a live SDK span while it is ending, so every
 * processor's `onEnd` and every exporter sees only sanitized data.
 */
import type { Span } from '@opentelemetry/sdk-trace-base';
import type { SanitizeOptions } from '../sanitize/sanitize-attributes.js';
import { sanitizeAttributes } from '../sanitize/sanitize-attributes.js';
import { scrubString } from '../sanitize/scrub-string.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function replaceContents(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const key of Object.keys(target)) {
    if (!(key in source)) delete target[key];
  }
  Object.assign(target, source);
}

/**
 * Sanitizes `span` in place: attributes, event names and attributes (with
 * `exception.message` and `exception.stacktrace`), link attributes, the status
 * message and the span name. Returns how many values were removed or changed.
 */
export function sanitizeSpanInPlace(span: Span, options: SanitizeOptions): number {
  const mutable = span as unknown as Mutable<Span>;
  let changed = 0;
  const attributes = sanitizeAttributes(span.attributes, options);
  if (attributes.changed > 0) {
    replaceContents(span.attributes as Record<string, unknown>, attributes.attributes);
    changed += attributes.changed;
  }
  for (const event of span.events) {
    const e = event as Mutable<typeof event>;
    const name = scrubString(e.name, options.maxStringLength);
    if (name !== e.name) {
      e.name = name;
      changed += 1;
    }
    if (e.attributes) {
      const sanitized = sanitizeAttributes(e.attributes, options);
      if (sanitized.changed > 0) {
        e.attributes = sanitized.attributes as typeof e.attributes;
        changed += sanitized.changed;
      }
    }
  }
  for (const link of span.links) {
    if (!link.attributes) continue;
    const sanitized = sanitizeAttributes(link.attributes, options);
    if (sanitized.changed > 0) {
      (link as Mutable<typeof link>).attributes = sanitized.attributes as typeof link.attributes;
      changed += sanitized.changed;
    }
  }
  if (typeof span.status.message === 'string') {
    const message = scrubString(span.status.message, options.maxStringLength);
    if (message !== span.status.message) {
      mutable.status = { ...span.status, message };
      changed += 1;
    }
  }
  const name = scrubString(span.name, options.maxStringLength);
  if (name !== span.name) {
    mutable.name = name;
    changed += 1;
  }
  return changed;
}

/**
 * Applies the pure sanitizer to a live SDK span while it is ending, so every
 * processor's `onEnd` and every exporter sees only sanitized data.
 */
import type { Span } from '@opentelemetry/sdk-trace-base';
import type { SanitizeOptions } from '../sanitize/sanitize-attributes.js';
import { sanitizeAttributes } from '../sanitize/sanitize-attributes.js';
import { createNameScrubber, scrubString } from '../sanitize/scrub-string.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** What the span sanitizer needs: the pure options and a memoized scrubber for names. */
export interface SpanSanitizer extends SanitizeOptions {
  /** Scrubs span and event names (low cardinality, so memoized). */
  readonly scrubName: (name: string) => string;
}

/** A {@link SpanSanitizer} for `options`. */
export function createSpanSanitizer(options: SanitizeOptions): SpanSanitizer {
  return { ...options, scrubName: createNameScrubber(options.maxStringLength) };
}

/**
 * Sanitizes `span` in place: attributes, event names and attributes (with
 * `exception.message` and `exception.stacktrace`), link attributes, the status
 * message and the span name. Returns how many values were removed or changed.
 */
export function sanitizeSpanInPlace(span: Span, options: SpanSanitizer): number {
  const mutable = span as unknown as Mutable<Span>;
  let changed = 0;
  const attributes = sanitizeAttributes(span.attributes, options);
  if (attributes.changed > 0) {
    // A fresh object rather than `delete` on the span's own: deleting keys
    // drops V8 into dictionary mode and slows every later read, export included.
    mutable.attributes = attributes.attributes as Span['attributes'];
    changed += attributes.changed;
  }
  for (const event of span.events) {
    const e = event as Mutable<typeof event>;
    const name = options.scrubName(e.name);
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
  const name = options.scrubName(span.name);
  if (name !== span.name) {
    mutable.name = name;
    changed += 1;
  }
  return changed;
}

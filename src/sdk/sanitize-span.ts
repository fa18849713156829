/**
 * Applies the pure sanitizer to a live SDK span while it is ending, so every
 * processor's `onEnd` and every exporter sees only sanitized data.
 */
import type { Span } from '@opentelemetry/sdk-trace-base';
import type { ChangeTally, SanitizeOptions } from '../sanitize/sanitize-attributes.js';
import { createKeyAction, sanitizeAttributeMap } from '../sanitize/sanitize-attributes.js';
import { createNameScrubber, scrubString } from '../sanitize/scrub-string.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** What the span sanitizer needs: the pure options with memoized key and name decisions. */
export interface SpanSanitizer extends SanitizeOptions {
  /** Scrubs span and event names (low cardinality, so memoized). */
  readonly scrubName: (name: string) => string;
}

/** A {@link SpanSanitizer} for `options`. */
export function createSpanSanitizer(options: SanitizeOptions): SpanSanitizer {
  return {
    maxStringLength: options.maxStringLength,
    keepKeys: options.keepKeys,
    keyAction: options.keyAction ?? createKeyAction(options.keepKeys),
    scrubName: createNameScrubber(options.maxStringLength),
  };
}

/**
 * Sanitizes `span` in place: attributes, event names and attributes (with
 * `exception.message` and `exception.stacktrace`), link attributes, the status
 * message and the span name. Returns how many values were removed or changed.
 */
export function sanitizeSpanInPlace(span: Span, options: SpanSanitizer): number {
  const mutable = span as unknown as Mutable<Span>;
  const tally: ChangeTally = { changed: 0 };
  const attributes = sanitizeAttributeMap(span.attributes, options, tally);
  // A fresh object rather than `delete` on the span's own: deleting keys drops
  // V8 into dictionary mode and slows every later read, export included.
  if (attributes !== span.attributes) mutable.attributes = attributes as Span['attributes'];
  for (const event of span.events) {
    const e = event as Mutable<typeof event>;
    const name = options.scrubName(e.name);
    if (name !== e.name) {
      e.name = name;
      tally.changed += 1;
    }
    if (e.attributes) e.attributes = sanitizeAttributeMap(e.attributes, options, tally) as typeof e.attributes;
  }
  for (const link of span.links) {
    if (link.attributes) (link as Mutable<typeof link>).attributes = sanitizeAttributeMap(link.attributes, options, tally) as typeof link.attributes;
  }
  if (typeof span.status.message === 'string') {
    const message = scrubString(span.status.message, options.maxStringLength);
    if (message !== span.status.message) {
      mutable.status = { code: span.status.code, message };
      tally.changed += 1;
    }
  }
  const name = options.scrubName(span.name);
  if (name !== span.name) {
    mutable.name = name;
    tally.changed += 1;
  }
  return tally.changed;
}

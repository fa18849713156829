/**
 * Writing the verdict's attributes into an ending SDK span, past its attribute
 * count limit and without turning its map into a slow dictionary.
 */
import type { SdkSpan } from './sdk-span.js';

/** Attributes a verdict writes on its span, and a key it removes. */
export interface WrittenAttributes {
  readonly set: Record<string, unknown>;
  readonly remove?: string;
}

/**
 * Writes attributes into the ending span (and removes `remove`). Incident keys
 * must survive the span's attribute count limit (new keys past it are silently
 * dropped by `setAttribute`), so they bypass it; they are few and bounded. The
 * span gets a new map rather than keys added one by one or deleted: past about
 * a dozen keys added that way, or after a `delete`, V8 makes the map a slow
 * dictionary, which the exporter then reads.
 */
export function writeAttributes(span: SdkSpan, attributes: Record<string, unknown>, remove?: string): void {
  let current = span.attributes as Record<string, unknown>;
  if (remove !== undefined && Object.hasOwn(current, remove)) {
    // eslint-disable-next-line @typescript-eslint/no-unused-vars -- the rest pattern is how the key is left out
    const { [remove]: _removed, ...rest } = current;
    current = rest;
  }
  (span as { attributes: Record<string, unknown> }).attributes = { ...current, ...attributes };
}

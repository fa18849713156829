/**
 * Sanitizes one attribute map: content keys removed, every string (and string
 * array member) scrubbed. Pure; returns the same object when nothing changed so
 * the hot path allocates nothing for clean spans.
 */
import { isContentKey } from './content-keys.js';
import { DEFAULT_MAX_STRING_LENGTH, scrubString } from './scrub-string.js';

/** An attribute map as spans hold it. */
export type Attributes = Record<string, unknown>;

/** Options of the sanitizer. */
export interface SanitizeOptions {
  /**
   * Length past which a string value is cut.
   * @default 512
   */
  readonly maxStringLength: number;
  /** Keys never scrubbed (our own closed-enum keys, ids). */
  readonly keepKeys?: ReadonlySet<string>;
}

/** The default {@link SanitizeOptions}. */
export const DEFAULT_SANITIZE_OPTIONS: SanitizeOptions = { maxStringLength: DEFAULT_MAX_STRING_LENGTH };

/** A sanitized attribute map and how many values were removed or changed. */
export interface SanitizedAttributes {
  readonly attributes: Attributes;
  readonly changed: number;
}

function scrubValue(value: unknown, maxLength: number): unknown {
  if (typeof value === 'string') return scrubString(value, maxLength);
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const next = typeof item === 'string' ? scrubString(item, maxLength) : item;
      if (next !== item) changed = true;
      return next;
    });
    return changed ? out : value;
  }
  return value;
}

/** Sanitizes `attributes` (see module doc). Total for any input object. */
export function sanitizeAttributes(attributes: Attributes | undefined, options: SanitizeOptions = DEFAULT_SANITIZE_OPTIONS): SanitizedAttributes {
  if (!attributes) return { attributes: {}, changed: 0 };
  let out: Attributes | undefined;
  let changed = 0;
  for (const key of Object.keys(attributes)) {
    const value = attributes[key];
    if (isContentKey(key)) {
      out ??= { ...attributes };
      delete out[key];
      changed += 1;
      continue;
    }
    if (options.keepKeys?.has(key)) continue;
    const next = scrubValue(value, options.maxStringLength);
    if (next !== value) {
      out ??= { ...attributes };
      out[key] = next;
      changed += 1;
    }
  }
  return { attributes: out ?? attributes, changed };
}

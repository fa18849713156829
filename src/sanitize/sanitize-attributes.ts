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

// Short values (model and provider names, enum values, tool names) repeat on
// every span; remember their scrubbed form per length limit.
const MEMO_MAX_VALUE_LENGTH = 96;
const MEMO_CAPACITY = 8192;
const memo = new Map<string, string>();
let memoLimit = -1;

function scrub(value: string, maxLength: number): string {
  if (value.length > MEMO_MAX_VALUE_LENGTH) return scrubString(value, maxLength);
  if (memoLimit !== maxLength) {
    memo.clear();
    memoLimit = maxLength;
  }
  let known = memo.get(value);
  if (known === undefined) {
    known = scrubString(value, maxLength);
    if (memo.size >= MEMO_CAPACITY) memo.clear();
    memo.set(value, known);
  }
  return known;
}

function scrubValue(value: unknown, maxLength: number): unknown {
  if (typeof value === 'string') return scrub(value, maxLength);
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const next = typeof item === 'string' ? scrub(item, maxLength) : item;
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
  // Built only once something changes, by adding keys (never `delete`, which
  // would leave a slow dictionary-mode object for the exporter to read).
  let out: Attributes | undefined;
  let changed = 0;
  const keys = Object.keys(attributes);
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i] as string;
    const value = attributes[key];
    const removed = isContentKey(key);
    const next = removed || options.keepKeys?.has(key) ? value : scrubValue(value, options.maxStringLength);
    if (out === undefined && (removed || next !== value)) {
      out = {};
      for (let j = 0; j < i; j += 1) out[keys[j] as string] = attributes[keys[j] as string];
    }
    if (removed || next !== value) changed += 1;
    if (out !== undefined && !removed) out[key] = next;
  }
  return { attributes: out ?? attributes, changed };
}

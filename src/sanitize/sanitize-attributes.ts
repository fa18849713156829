/**
 * Sanitizes one attribute map: content keys removed, every string (and string
 * array member) scrubbed. Pure; returns the same object when nothing changed so
 * the hot path allocates nothing for clean spans.
 */
import { isContentKey } from './content-keys.js';
import { DEFAULT_MAX_STRING_LENGTH, scrubString } from './scrub-string.js';

/** An attribute map as spans hold it. */
export type Attributes = Record<string, unknown>;

/** What to do with an attribute key: 0 remove (content), 1 keep as is, 2 scrub its value. */
export type KeyAction = 0 | 1 | 2;

/** Options of the sanitizer. */
export interface SanitizeOptions {
  /**
   * Length past which a string value is cut.
   * @default 512
   */
  readonly maxStringLength: number;
  /** Keys never scrubbed (our own closed-enum keys, ids). */
  readonly keepKeys?: ReadonlySet<string>;
  /**
   * Decides a key's {@link KeyAction}; a hot path passes a memoized one.
   * @default content keys are removed, `keepKeys` kept, the rest scrubbed
   */
  readonly keyAction?: (key: string) => KeyAction;
}

/** The default {@link SanitizeOptions}. */
export const DEFAULT_SANITIZE_OPTIONS: SanitizeOptions = { maxStringLength: DEFAULT_MAX_STRING_LENGTH };

/** A sanitized attribute map and how many values were removed or changed. */
export interface SanitizedAttributes {
  readonly attributes: Attributes;
  readonly changed: number;
}

/** The {@link KeyAction} of `key` under `options`, computed without a memo. */
export function keyActionOf(key: string, keepKeys: ReadonlySet<string> | undefined): KeyAction {
  if (isContentKey(key)) return 0;
  return keepKeys?.has(key) ? 1 : 2;
}

/** A memoized `keyAction` for one set of kept keys (attribute keys are few and repeat). */
export function createKeyAction(keepKeys: ReadonlySet<string> | undefined, capacity = 4096): (key: string) => KeyAction {
  const memo = new Map<string, KeyAction>();
  return (key) => {
    let action = memo.get(key);
    if (action === undefined) {
      action = keyActionOf(key, keepKeys);
      if (memo.size >= capacity) memo.clear();
      memo.set(key, action);
    }
    return action;
  };
}

// Short values that are not identifier-like (model names with spaces, tool
// names with slashes) repeat on every span; remember their scrubbed form.
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
  if (typeof value === 'string') return value.length < 20 ? scrubString(value, maxLength) : scrub(value, maxLength);
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i += 1) {
      const item: unknown = value[i];
      const next = typeof item === 'string' ? scrub(item, maxLength) : item;
      if (next !== item) out ??= value.slice();
      if (out) out[i] = next;
    }
    return out ?? value;
  }
  return value;
}

/** Counts changes across calls without allocating a result per call. */
export interface ChangeTally {
  changed: number;
}

/**
 * Sanitizes `attributes` and adds the number of removed or changed values to
 * `tally`. Returns `attributes` itself when nothing changed. Total for any
 * input object.
 */
export function sanitizeAttributeMap(attributes: Attributes, options: SanitizeOptions, tally: ChangeTally): Attributes {
  // Built only once something changes, by adding keys (never `delete`, which
  // would leave a slow dictionary-mode object for the exporter to read).
  let out: Attributes | undefined;
  const keys = Object.keys(attributes);
  const { keyAction, keepKeys, maxStringLength } = options;
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i] as string;
    const value = attributes[key];
    const action = keyAction ? keyAction(key) : keyActionOf(key, keepKeys);
    const next = action === 2 ? scrubValue(value, maxStringLength) : value;
    const changed = action === 0 || next !== value;
    if (changed) {
      tally.changed += 1;
      if (out === undefined) {
        out = {};
        for (let j = 0; j < i; j += 1) out[keys[j] as string] = attributes[keys[j] as string];
      }
    }
    if (out !== undefined && action !== 0) out[key] = next;
  }
  return out ?? attributes;
}

/** Sanitizes `attributes` (see module doc). Total for any input object. */
export function sanitizeAttributes(attributes: Attributes | undefined, options: SanitizeOptions = DEFAULT_SANITIZE_OPTIONS): SanitizedAttributes {
  if (!attributes) return { attributes: {}, changed: 0 };
  const tally = { changed: 0 };
  return { attributes: sanitizeAttributeMap(attributes, options, tally), changed: tally.changed };
}

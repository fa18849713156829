/**
 * The sanitizer: decides, per attribute key, whether a value is removed, kept
 * or scrubbed (by mode and the user's key lists), and scrubs attribute maps.
 * Pure, so every edge (the SDK processor today) uses the same one.
 */
import { isContentKey } from './content-keys.js';
import { isOperationalKey } from './operational-keys.js';
import type { RedactionKind, ValueRule } from './rules.js';
import type { RedactionTally, Scrubber } from './scrubber.js';
import { countRedaction, createScrubber } from './scrubber.js';

/** How much of a span may leave the process. */
export type SanitizationMode = 'standard' | 'strict' | 'off';

/** Sanitization options, as users give them. Every field is optional. */
export interface SanitizationOptions {
  /**
   * `standard` removes content keys of every supported convention and scrubs
   * every other string; `strict` keeps only operational keys (and `allowKeys`),
   * scrubbed; `off` exports everything as it is (logged once).
   * @default 'standard'
   */
  readonly mode?: SanitizationMode;
  /** Keys kept even when they carry content (standard) or are not operational (strict). Values are still scrubbed. @default [] */
  readonly allowKeys?: readonly string[];
  /** Regular expressions (source text) of keys kept like `allowKeys`. @default [] */
  readonly allowKeyPatterns?: readonly string[];
  /** Keys always removed. @default [] */
  readonly blockKeys?: readonly string[];
  /** Regular expressions (source text) of keys always removed. @default [] */
  readonly blockKeyPatterns?: readonly string[];
  /** Extra value patterns (regular expression source), each replaced by `[redacted:<kind>]`. @default [] */
  readonly valuePatterns?: readonly { readonly pattern: string; readonly kind?: string }[];
  /** Hash redacted values with this HMAC key instead of a bare marker (`[redacted:secret:<hmac>]`). @default unset */
  readonly hashKey?: string;
  /** Length past which free text is cut. @default 512 */
  readonly maxStringLength?: number;
  /** Length past which a stack trace (frames stripped of directories) is cut. @default 2048 */
  readonly maxStackTraceLength?: number;
}

/** What happens to a key: removed (with the kind counted), kept as is, or kept and scrubbed. */
export type KeyDecision = { readonly action: 'remove'; readonly kind: RedactionKind } | { readonly action: 'keep' } | { readonly action: 'scrub' };

/** A configured sanitizer. */
export interface Sanitizer {
  readonly mode: SanitizationMode;
  /** The decision for an attribute key (memoized). */
  decide(key: string): KeyDecision;
  /** Scrubs free text (status messages, names, values). */
  readonly scrub: Scrubber['scrub'];
  /** Reduces and scrubs a stack trace. */
  readonly scrubStackTrace: Scrubber['scrubStackTrace'];
}

const REMOVE_CONTENT: KeyDecision = { action: 'remove', kind: 'content_key' };
const REMOVE_BLOCKED: KeyDecision = { action: 'remove', kind: 'blocked_key' };
const REMOVE_NOT_ALLOWED: KeyDecision = { action: 'remove', kind: 'not_allowed' };
const KEEP: KeyDecision = { action: 'keep' };
const SCRUB: KeyDecision = { action: 'scrub' };
const MEMO_CAPACITY = 4096;

function compile(source: string, what: string): RegExp {
  try {
    return new RegExp(source);
  } catch (error) {
    throw new TypeError(`invalid ${what} ${JSON.stringify(source)}: ${(error as Error).message}`);
  }
}

/** Builds a {@link Sanitizer}; throws a `TypeError` naming a pattern that does not compile. */
export function createSanitizer(options: SanitizationOptions = {}): Sanitizer {
  const mode = options.mode ?? 'standard';
  const allow = new Set(options.allowKeys ?? []);
  const block = new Set(options.blockKeys ?? []);
  const allowPatterns = (options.allowKeyPatterns ?? []).map((p) => compile(p, 'allowKeyPatterns entry'));
  const blockPatterns = (options.blockKeyPatterns ?? []).map((p) => compile(p, 'blockKeyPatterns entry'));
  const extraRules: ValueRule[] = (options.valuePatterns ?? []).map(({ pattern, kind }) => {
    const compiled = compile(pattern, 'valuePatterns pattern');
    // A pattern that matches nothing at all would put a marker between every two characters.
    if (compiled.test('')) throw new TypeError(`invalid valuePatterns pattern ${JSON.stringify(pattern)}: it matches the empty string`);
    return { kind: kind ?? 'custom', trigger: new RegExp(compiled.source, compiled.flags), pattern: new RegExp(compiled.source, 'g') };
  });
  const scrubber = createScrubber({
    maxStringLength: options.maxStringLength,
    maxStackTraceLength: options.maxStackTraceLength,
    extraRules,
    hashKey: options.hashKey,
  });
  const memo = new Map<string, KeyDecision>();

  function decideUncached(key: string): KeyDecision {
    // Even our own keys are scrubbed, not trusted: an input span can carry an
    // `incident.*` key with any value. Closed values pass the fast path.
    if (mode === 'off') return KEEP;
    if (block.has(key) || blockPatterns.some((p) => p.test(key))) return REMOVE_BLOCKED;
    if (allow.has(key) || allowPatterns.some((p) => p.test(key))) return SCRUB;
    if (mode === 'strict') return isOperationalKey(key) ? SCRUB : REMOVE_NOT_ALLOWED;
    return isContentKey(key) ? REMOVE_CONTENT : SCRUB;
  }

  return {
    mode,
    decide(key) {
      let decision = memo.get(key);
      if (decision === undefined) {
        decision = decideUncached(key);
        if (memo.size >= MEMO_CAPACITY) memo.clear();
        memo.set(key, decision);
      }
      return decision;
    },
    scrub: scrubber.scrub,
    scrubStackTrace: scrubber.scrubStackTrace,
  };
}

/** An attribute map as spans hold it. */
export type Attributes = Record<string, unknown>;

function isStackTraceKey(key: string): boolean {
  return key.endsWith('stacktrace');
}

function scrubValue(key: string, value: unknown, sanitizer: Sanitizer, tally: RedactionTally): unknown {
  if (typeof value === 'string') return isStackTraceKey(key) ? sanitizer.scrubStackTrace(value, tally) : sanitizer.scrub(value, tally);
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i += 1) {
      const item: unknown = value[i];
      const next = typeof item === 'string' ? sanitizer.scrub(item, tally) : item;
      if (next !== item) out ??= value.slice();
      if (out) out[i] = next;
    }
    return out ?? value;
  }
  return value;
}

/**
 * Sanitizes an attribute map and adds what it removed or changed to `tally`.
 * Returns `attributes` itself when nothing changed, else a new map. Total for
 * any input object.
 */
export function sanitizeAttributeMap(attributes: Attributes, sanitizer: Sanitizer, tally: RedactionTally): Attributes {
  const keys = Object.keys(attributes);
  // Found lazily: most maps have nothing to change, and then nothing is allocated.
  let changes: unknown[] | undefined;
  let removed = 0;
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i] as string;
    const value = attributes[key];
    const decision = sanitizer.decide(key);
    let next = value;
    if (decision.action === 'remove') {
      countRedaction(tally, decision.kind);
      next = REMOVED;
      removed += 1;
    } else if (decision.action === 'scrub') next = scrubValue(key, value, sanitizer, tally);
    if (next === value) continue;
    tally.changed += 1;
    changes ??= keys.map((k) => attributes[k]);
    changes[i] = next;
  }
  if (changes === undefined) return attributes;
  return rebuild(attributes, keys, changes, removed);
}

const REMOVED: unique symbol = Symbol('removed');
/** Keys a map built key by key holds before V8 would make it a dictionary (measured: 16; kept below). */
const SMALL_MAP = 12;

/**
 * A new attribute map of `keys` and `values`, without the removed ones. Built
 * so that V8 keeps it a fast-properties object whatever its size: adding more
 * than about a dozen keys one by one to `{}` turns it into a slow dictionary,
 * and every later reader (the exporter's serializer first) pays for that.
 */
function rebuild(attributes: Attributes, keys: readonly string[], values: readonly unknown[], removed: number): Attributes {
  if (removed === 0) {
    // Overwriting keys a copy already has adds none, so the copy stays fast.
    const out: Attributes = { ...attributes };
    for (let i = 0; i < keys.length; i += 1) {
      const key = keys[i] as string;
      if (out[key] !== values[i]) setOwn(out, key, values[i]);
    }
    return out;
  }
  if (keys.length - removed <= SMALL_MAP) {
    const out: Attributes = {};
    for (let i = 0; i < keys.length; i += 1) {
      if (values[i] !== REMOVED) setOwn(out, keys[i] as string, values[i]);
    }
    return out;
  }
  const entries: [string, unknown][] = new Array(keys.length - removed);
  let at = 0;
  for (let i = 0; i < keys.length; i += 1) {
    if (values[i] !== REMOVED) entries[at++] = [keys[i] as string, values[i]];
  }
  return Object.fromEntries(entries);
}

/** Sets an own key; a `__proto__` key (decoded from a request) stays a key rather than becoming the prototype. */
function setOwn(out: Attributes, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

const DEFAULT_SANITIZER = createSanitizer();

/**
 * Sanitizes `attributes` in `standard` mode (or with the given sanitizer):
 * content keys removed, every string scrubbed. Returns the sanitized map and
 * how many values were removed or changed.
 */
export function sanitizeAttributes(
  attributes: Attributes | undefined,
  sanitizer: Sanitizer = DEFAULT_SANITIZER,
): { readonly attributes: Attributes; readonly changed: number } {
  if (!attributes) return { attributes: {}, changed: 0 };
  const tally = { changed: 0, byKind: new Map<RedactionKind, number>() };
  return { attributes: sanitizeAttributeMap(attributes, sanitizer, tally), changed: tally.changed };
}

/** Scrubs one string with the default `standard` sanitizer, cut to `maxLength` (default 512). */
export function scrubString(value: string, maxLength?: number): string {
  return maxLength === undefined ? DEFAULT_SANITIZER.scrub(value) : createScrubber({ maxStringLength: maxLength }).scrub(value);
}

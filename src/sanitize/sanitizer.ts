/**
 * The sanitizer: decides, per attribute key, whether a value is removed, kept
 * or scrubbed (by mode and the user's key lists), and scrubs attribute maps.
 * Pure, so every edge (the SDK processor today) uses the same one.
 */
import { isContentKey } from './content-keys.js';
import { isCredentialKey, isCredentialName } from './credential-keys.js';
import {
  credentialName,
  isIdentifierName,
  isLoginCommand,
  isPasswordLetterFlag,
  isPublicName,
  isUserFlag,
  isUserNameFlag,
} from './credential-words.js';
import { isOperationalKey } from './operational-keys.js';
import type { RedactionKind, ValueRule } from './rules.js';
import type { NameRole, RedactionTally, Scrubber } from './scrubber.js';
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

/**
 * What happens to a key: removed (with the kind counted), kept as is, or kept
 * and scrubbed; `named` when the key weakly names a credential (`tls.key`),
 * so a value that looks random is replaced whole.
 */
export type KeyDecision =
  | { readonly action: 'remove'; readonly kind: RedactionKind }
  | { readonly action: 'keep' }
  | { readonly action: 'scrub'; readonly named?: boolean };

/** A configured sanitizer. */
export interface Sanitizer {
  readonly mode: SanitizationMode;
  /** The decision for an attribute key (memoized). */
  decide(key: string): KeyDecision;
  /** Scrubs free text (status messages, names, values). */
  readonly scrub: Scrubber['scrub'];
  /** Reduces and scrubs a stack trace. */
  readonly scrubStackTrace: Scrubber['scrubStackTrace'];
  /** Scrubs the whole value of a name (a flag's argument, a key's value). */
  readonly scrubNamed: Scrubber['scrubNamed'];
}

const REMOVE_CONTENT: KeyDecision = { action: 'remove', kind: 'content_key' };
const REMOVE_BLOCKED: KeyDecision = { action: 'remove', kind: 'blocked_key' };
const REMOVE_NOT_ALLOWED: KeyDecision = { action: 'remove', kind: 'not_allowed' };
const REMOVE_CREDENTIAL: KeyDecision = { action: 'remove', kind: 'credential_key' };
const KEEP: KeyDecision = { action: 'keep' };
const SCRUB: KeyDecision = { action: 'scrub' };
const SCRUB_NAMED: KeyDecision = { action: 'scrub', named: true };
const MEMO_CAPACITY = 4096;

/** Scrubbed; a key that names a credential (`db.password`) or an identifier (`gen_ai.response.id`) judges its value with its name. */
function scrubOf(key: string): KeyDecision {
  return isCredentialName(key) || isIdentifierName(key) || isPublicName(key) ? SCRUB_NAMED : SCRUB;
}

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
    if (compiled.test(''))
      throw new TypeError(`invalid valuePatterns pattern ${JSON.stringify(pattern)}: it matches the empty string`);
    return {
      kind: kind ?? 'custom',
      trigger: new RegExp(compiled.source, compiled.flags),
      pattern: new RegExp(compiled.source, 'g'),
    };
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
    // A header that authenticates is a credential whatever its value: no rule could tell.
    if (isCredentialKey(key)) return REMOVE_CREDENTIAL;
    if (mode === 'strict') return isOperationalKey(key) ? scrubOf(key) : REMOVE_NOT_ALLOWED;
    return isContentKey(key) ? REMOVE_CONTENT : scrubOf(key);
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
    scrubNamed: scrubber.scrubNamed,
  };
}

/** An attribute map as spans hold it. */
export type Attributes = Record<string, unknown>;

function isStackTraceKey(key: string): boolean {
  return key.endsWith('stacktrace');
}

/** Nesting kept in a map-valued attribute (OTLP `kvlistValue`); deeper values are redacted. */
const MAX_NESTING = 8;

/** True for an argv item that is a flag (`-u`, `--api-key`), whose next item is its value. */
function isFlag(item: unknown): item is string {
  return (
    typeof item === 'string' && item.length > 1 && item.length <= 64 && item.charCodeAt(0) === 45 && !item.includes('=')
  );
}

/** What names an argv item: the name, how it names the item, and whether the item is a flag glued to its value (`-pS3cr3t`). */
interface ArgvName {
  readonly name: string;
  readonly role: NameRole;
  readonly glued: boolean;
}

/**
 * The name an argv item is the value of: the flag before it (`--api-key`,
 * `-p`; a password flag when a user flag came earlier), or, for a positional
 * argument, a login subcommand before it (flags between skipped). Undefined
 * when nothing names it. `userAt` is the index of the first flag that gives
 * a user (`-u`, `--username`, `-D`) or of the first login verb, or -1.
 */
function argvNameOf(items: readonly unknown[], index: number, userAt: number): ArgvName | undefined {
  const previous = items[index - 1];
  const item = items[index] as string;
  if (isFlag(previous) && isPasswordLetterFlag(previous) && userAt >= 0 && userAt < index - 1)
    return { name: previous, role: 'password', glued: false };
  if (isFlag(previous) && (previous.length === 2 || isUserFlag(previous) || credentialName(previous) !== 'none'))
    return { name: previous, role: 'key', glued: false };
  // `mysql -u app -pS3cr3t` as argv: a password flag glued to its value.
  if (item.length > 2 && userAt >= 0 && userAt < index && isPasswordLetterFlag(item.slice(0, 2)))
    return { name: item.slice(0, 2), role: 'password', glued: true };
  // Another glued one-letter flag is judged as text; a flag names nothing after a subcommand.
  if (isFlag(item)) return undefined;
  for (let i = index - 1; i >= 0 && i >= index - 4; i -= 1) {
    const before = items[i];
    // Flags between the subcommand and its argument (`--relogin`, `-method=token`) are skipped.
    if (typeof before === 'string' && before.charCodeAt(0) === 45) continue;
    return typeof before === 'string' && isLoginCommand(before)
      ? { name: before, role: 'subcommand', glued: false }
      : undefined;
  }
  return undefined;
}

function scrubValue(
  key: string,
  value: unknown,
  sanitizer: Sanitizer,
  tally: RedactionTally,
  depth: number,
  named = false,
): unknown {
  if (typeof value === 'string') {
    if (isStackTraceKey(key)) return sanitizer.scrubStackTrace(value, tally);
    return named ? sanitizer.scrubNamed(key, value, tally) : sanitizer.scrub(value, tally);
  }
  if (
    value === null ||
    value === undefined ||
    typeof value === 'number' ||
    typeof value === 'boolean' ||
    typeof value === 'bigint'
  )
    return value;
  // A boxed Number is a double that must stay one on the wire (`3.0`, `-0`, `NaN`): a number, nothing to scrub.
  if (value instanceof Number) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    let userAt = -1;
    for (let i = 0; i < value.length; i += 1) {
      const item: unknown = value[i];
      // An argv array (`process.command_args`) holds a flag and its value as separate items: the flag names the value.
      const argvName = typeof item === 'string' && i > 0 ? argvNameOf(value, i, userAt) : undefined;
      // A login verb says as much as a user flag: a password letter flag after it gives a password (`docker login -p …`).
      if (userAt < 0 && typeof item === 'string' && (isUserNameFlag(item) || isLoginCommand(item))) userAt = i;
      const next =
        typeof item === 'string'
          ? argvName !== undefined
            ? argvName.glued
              ? `${argvName.name}${sanitizer.scrubNamed(argvName.name, item.slice(2), tally, argvName.role)}`
              : sanitizer.scrubNamed(argvName.name, item, tally, argvName.role)
            : named
              ? sanitizer.scrubNamed(key, item, tally)
              : sanitizer.scrub(item, tally)
          : scrubValue(key, item, sanitizer, tally, depth + 1);
      if (next !== item) out ??= value.slice();
      if (out) out[i] = next;
    }
    return out ?? value;
  }
  // Bytes (OTLP `bytesValue`) may hold text: scrubbed as UTF-8, kept as bytes.
  if (value instanceof Uint8Array) {
    const text = UTF8.decode(value);
    const scrubbed = sanitizer.scrub(text, tally);
    return scrubbed === text ? value : new TextEncoder().encode(scrubbed);
  }
  // A map (OTLP `kvlistValue`): its keys are decided and its values scrubbed like any other map's.
  if (typeof value === 'object' && depth < MAX_NESTING && Object.getPrototypeOf(value) === Object.prototype) {
    return sanitizeMapAt(value as Attributes, sanitizer, tally, depth + 1);
  }
  // Functions, symbols, class instances, too deep: nothing here can be shown to hold no text.
  throw new TypeError('unsanitizable value');
}

const UTF8 = new TextDecoder('utf-8', { fatal: false });

/**
 * Sanitizes an attribute map and adds what it removed or changed to `tally`.
 * Returns `attributes` itself when nothing changed, else a new map. Total for
 * any input object.
 */
export function sanitizeAttributeMap(attributes: Attributes, sanitizer: Sanitizer, tally: RedactionTally): Attributes {
  return sanitizeMapAt(attributes, sanitizer, tally, 0);
}

/** What replaces a value (or a field) that could not be sanitized: docs/sanitization.md, "Fields that cannot be sanitized". */
export const UNSANITIZABLE = '[redacted:unsanitizable]';

function sanitizeMapAt(attributes: Attributes, sanitizer: Sanitizer, tally: RedactionTally, depth: number): Attributes {
  const keys = Object.keys(attributes);
  // Every value is read once, here: a getter must not give a scrubbed value
  // to the rules and another one to the exporter.
  const values = valuesOf(attributes, keys);
  let changed = false;
  let removed = 0;
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i] as string;
    const value = values[i];
    const decision = sanitizer.decide(key);
    let next: unknown = value;
    if (decision.action === 'remove') {
      countRedaction(tally, decision.kind);
      next = REMOVED;
      removed += 1;
    } else if (value === READ_FAILED) {
      countRedaction(tally, 'unsanitizable');
      next = UNSANITIZABLE;
    } else if (decision.action === 'scrub') {
      // Each value on its own: one that cannot be scrubbed is replaced, never passed on.
      try {
        next = scrubValue(key, value, sanitizer, tally, depth, decision.named === true);
      } catch {
        countRedaction(tally, 'unsanitizable');
        next = UNSANITIZABLE;
      }
    }
    if (next === value) continue;
    tally.changed += 1;
    values[i] = next;
    changed = true;
  }
  return changed ? rebuild(attributes, keys, values, removed) : attributes;
}

/** A value whose read threw (a getter): replaced by the marker unless its key is removed anyway. */
const READ_FAILED: unique symbol = Symbol('read failed');

/** The values of `keys`, read once; a read that throws gives {@link READ_FAILED}. */
function valuesOf(attributes: Attributes, keys: readonly string[]): unknown[] {
  try {
    const values = Object.values(attributes);
    // Own enumerable string keys, in the same order: the common case.
    if (values.length === keys.length) return values;
  } catch {
    // A getter threw: read them one by one below.
  }
  return keys.map((key) => {
    try {
      return attributes[key];
    } catch {
      return READ_FAILED;
    }
  });
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
function rebuild(
  attributes: Attributes,
  keys: readonly string[],
  values: readonly unknown[],
  removed: number,
): Attributes {
  if (removed === 0) {
    // Overwriting keys a copy already has adds none, so the copy stays fast.
    // Every key is set from the values read once (a getter's second answer is overwritten).
    let out: Attributes;
    try {
      out = { ...attributes };
    } catch {
      return fromEntries(keys, values);
    }
    for (let i = 0; i < keys.length; i += 1) setOwn(out, keys[i] as string, values[i]);
    return out;
  }
  if (keys.length - removed <= SMALL_MAP) {
    const out: Attributes = {};
    for (let i = 0; i < keys.length; i += 1) {
      if (values[i] !== REMOVED) setOwn(out, keys[i] as string, values[i]);
    }
    return out;
  }
  return fromEntries(keys, values);
}

function fromEntries(keys: readonly string[], values: readonly unknown[]): Attributes {
  const entries: [string, unknown][] = [];
  for (let i = 0; i < keys.length; i += 1) {
    if (values[i] !== REMOVED) entries.push([keys[i] as string, values[i]]);
  }
  return Object.fromEntries(entries);
}

/** Sets an own key; a `__proto__` key (decoded from a request) stays a key rather than becoming the prototype. */
function setOwn(out: Attributes, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
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
  return maxLength === undefined
    ? DEFAULT_SANITIZER.scrub(value)
    : createScrubber({ maxStringLength: maxLength }).scrub(value);
}

/**
 * The walk over an attribute map: each key decided by the sanitizer, each
 * kept value scrubbed by its type (strings, argv arrays, bytes, nested maps),
 * each value read once by the walk that rebuilds the map (a value is exported
 * as it was decided), and anything that cannot be shown to hold no text
 * replaced by a marker (docs/sanitization.md, "Fields that cannot be
 * sanitized"). A clean map is proven clean without allocating and returned as
 * it is; the map is rebuilt only when something changed, in a shape V8 keeps
 * fast.
 */
import { argvNameOf } from './argv-names.js';
import { isLoginCommand, isUserNameFlag } from './login-words.js';
import type { Sanitizer } from './sanitizer-types.js';
import type { RedactionTally } from './scrubber.js';
import { countRedaction } from './scrubber.js';
/** An attribute map as spans hold it. */
export type Attributes = Record<string, unknown>;

function isStackTraceKey(key: string): boolean {
  return key.endsWith('stacktrace');
}

/** Nesting kept in a map-valued attribute (OTLP `kvlistValue`); deeper values are redacted. */
const MAX_NESTING = 8;

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
  // Most maps are clean: proven so without allocating, they are returned as they are.
  if (isClean(attributes, sanitizer, depth)) return attributes;
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

/**
 * Whether every value of the map is kept as it is: no key removed, every value
 * scrubbed to itself. Reads each value once and allocates nothing; anything
 * it cannot show clean (a change, a read or scrub that throws, a value that is
 * not a primitive or an array of primitives) answers false, and the full walk
 * below reads and decides the map again from the start, as if this had not
 * run. A clean answer counts nothing (scrubbing a value to itself counts nothing).
 */
function isClean(attributes: Attributes, sanitizer: Sanitizer, depth: number): boolean {
  const probe = CLEAN_PROBE;
  probe.changed = 0;
  try {
    for (const key in attributes) {
      if (!Object.hasOwn(attributes, key)) continue;
      const decision = sanitizer.decide(key);
      if (decision.action === 'remove') return false;
      if (decision.action === 'keep') continue;
      const value: unknown = attributes[key];
      if (typeof value === 'string' || Array.isArray(value)) {
        // An argv array names its items: scrubValue reads it whole. A finding that changed nothing still counts.
        if (scrubValue(key, value, sanitizer, probe, depth, decision.named === true) !== value) return false;
        if (probe.changed !== 0 || probe.byKind.size !== 0) return false;
      } else if (!(value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean')) {
        return false;
      }
    }
  } catch {
    return false;
  } finally {
    probe.byKind.clear();
  }
  return true;
}

/** A tally for {@link isClean} to pass to the rules; what it counts is thrown away (the full walk counts). */
const CLEAN_PROBE: RedactionTally = { changed: 0, byKind: new Map() };

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

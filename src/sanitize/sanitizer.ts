/**
 * The sanitizer: decides, per attribute key, whether a value is removed, kept
 * or scrubbed (by mode and the user's key lists), and scrubs attribute maps.
 * Pure, so every edge (the SDK processor today) uses the same one. The walk
 * over a map is attribute-map.ts and the types are sanitizer-types.ts; both
 * are re-exported here, the sanitizer's one import path.
 */
import { sanitizeAttributeMap } from './attribute-map.js';
import type { Attributes } from './attribute-map.js';
import { isContentKey } from './content-keys.js';
import { isCredentialKey, isCredentialName } from './credential-keys.js';
import { isOperationalKey } from './operational-keys.js';
import { isIdentifierName, isPublicName } from './public-names.js';
import type { RedactionKind, ValueRule } from './rules.js';
import type { KeyDecision, SanitizationOptions, Sanitizer } from './sanitizer-types.js';
import { createScrubber } from './scrubber.js';

export type { Attributes } from './attribute-map.js';
export { sanitizeAttributeMap, UNSANITIZABLE } from './attribute-map.js';
export type { KeyDecision, SanitizationMode, SanitizationOptions, Sanitizer } from './sanitizer-types.js';
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

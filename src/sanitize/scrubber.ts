/**
 * A string scrubber: replaces every value-rule match with a fixed marker
 * (`[redacted:<kind>]`, or `[redacted:<kind>:<hmac>]` when a hash key is set),
 * shortens stack traces to their frames, and cuts long text. Pure computation.
 */
import { createHmac } from 'node:crypto';
import type { RedactionKind, ValueRule } from './rules.js';
import { credentialName } from './credential-words.js';
import { isUserFlag } from './login-words.js';
import { isIdentifierName, isPublicName } from './public-names.js';
import { redactCutSecret } from './cut-secret.js';
import { isPasswordValue, isSecretValue } from './named-value.js';
import { isLoginArgumentValue, isNamedSecretShape } from './random-value.js';
import { BUILT_IN_RULES } from './rules.js';
import { reduceFrames } from './stack-frames.js';

/** Counts of what was removed or changed, by kind; shared across one span. */
export interface RedactionTally {
  /** Values removed or changed. */
  changed: number;
  /** Findings by kind (a value can hold several). */
  readonly byKind: Map<RedactionKind, number>;
}

/** A new, empty {@link RedactionTally}. */
export function createTally(): RedactionTally {
  return { changed: 0, byKind: new Map() };
}

/** Adds one finding of `kind` to `tally`. */
export function countRedaction(tally: RedactionTally | undefined, kind: RedactionKind, n = 1): void {
  if (tally) tally.byKind.set(kind, (tally.byKind.get(kind) ?? 0) + n);
}

/** Options of {@link createScrubber}. */
export interface ScrubberOptions {
  /**
   * Length past which free text is cut.
   * @default 512
   */
  readonly maxStringLength?: number;
  /**
   * Length past which a stack trace (after reduction to its frames) is cut.
   * @default 2048
   */
  readonly maxStackTraceLength?: number;
  /** Rules added to the built-in ones, applied after them. */
  readonly extraRules?: readonly ValueRule[];
  /**
   * When set, markers carry an HMAC-SHA256 prefix of the redacted text keyed
   * by this value, so equal secrets can be correlated without being revealed.
   * @default unset (fixed markers)
   */
  readonly hashKey?: string;
}

/**
 * How a name names the value after it: `key`, an attribute key or a flag
 * (`--api-key`); `subcommand`, a login subcommand before its positional
 * argument (`snyk auth <token>`); `password`, a password flag after a user
 * flag in the same command (`mysql -u app -p <password>`).
 */
export type NameRole = 'key' | 'subcommand' | 'password';

/** A configured scrubber. */
export interface Scrubber {
  /** Scrubs free text and cuts it to the string limit. */
  scrub(value: string, tally?: RedactionTally): string;
  /** Strips directories from stack frames, drops Python source lines, scrubs and cuts the trace. */
  scrubStackTrace(value: string, tally?: RedactionTally): string;
  /**
   * Scrubs `value` as the whole value of `name`: an argv item after the flag
   * before it (`--api-key`, then the key), an attribute value under its key.
   * A value that is a secret by its name (docs/sanitization.md, "The
   * catch-all") is replaced whole; otherwise it is scrubbed like free text.
   * `role` says how `name` names the value (see {@link NameRole}); default `'key'`.
   */
  scrubNamed(name: string, value: string, tally?: RedactionTally, role?: NameRole): string;
}

/**
 * True for a short identifier-like string (an enum value, an id, a model name),
 * which cannot hold any built-in shape: those need a space, `@`, `/`, `:` or
 * `=`, or at least 15 characters with a dash (`xoxb-…`) or 20 without
 * (`AKIA…`). A loop rather than a regular expression: it runs on most values
 * of every span, and the regex engine's entry cost dominated it.
 */
function tooShortForASecret(value: string): boolean {
  if (value.length >= 20) return false;
  let dash = false;
  for (let i = 0; i < value.length; i += 1) {
    const c = value.charCodeAt(i);
    // 0-9, A-Z, a-z, `_`, `.`
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46) continue;
    if (c !== 45) return false;
    dash = true;
  }
  return !dash || value.length < 15;
}
const MEMO_MAX_VALUE_LENGTH = 96;
const MEMO_CAPACITY = 8192;
/** Stack traces remembered, the oldest forgotten first: a few failure sites repeat. */
const STACK_MEMO_CAPACITY = 64;
/** Longer traces are not remembered: hostile input must not pin megabytes. */
const STACK_MEMO_MAX_LENGTH = 16_384;

const IDENTIFIER = { identifier: true } as const;

/** True when `value` holds no whitespace: one identifier, digest or key, not text. */
function isOneToken(value: string): boolean {
  for (let i = 0; i < value.length; i += 1) if (value.charCodeAt(i) <= 32) return false;
  return true;
}

/** A login subcommand's argument (`snyk auth`, `wandb login`) is a credential when it looks random, hex included. */
function isLoginArgument(value: string): boolean {
  return isOneToken(value) && isLoginArgumentValue(value);
}

/** A credential name's strength; a one-letter flag (`-p`, `-a`) weakly names its value, whatever the letter means. */
function namedStrength(name: string): ReturnType<typeof credentialName> {
  const strength = credentialName(name);
  if (strength !== 'none') return strength;
  return name.length === 2 && name.charCodeAt(0) === 45 ? 'weak' : 'none';
}

/** Creates a {@link Scrubber}; extra rules are validated by the caller. */
export function createScrubber(options: ScrubberOptions = {}): Scrubber {
  const maxLength = options.maxStringLength ?? 512;
  const maxStack = options.maxStackTraceLength ?? 2048;
  const extraRules = options.extraRules ?? [];
  const rules = [...BUILT_IN_RULES, ...extraRules];
  // The combined pre-check covers the built-in rules only: user patterns may
  // use flags or named groups that do not combine, so they always run.
  const anyTrigger = new RegExp(BUILT_IN_RULES.map((r) => r.trigger.source).join('|'), 'i');
  // The short-identifier fast path holds for the built-in shapes only.
  const fastPath = extraRules.length === 0;
  const hashKey = options.hashKey;
  const memo = new Map<string, { out: string; kinds: RedactionKind[] }>();
  const stackMemo = new Map<string, { out: string; kinds: RedactionKind[] }>();

  const marker = (kind: RedactionKind, text: string): string =>
    hashKey === undefined
      ? `[redacted:${kind}]`
      : `[redacted:${kind}:${createHmac('sha256', hashKey).update(text).digest('hex').slice(0, 12)}]`;

  function applyRules(value: string, kinds: RedactionKind[], options?: { readonly identifier?: boolean }): string {
    const candidates = anyTrigger.test(value) ? rules : extraRules;
    let out = value;
    for (const rule of candidates) {
      if (!rule.trigger.test(out)) continue;
      if ('replace' in rule) {
        out = rule.replace(
          out,
          (match, kind = rule.kind) => {
            kinds.push(kind);
            return marker(kind, match);
          },
          options,
        );
        continue;
      }
      out = out.replace(rule.pattern, (match: string, ...groups: unknown[]) => {
        const kept = rule.keepGroup !== undefined ? String(groups[rule.keepGroup - 1] ?? '') : '';
        if (rule.unless !== undefined) {
          // replace() passes the offset and the whole string after the groups (no named groups in these rules).
          const offset = groups[groups.length - 2] as number;
          const whole = groups[groups.length - 1] as string;
          const after = offset + match.length;
          if (rule.unless(match.slice(kept.length), kept, whole.slice(after, after + 256))) return match;
        }
        kinds.push(rule.kind);
        return kept + marker(rule.kind, match.slice(kept.length));
      });
    }
    return out;
  }

  function redactCut(text: string, kinds: RedactionKind[]): string {
    return redactCutSecret(text, (token) => {
      kinds.push('secret');
      return marker('secret', token);
    });
  }

  /** Scrubs and cuts `value`, pushing the kind of every finding onto `kinds`. */
  function scrubWithin(
    value: string,
    limit: number,
    kinds: RedactionKind[],
    options?: { readonly identifier?: boolean },
  ): string {
    // Scan a bounded window: a 1 MB attribute must not cost a 1 MB regex pass
    // per rule. The window is far larger than what is kept, so a secret cut at
    // its edge can never shift into the kept part.
    const window = Math.max(limit * 8, 16_384);
    let out = applyRules(value.length > window ? value.slice(0, window) : value, kinds, options);
    // A value the SDK cut at its length limit may end in the start of a secret no rule matches.
    if (value.length <= window) out = redactCut(out, kinds);
    if (out.length > limit) {
      out = `${out.slice(0, limit)}…[truncated]`;
      kinds.push('truncated');
    }
    return out;
  }

  function counted(out: string, kinds: readonly RedactionKind[], tally: RedactionTally | undefined): string {
    for (const kind of kinds) countRedaction(tally, kind);
    return out;
  }

  const scrubber: Scrubber = {
    scrub(value, tally) {
      if (fastPath && tooShortForASecret(value)) return value;
      if (value.length > MEMO_MAX_VALUE_LENGTH) {
        const kinds: RedactionKind[] = [];
        return counted(scrubWithin(value, maxLength, kinds), kinds, tally);
      }
      // Short values repeat on every span (model names, tool names): remember them.
      let known = memo.get(value);
      if (known === undefined) {
        const kinds: RedactionKind[] = [];
        known = { out: scrubWithin(value, maxLength, kinds), kinds };
        if (memo.size >= MEMO_CAPACITY) memo.clear();
        memo.set(value, known);
      }
      return counted(known.out, known.kinds, tally);
    },
    scrubNamed(name, value, tally, role = 'key') {
      if (role === 'key' && isUserFlag(name)) {
        // `curl -u user:password` as argv: the password, unless it is a variable.
        const colon = value.indexOf(':');
        if (colon > 0 && colon < value.length - 1 && value.charCodeAt(colon + 1) !== 36) {
          countRedaction(tally, 'credentials');
          return `${scrubber.scrub(value.slice(0, colon + 1), tally)}${marker('credentials', value.slice(colon + 1))}`;
        }
        // `curl -u sk_live_…:`: an API key sent as the user with no password (Stripe, Lob, Mailgun) is the credential.
        if (colon > 0 && colon === value.length - 1 && isNamedSecretShape(value.slice(0, colon), 'strong')) {
          countRedaction(tally, 'credentials');
          return `${marker('credentials', value.slice(0, colon))}:`;
        }
      } else if (
        role === 'subcommand'
          ? isLoginArgument(value)
          : role === 'password'
            ? isPasswordValue(value)
            : isSecretValue(namedStrength(name), value)
      ) {
        countRedaction(tally, 'secret');
        return marker('secret', value);
      } else if (
        (isIdentifierName(name) || isPublicName(name)) &&
        !(fastPath && tooShortForASecret(value)) &&
        isOneToken(value)
      ) {
        // An id by its key (`gen_ai.response.id`, `etag`): named secrets and formats are still found, shapes alone are not.
        // Only a single token is an id: text under such a key (a command line, a message) is text.
        const kinds: RedactionKind[] = [];
        return counted(scrubWithin(value, maxLength, kinds, IDENTIFIER), kinds, tally);
      }
      return scrubber.scrub(value, tally);
    },
    scrubStackTrace(value, tally) {
      // The same failure raised at the same place has the same trace: remember the last few.
      const known = stackMemo.get(value);
      if (known !== undefined) return counted(known.out, known.kinds, tally);
      const scrubbed = scrubStack(value);
      if (value.length > STACK_MEMO_MAX_LENGTH) return counted(scrubbed.out, scrubbed.kinds, tally);
      if (stackMemo.size >= STACK_MEMO_CAPACITY) stackMemo.delete(stackMemo.keys().next().value as string);
      stackMemo.set(value, scrubbed);
      return counted(scrubbed.out, scrubbed.kinds, tally);
    },
  };
  return scrubber;

  /** Scrubs a stack trace, then strips directories from frames, drops Python source lines, and cuts it. */
  function scrubStack(value: string): { out: string; kinds: RedactionKind[] } {
    const kinds: RedactionKind[] = [];
    // The rules run first, on the trace as it came: stripping directories
    // first would cut a secret out of its context (a webhook URL in a frame
    // would lose `https://hooks.slack.com/…/` and leave its token as a file name).
    const window = Math.max(maxStack * 8, 16_384);
    let scrubbed = applyRules(value.slice(0, window), kinds);
    if (value.length <= window) scrubbed = redactCut(scrubbed, kinds);
    let out = reduceFrames(scrubbed);
    if (out.length > maxStack) {
      out = `${out.slice(0, maxStack)}…[truncated]`;
      kinds.push('truncated');
    }
    if (out !== value && kinds.length === 0) kinds.push('path');
    return out === value ? { out: value, kinds: [] } : { out, kinds };
  }
}

/**
 * Secrets found by a credential name before them (the catch-all's step 1,
 * docs/sanitization.md "The catch-all"): how strongly a run names a
 * credential, the context it leaves, and where the value after it ends and
 * whether it is a secret, in every form a name takes (`key=value`, `"key":
 * "value"`, `--flag value`, `Header: Scheme value`, SQL's `PASSWORD '…'`).
 */
import type { CredentialName } from './credential-words.js';
import { credentialName, mayNameCredential } from './credential-words.js';
import { isPlaceholder } from './placeholder.js';
import { hasPublicLead } from './public-tokens.js';
import { isIdShapedToken, looksRandomValue } from './random-value.js';
import { caseOf, endsValue, isGapChar, isQuote, isShortWord } from './run-chars.js';
import { isWord } from './word-shape.js';
/** Separator characters between a name and its value before the context is lost. */
export const MAX_GAP = 16;
/** Longest value read after a name: a quoted value with no closing quote within it is read as unquoted. */
export const MAX_VALUE = 256;

/** The context a credential name leaves for the value after it. */
export interface NameContext {
  strength: CredentialName;
  flag: boolean;
  /** Short words skipped since the name (`Bearer`, `is`): at most one. */
  skipped: number;
  /** The name follows a `:` (`…:secret:prod/db` in an ARN): a `:` after it is a path step, not an assignment. */
  colonPath: boolean;
  /** The name is a password's (`password`, `passwd`, `pwd`): a quoted literal after it is one (`PASSWORD 'x'` in SQL). */
  password: boolean;
  /** The name is a login subcommand (`wandb login --relogin <key>`): flags after it are skipped. */
  login: boolean;
  /** The name is a password flag after a user flag on the same line (`-u app -p …`): the value is judged by {@link isPasswordValue}. */
  passwordFlag: boolean;
}

/** A name that ends in a password word (`password`, `passwd`, `pwd`, `DB_PASSWORD_2`). */
export const PASSWORD_NAME = /(?:pass(?:word|wd|phrase)?|pwd)[\d_-]*$/i;

/**
 * A command-line flag made of letters (`--quiet`, `-v`, `--dry-run`,
 * `--noPrompt`): never a value. Flags are words in one case, kebab-case or
 * camel case; mixed-case letters in no such order (`--VtatTDEgomZVQ`) are a
 * value that starts with dashes.
 */
export const FLAG_WORD = /^(?:-[A-Za-z]|--?[a-z]+(?:-[a-z]+)*|--?[a-z]+(?:[A-Z][a-z]+)+|--?[A-Z]+(?:-[A-Z]+)*)$/;

/** A function called where a value would be: identifier words (no digits), a lower-case letter among them, dotted or not. */
const CALLEE = /^(?=[A-Za-z_$.]*[a-z])[A-Za-z_$]+(?:\.[A-Za-z_$]+)*$/;

/** Authorization schemes: the word between a credential name and its value (`Authorization: Bearer …`). */
export const SCHEMES: ReadonlySet<string> = new Set([
  'bearer',
  'basic',
  'token',
  'bot',
  'digest',
  'apikey',
  'api-key',
  'negotiate',
  'hoba',
  'mutual',
  'aws4-hmac-sha256',
  'dpop',
  'gcp',
  'sso-key',
]);

/**
 * How strongly the run `text[start, end)` names a credential. A name written
 * as two words (`API key`, `cache key`, `access token`) is read as one; a
 * shell variable (`$TOKEN`) names nothing here, it stands for the value.
 */
export function nameStrength(
  text: string,
  start: number,
  end: number,
  previousRunStart: number,
  previousEnd: number,
): CredentialName {
  if (end - start > 128 || (end - start !== 2 && !mayNameCredential(text, start, end))) return 'none';
  if (
    start > 0 &&
    (text.charCodeAt(start - 1) === 36 ||
      (text.charCodeAt(start - 1) === 123 && start > 1 && text.charCodeAt(start - 2) === 36))
  )
    return 'none';
  // A one-letter flag (`-p`, `-a`) weakly names the value after it, whatever the letter stands for.
  if (
    end - start === 2 &&
    text.charCodeAt(start) === 45 &&
    caseOf(text.charCodeAt(start + 1)) !== 'other' &&
    (start === 0 || text.charCodeAt(start - 1) <= 32)
  )
    return 'weak';
  const strength = credentialName(text.slice(start, end));
  if (strength === 'none') return 'none';
  // `API key`, `public key`, `page token`: the word before, across one space, qualifies a name of one word.
  if (
    previousRunStart >= 0 &&
    previousEnd === start - 1 &&
    text.charCodeAt(previousEnd) === 32 &&
    previousEnd - previousRunStart <= 24 &&
    isShortWord(text, start, end)
  ) {
    return credentialName(`${text.slice(previousRunStart, previousEnd)}_${text.slice(start, end)}`);
  }
  return strength;
}

/**
 * Judges `value` as the whole value of a name: an argv item after a flag,
 * an attribute value under a key. Strong: a secret unless a placeholder;
 * weak: a secret when it looks random.
 */
export function isSecretValue(strength: CredentialName, value: string): boolean {
  if (strength === 'none') return false;
  const trimmed = value.trim();
  if (isPlaceholder(trimmed)) return false;
  if (strength === 'strong') return trimmed.length >= 4 && !FLAG_WORD.test(trimmed);
  // Weakly named: one token that looks random, is no composite name, no id by its prefix, no hex digest or UUID.
  if (/\s/.test(trimmed)) return false;
  return looksRandomValue(trimmed, 0, trimmed.length, 'weak') && !hasPublicLead(trimmed, 0, trimmed.length);
}

/**
 * Judges the value of a password flag given after a user flag (`-u app -p
 * <value>`): any single token of 6 or more characters with a letter in it,
 * unless it is a flag, a path, a placeholder, or one lower-case word shorter
 * than 12 (`-u sym -pthread`). Passwords need no random look: the flags say
 * what they are.
 */
export function isPasswordValue(value: string): boolean {
  if (value.length < 6 || value.length > MAX_VALUE || FLAG_WORD.test(value) || isPlaceholder(value)) return false;
  let letter = false;
  let notLower = false;
  for (let i = 0; i < value.length; i += 1) {
    const c = value.charCodeAt(i);
    if (c <= 32 || c === 47) return false;
    const kind = caseOf(c);
    if (kind === 'lower' || kind === 'upper') letter = true;
    if (kind !== 'lower') notLower = true;
  }
  // One lower-case word is a flag of its own (`-pthread`, `-pedantic`); a lower-case run of 12 or more is no flag.
  return letter && (notLower || value.length >= 12);
}

/** `text.indexOf(needle, from)` remembered under `slot`, searched again only once `from` passes it. */
export function cachedIndexOf(
  text: string,
  needle: string,
  from: number,
  cache: Map<number, number>,
  slot: number,
): number {
  const known = cache.get(slot);
  if (known !== undefined && (known >= from || known === -1)) return known;
  const found = text.indexOf(needle, from);
  cache.set(slot, found);
  return found;
}

/**
 * The end of a secret value at `start` after a name, or 0 when the run is
 * no secret (the context may go on past one short word), -1 when the gap
 * breaks the context.
 */
export function judgeNamedValue(
  text: string,
  gapStart: number,
  start: number,
  end: number,
  context: NameContext,
  cache: Map<number, number>,
): number {
  if (start - gapStart > MAX_GAP) return -1;
  let assigned = false;
  let colonOnly = true;
  for (let g = gapStart; g < start; g += 1) {
    const c = text.charCodeAt(g);
    // A line break ends a name's reach: `KEY=` then a new line is an empty value, `secret:` then one a nested block.
    if (!isGapChar(c) || c === 10 || c === 13) return -1;
    if (c === 61 || c === 58) assigned = true;
    if (c === 61 || c === 62) colonOnly = false;
  }
  // A word skipped after the name and then assigned (`finishSecret secretId=…`) was a name of its own.
  if (context.skipped > 0 && assigned) return -1;
  // `…:secret:prod/agents/db` (an ARN, a URN): the name is a step of a path, not assigned; so is `refresh_token::` (Rust, C++).
  if (context.colonPath && assigned && colonOnly) return -1;
  if (text.charCodeAt(gapStart) === 58 && text.charCodeAt(gapStart + 1) === 58) return -1;
  // The value is quoted when a quote opens it: `"key": "value"`, `\"value\"`, SQL's `PASSWORD 'value'`.
  const opening = start > gapStart ? text.charCodeAt(start - 1) : 0;
  const quote = isQuote(opening) ? opening : 0;
  // `-u app -p <value>`: the value of a password flag is one run, judged as a password (no scheme word comes between).
  if (context.passwordFlag) return quote === 0 && isPasswordValue(text.slice(start, end)) ? end : -1;
  // An Authorization scheme, known or not (`Authorization: AccessKey …`): a capitalized word with the value after it.
  // (After a flag the next item is its value: an unknown scheme word is not looked for there.)
  // (Nor after a password's name: a password has no scheme, `password=hunterxyz more` is its value.)
  if (
    SCHEMES.has(text.slice(start, end).toLowerCase()) ||
    (quote === 0 && !context.flag && !context.password && isSchemeWord(text, start, end))
  )
    return 0;
  let valueEnd = end;
  if (quote !== 0) {
    const close = cachedIndexOf(text, String.fromCharCode(quote), start, cache, quote);
    if (close >= 0 && close - start <= MAX_VALUE) {
      valueEnd = close;
      // JSON-escaped: `\"value\"` ends at the backslash.
      if (valueEnd > start && text.charCodeAt(valueEnd - 1) === 92) valueEnd -= 1;
    }
  } else if (context.strength === 'strong' && (assigned || context.flag)) {
    // A password may hold any character but the ones that end a value.
    while (valueEnd < text.length && valueEnd - start < MAX_VALUE && !endsValue(text.charCodeAt(valueEnd)))
      valueEnd += 1;
  }
  const value = text.slice(start, valueEnd);
  if (isPlaceholder(value)) return -1;
  // Code, not a value: `token = tokenizer.encode(text)`, `api_key=SecretStr(…)`.
  if (text.charCodeAt(valueEnd) === 40 && isCall(value, text.slice(valueEnd, valueEnd + MAX_CALL_ARGUMENTS))) return -1;
  // After a flag, a flag of letters (`--quiet`, `-v`) is the next flag, not this one's value; `-8ho4…` is a value.
  if (context.flag && FLAG_WORD.test(text.slice(start, end))) return -1;
  if (
    context.strength === 'strong' &&
    !context.login &&
    (assigned || context.flag || (quote !== 0 && context.password))
  ) {
    return value.length >= 4 ? valueEnd : -1;
  }
  // Only near (`secret "openai-credentials"`, `token 9fQk…`), or under a weak name: the value must look random.
  if (context.strength === 'weak' && !(assigned || context.flag || quote !== 0)) return 0;
  return looksRandomValue(text, start, valueEnd, context.strength) ||
    (context.login && isIdShapedToken(text, start, valueEnd))
    ? valueEnd
    : 0;
}

/**
 * A word of letters followed by a space and more: an Authorization scheme
 * (`AccessKey`, `SSWS`, `GenieKey`), or prose (`… : secret "name" not found`),
 * not the value.
 */
function isSchemeWord(text: string, start: number, end: number): boolean {
  if (end - start > 24) return false;
  for (let i = start; i < end; i += 1) {
    const kind = caseOf(text.charCodeAt(i));
    if (kind !== 'upper' && kind !== 'lower' && text.charCodeAt(i) !== 45) return false;
  }
  return text.charCodeAt(end) === 32 && text.charCodeAt(end + 1) > 32;
}

/** How far after a callee its argument list must close, on the same line. */
const MAX_CALL_ARGUMENTS = 256;

/**
 * A function called where a value would be (`os.getenv(…)`, `SecretStr(…)`,
 * `tokenizer.encode(…)`): a dotted path ending in a word, then an argument
 * list closed on the same line, as code closes it. `following` is the text
 * after the value. A `(` that is not closed (`DB_PASSWORD=Qgr…(` in a log
 * line) is punctuation, and the value is judged as a value.
 */
export function isCall(value: string, following: string): boolean {
  if (following.charCodeAt(0) !== 40 || !CALLEE.test(value)) return false;
  const last = value.lastIndexOf('.') + 1;
  if (!isWord(value, last, value.length)) return false;
  for (let i = 1; i < following.length && i < MAX_CALL_ARGUMENTS; i += 1) {
    const c = following.charCodeAt(i);
    if (c === 41) return true;
    if (c === 10 || c === 13) return false;
  }
  return false;
}

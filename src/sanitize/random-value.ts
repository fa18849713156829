/**
 * Whether a value looks like the secret a name announces: random, no
 * composite of words, and under a weak name also no id (hex digest, UUID), no
 * option (`KEY=value`) and no base64 of data. A login verb's argument may
 * also be id-shaped: Snyk and Heroku tokens are UUIDs.
 */
import type { CredentialName } from './credential-words.js';
import { decodedBytes, hasFileSignature, isDerPublic, isPrintable } from './encoded-data.js';
import { isHexOrUuid } from './run-chars.js';
import { looksRandom, measureRun } from './secret-shape.js';
import { isComposite, isWord } from './word-shape.js';
/** Shortest id-shaped token a login verb's argument is a credential at: a UUID is 36, a short hex key 16 or more. */
const MIN_LOGIN_ID_TOKEN = 16;

/**
 * True when `text[start, end)` is a UUID or a long hex run with letters and
 * digits: an id anywhere else, but the argument of a login verb is what logs
 * in (Snyk and Heroku tokens are UUIDs), whatever it looks like.
 */
export function isIdShapedToken(text: string, start: number, end: number): boolean {
  if (end - start < MIN_LOGIN_ID_TOKEN || !isHexOrUuid(text, start, end)) return false;
  let digits = 0;
  let letters = 0;
  for (let i = start; i < end; i += 1) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) digits += 1;
    else if (c !== 45) letters += 1;
  }
  return digits > 0 && letters > 0;
}

/** True when `value`, the argument of a login subcommand, is a credential: random-looking, or id-shaped (see {@link isIdShapedToken}). */
export function isLoginArgumentValue(value: string): boolean {
  return isNamedSecretShape(value, 'strong') || isIdShapedToken(value, 0, value.length);
}

/** True when `value`, named by a name of `strength`, looks like the secret that name announces (see {@link looksRandomValue}). */
export function isNamedSecretShape(value: string, strength: CredentialName): boolean {
  return looksRandomValue(value, 0, value.length, strength);
}

/**
 * True when `text[start, end)` looks random and is no composite name; under
 * a weak name (a bare `key`, a one-letter flag) also no hex digest or UUID:
 * that is what ids look like, and such a name says no more.
 */
export function looksRandomValue(
  text: string,
  start: number,
  end: number,
  strength: CredentialName,
  minLength?: number,
): boolean {
  for (let i = start; i < end; i += 1) if (text.charCodeAt(i) <= 32) return false;
  const shape = measureRun(text, start, end);
  if (isComposite(text, start, end)) return false;
  // A name vouches for its value: a long token of all three classes, or of both cases, that reads as no word is enough
  // (`-t TZDKWJRFQOMC2JvnazFUV5`, `AccessKey ScrbjxHAYnqouTHiI…`), even where the shape measures alone would hesitate.
  const vouched =
    shape.length >= (minLength ?? 16) &&
    shape.others * 3 <= shape.length &&
    !isWord(text, start, end) &&
    ((shape.upper > 0 && shape.lower > 0 && shape.digits > 0) ||
      (shape.upper > 1 && shape.lower > 1 && shape.entropy >= 3.5) ||
      // After a strong name, letters and digits of one case are enough too (a hex key: `password c53dffd5…`).
      (strength === 'strong' && shape.upper + shape.lower > 0 && shape.digits > 0 && shape.entropy >= 3));
  if (!vouched && !looksRandom(shape, minLength)) return false;
  if (strength === 'strong') return true;
  // Under a weak name, `KEY=value` is an option (`-o IdentitiesOnly=yes`), not a key; `=` only pads base64.
  const equals = text.indexOf('=', start);
  if (equals >= 0 && equals < end && /[^=]/.test(text.slice(equals, end))) return false;
  if (isHexOrUuid(text, start, end)) return false;
  // Base64 of text or of a file (`ExclusiveStartKey=eyJwayI6…`, a cursor): the encoded-secret rule judged what it says.
  // (Only from 24 decoded bytes on: a short random token decodes to printable bytes by chance.)
  const decoded = decodedBytes(text.slice(start, end));
  return (
    decoded === undefined ||
    decoded.length < 24 ||
    !(isPrintable(decoded) || hasFileSignature(decoded) || isDerPublic(decoded))
  );
}

/** True when `value` looks like a key: random, and no composite of words, numbers and ids. */
export function looksLikeKey(value: string): boolean {
  return looksRandom(measureRun(value, 0, value.length)) && !isComposite(value, 0, value.length);
}

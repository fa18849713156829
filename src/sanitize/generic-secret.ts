/**
 * The catch-all: finds secrets whose format no rule names, by what a secret
 * is (docs/sanitization.md, "The catch-all"), in one linear pass:
 *
 * 1. **Named.** A value after a credential name in any form: `key=value`,
 *    `key: value`, `"key": "value"` (JSON-escaped too), `--flag value`,
 *    `--flag=value`, `Header: value`, SQL's `PASSWORD '…'`, any case style
 *    (`dbPassword`, `AccountKey`, `x-functions-key`). Under a strong name
 *    (`password`, `secret`, `token`, `api_key`) an assigned, quoted or flag
 *    value is a secret unless it is a placeholder; anything merely near a
 *    name (at most one short word between) must also look random.
 * 2. **Prefixed.** A short lower-case (or upper-case) prefix, a separator and
 *    a long random body (`tvly-…`, `sk-or-v1-…`, `dop_v1_…`, `PMAK-…`), or a
 *    lower-case label glued to 30+ hex digits (`dapi…`), whatever the
 *    provider. Ids providers hand out on purpose (`chatcmpl-`, `resp_`,
 *    `msg_`, `call_`) and algorithm-labelled digests (`sha512-`) are not.
 * 3. **Alone.** A run of 32+ characters with upper case, lower case and
 *    digits mixed as random base62 mixes them, over 4 bits of entropy, that
 *    is no public key, certificate or data URL.
 *
 * The exact format rules run first; this one runs on what they left.
 */
import { Buffer } from 'node:buffer';
import type { CredentialName } from './credential-words.js';
import {
  credentialName,
  isLoginVerb,
  isPasswordLetterFlag,
  isPublicName,
  isUserNameFlag,
  mayBeLoginVerb,
  mayNameCredential,
  mayNamePublic,
} from './credential-words.js';
import { isPlaceholder } from './placeholder.js';
import { looksRandom, looksRandomAlone, looksRandomPiece, measureRun } from './secret-shape.js';

const MARKER = '[redacted:';
/** Separator characters between a name and its value before the context is lost. */
const MAX_GAP = 16;
/** Longest value read after a name: a quoted value with no closing quote within it is read as unquoted. */
const MAX_VALUE = 256;

/** 0-9 A-Z a-z `_` `-` `.` `+` `/` `~`: characters of a token run (`=` only as trailing padding). */
function isRunChar(c: number): boolean {
  return (
    (c >= 48 && c <= 57) ||
    (c >= 65 && c <= 90) ||
    (c >= 97 && c <= 122) ||
    c === 95 ||
    c === 45 ||
    c === 46 ||
    c === 43 ||
    c === 47 ||
    c === 126
  );
}
function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}
function isQuote(c: number): boolean {
  return c === 34 || c === 39 || c === 96;
}
/** Where an unquoted value ends: whitespace, quotes, `\`, `,`, `;`, `&`, brackets (`Optional[str]` is a type), `<`, `>`. */
function endsValue(c: number): boolean {
  return (
    c <= 32 ||
    isQuote(c) ||
    c === 92 ||
    c === 44 ||
    c === 59 ||
    c === 38 ||
    c === 41 ||
    c === 93 ||
    c === 125 ||
    c === 60 ||
    c === 62 ||
    c === 40 ||
    c === 91
  );
}
/** Characters allowed between a name and its value: whitespace, quotes, `\`, `:`, `=`, `>`, `[` (argv-like lists). */
function isGapChar(c: number): boolean {
  return c <= 32 || isQuote(c) || c === 92 || c === 58 || c === 61 || c === 62;
}

/** First segments of ids that providers return and users log on purpose; their bodies look random. */
const PUBLIC_ID_PREFIXES: ReadonlySet<string> = new Set([
  'chatcmpl',
  'cmpl',
  'resp',
  'msg',
  'fc',
  'rs',
  'ctc',
  'call',
  'run',
  'thread',
  'asst',
  'file',
  'batch',
  'req',
  'request',
  'toolu',
  'srvtoolu',
  'step',
  'vs',
  'ft',
  'ftjob',
  'gen',
  'trace',
  'span',
  'evt',
  'sess',
  'session',
  'conv',
  'item',
  'img',
  'comp',
  'job',
  'ws',
  'pod',
  'container',
]);
/** Prefix words that say the token is a credential: a UUID body under them is a key (`sk-lf-…`). */
const CREDENTIAL_PREFIX = /(?:^|[_.-])(?:sk|rk|key|secret|token|pat|auth|priv|private|pwd)(?:$|[_.-])/i;
/** Algorithm labels: what follows is a digest (`sha512-…` in package-lock.json), not a key. */
const DIGEST_LABEL = /^(?:sha\d*|sha3|md5|blake\d*[bs]?|xxh\d*|crc\d*|murmur\d*|sri|h1|hmac)$/i;
/** A UUID anywhere in a body: an id (`part-00000-<uuid>.parquet`, `session-<uuid>`) unless the prefix says credential. */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
/** SSH public key types: the base64 after them is a public key. */
const SSH_KEY_TYPE =
  /^(?:ssh-(?:rsa|dss|ed25519|ed448)|ecdsa-sha2-nistp\d+|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)$/;

function caseOf(c: number): 'lower' | 'upper' | 'digit' | 'other' {
  if (c >= 97 && c <= 122) return 'lower';
  if (c >= 65 && c <= 90) return 'upper';
  if (c >= 48 && c <= 57) return 'digit';
  return 'other';
}

/**
 * True when the run `text[start, end)` is a short prefix, a separator and a
 * random body, or a lower-case label glued to hex digits.
 */
export function isPrefixedSecret(text: string, start: number, end: number): boolean {
  if (gluedHexKey(text, start, end)) return true;
  let segmentStart = start;
  let prefixCase: 'lower' | 'upper' | undefined;
  for (let segments = 0; segments < 4; segments += 1) {
    let at = segmentStart;
    let ok = at < end && caseOf(text.charCodeAt(at)) !== 'digit' && caseOf(text.charCodeAt(at)) !== 'other';
    const first = ok ? caseOf(text.charCodeAt(at)) : undefined;
    if (first === 'lower' || first === 'upper') {
      if (prefixCase !== undefined && prefixCase !== first) return false;
      prefixCase = first;
    }
    let digits = 0;
    while (ok && at < end && isAlnum(text.charCodeAt(at))) {
      const kind = caseOf(text.charCodeAt(at));
      if (kind === 'digit') digits += 1;
      // A prefix word may end in a version (`v1`, `lsv2`, `fo1`), not hold a number (`be344405` is a body).
      else if (kind !== prefixCase || digits > 0) ok = false;
      at += 1;
    }
    const length = at - segmentStart;
    if (!ok || length === 0 || length > 8 || digits > 2) break;
    if (segments === 0) {
      const label = text.slice(segmentStart, at);
      if (DIGEST_LABEL.test(label) || PUBLIC_ID_PREFIXES.has(label.toLowerCase())) return false;
    }
    const separator = text.charCodeAt(at);
    if (at >= end || (separator !== 95 && separator !== 45 && separator !== 46)) return false;
    const bodyStart = at + 1;
    if (bodyIsSecret(text, start, bodyStart, end, prefixCase === 'upper')) return true;
    segmentStart = bodyStart;
  }
  return false;
}

function bodyIsSecret(
  text: string,
  prefixStart: number,
  bodyStart: number,
  end: number,
  upperPrefix: boolean,
): boolean {
  let bodyEnd = end;
  while (bodyEnd > bodyStart && text.charCodeAt(bodyEnd - 1) === 61) bodyEnd -= 1;
  const shape = measureRun(text, bodyStart, bodyEnd);
  const prefix = text.slice(prefixStart, bodyStart);
  // A prefix that says credential (`dckr_pat_`, `sk-lf-`) needs less body to be believed.
  // Provider object ids (`in_1jhX…`, `msgbatch_01HK…`) run to 28 characters; keys of unknown prefix are longer.
  const minimum = CREDENTIAL_PREFIX.test(prefix) ? 16 : upperPrefix ? 24 : 30;
  if (!looksRandom(shape, minimum)) return false;
  // After a prefix that says credential, random pieces that happen to read as words (`…_-WSYGM_…`) make no composite name.
  if (CREDENTIAL_PREFIX.test(prefix) ? isPlainWords(text, bodyStart, bodyEnd) : isComposite(text, bodyStart, bodyEnd))
    return false;
  // `price_11I3…/prod_pYlT…`: a path of ids, not one key.
  for (let i = bodyStart; i < bodyEnd; i += 1)
    if (text.charCodeAt(i) === 47 && hasWordPrefix(text, i + 1, bodyEnd)) return false;
  if (UUID.test(text.slice(bodyStart, bodyEnd))) return CREDENTIAL_PREFIX.test(prefix);
  return true;
}

/** `dapi0123…`: 2 to 8 lower-case letters, one of them not a hex digit, then at least 30 lower-case hex digits to the end. */
function gluedHexKey(text: string, start: number, end: number): boolean {
  let at = start;
  let nonHex = false;
  while (at < end && at - start < 8 && caseOf(text.charCodeAt(at)) === 'lower') {
    if (text.charCodeAt(at) > 102) nonHex = true;
    at += 1;
  }
  if (!nonHex || at - start < 2 || end - at < 30) return false;
  for (let i = at; i < end; i += 1) {
    const c = text.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return looksRandom(measureRun(text, at, end));
}

/** The context a credential name leaves for the value after it. */
interface NameContext {
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

const PASSWORD_NAME = /(?:pass(?:word|wd|phrase)?|pwd)[\d_-]*$/i;

/**
 * A command-line flag made of letters (`--quiet`, `-v`, `--dry-run`,
 * `--noPrompt`): never a value. Flags are words in one case, kebab-case or
 * camel case; mixed-case letters in no such order (`--VtatTDEgomZVQ`) are a
 * value that starts with dashes.
 */
const FLAG_WORD = /^(?:-[A-Za-z]|--?[a-z]+(?:-[a-z]+)*|--?[a-z]+(?:[A-Z][a-z]+)+|--?[A-Z]+(?:-[A-Z]+)*)$/;

/** A function called where a value would be: identifier words (no digits), a lower-case letter among them, dotted or not. */
const CALLEE = /^(?=[A-Za-z_$.]*[a-z])[A-Za-z_$]+(?:\.[A-Za-z_$]+)*$/;

/** Authorization schemes: the word between a credential name and its value (`Authorization: Bearer …`). */
const SCHEMES: ReadonlySet<string> = new Set([
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
function nameStrength(
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

/**
 * True when the run `text[start, end)`, glued to a marker that follows it, is
 * the rest of a token a format rule cut: a random piece of 12 characters or
 * more (after any prefix of words) ends it.
 */
function gluedToMarker(text: string, start: number, end: number): boolean {
  let pieceEnd = end;
  while (pieceEnd > start && !isAlnum(text.charCodeAt(pieceEnd - 1))) pieceEnd -= 1;
  let pieceStart = pieceEnd;
  while (pieceStart > start && isAlnum(text.charCodeAt(pieceStart - 1))) pieceStart -= 1;
  return pieceEnd - pieceStart >= 12 && looksRandomValue(text, pieceStart, pieceEnd, 'weak', 12);
}

/** Options of {@link replaceGenericSecrets}. */
export interface GenericSecretOptions {
  /**
   * The text is an identifier (its key says so: `gen_ai.response.id`,
   * `etag`): only named secrets are found, not secrets by shape alone.
   * @default false
   */
  readonly identifier?: boolean;
}

/**
 * Replaces every secret the catch-all finds in `text` by `redact(secret)`.
 * Linear: each character is looked at a bounded number of times.
 */
export function replaceGenericSecrets(
  text: string,
  redact: (secret: string) => string,
  options?: GenericSecretOptions,
): string {
  const byShape = options?.identifier !== true;
  let jwk: boolean | undefined;
  const n = text.length;
  let out = '';
  let copied = 0;
  let context: NameContext | undefined;
  let previousEnd = 0;
  let previousRunStart = -1;
  let publicBlockEnd = -1;
  let publicNameEnd = -1;
  // Where the current line starts, and the start of the line that gave a user flag (`-u app`), if any.
  let lineStart = 0;
  let userFlagLine = -1;
  // Next position of each quote character and of `-----END`, found once and reused (keeps quoted values linear).
  const nextQuote = new Map<number, number>();
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 91 && text.startsWith(MARKER, i)) {
      // A marker: already redacted; no name before it reaches past it.
      const close = text.indexOf(']', i);
      i = close < 0 ? n : close + 1;
      previousEnd = i;
      context = undefined;
      continue;
    }
    if (!isRunChar(c)) {
      if (c === 10 || c === 13) lineStart = i + 1;
      i += 1;
      continue;
    }
    const start = i;
    let end = i;
    while (end < n && isRunChar(text.charCodeAt(end))) end += 1;
    // `=` ends a run as base64 padding (`…xyz==;`), not as an assignment (`AccountKey=xyz`).
    let padded = end;
    while (padded < n && text.charCodeAt(padded) === 61) padded += 1;
    if (padded === n || !isRunChar(text.charCodeAt(padded))) end = padded;

    if (context !== undefined && context.login && c === 45 && start - previousEnd <= 2) {
      // `login --relogin <key>`: the subcommand's flags stand between it and its argument.
      previousEnd = end;
      previousRunStart = start;
      i = end;
      continue;
    }
    if (context !== undefined) {
      const judged = judgeNamedValue(text, previousEnd, start, end, context, nextQuote);
      if (judged > 0) {
        out += text.slice(copied, start) + redact(text.slice(start, judged));
        copied = judged;
        i = judged;
        // A quoted value's closing quote is skipped with it.
        previousEnd = judged;
        context = undefined;
        previousRunStart = start;
        continue;
      }
      // A flag's value is the one item after it (`-u app -pS3cr3t`: `app` was `-u`'s), unless that item is a scheme word.
      const mayGoOn = !context.flag || SCHEMES.has(text.slice(start, end).toLowerCase());
      context =
        judged === 0 && mayGoOn && context.skipped === 0 && isShortWord(text, start, end)
          ? { ...context, skipped: 1 }
          : undefined;
    }

    if (c === 45 && text.startsWith('-----BEGIN', start)) {
      const labelEnd = text.indexOf('-----', start + 10);
      const label = labelEnd > 0 && labelEnd - start < 96 ? text.slice(start + 10, labelEnd) : '';
      if (label !== '' && !label.includes('PRIVATE')) {
        const close = cachedIndexOf(text, '-----END', labelEnd, nextQuote, -1);
        publicBlockEnd = close < 0 ? n : close;
      }
    }

    // `SG.<22>.[redacted]`: a format rule took the end of a token (`sk-…` inside a SendGrid key); the rest of the token,
    // glued to the marker, is part of the same secret when it looks random.
    if (byShape && text.startsWith(MARKER, end) && gluedToMarker(text, start, end)) {
      out += text.slice(copied, start) + redact(text.slice(start, end));
      copied = end;
      context = undefined;
      previousEnd = end;
      previousRunStart = start;
      i = end;
      continue;
    }
    const atWordStart = start === 0 || text.charCodeAt(start - 1) <= 32 || isQuote(text.charCodeAt(start - 1));
    if (c === 45 && atWordStart && end - start <= 12 && isUserNameFlag(text.slice(start, end)))
      userFlagLine = lineStart;
    // `mysql -u app -pS3cr3t`: a password flag glued to its value, after a user flag on the same line.
    if (
      c === 45 &&
      atWordStart &&
      userFlagLine === lineStart &&
      end - start > 2 &&
      isPasswordLetterFlag(text.slice(start, start + 2)) &&
      isPasswordValue(text.slice(start + 2, end))
    ) {
      out += text.slice(copied, start + 2) + redact(text.slice(start + 2, end));
      copied = end;
      context = undefined;
      previousEnd = end;
      previousRunStart = start;
      i = end;
      continue;
    }

    // The value after a name that says public (`PublicKey = …`, `RSA_PUBLIC_KEY='…'`) is not a secret by its shape.
    const afterPublicName = publicNameEnd >= 0 && start - publicNameEnd <= MAX_GAP;
    publicNameEnd = -1;
    if (
      byShape &&
      !afterPublicName &&
      end - start >= 15 &&
      start >= publicBlockEnd &&
      !excludedByContext(text, start, previousRunStart, previousEnd)
    ) {
      jwk ??= text.includes('kty');
      const found = jwk && isPublicJwkMember(text, start) ? undefined : findShapedSecret(text, start, end);
      if (found !== undefined) {
        out += text.slice(copied, found[0]) + redact(text.slice(found[0], found[1]));
        copied = found[1];
        context = undefined;
        previousEnd = end;
        previousRunStart = start;
        i = end;
        continue;
      }
    }
    if (end - start <= 128 && mayNamePublic(text, start, end) && isPublicName(text.slice(start, end)))
      publicNameEnd = end;
    const login = mayBeLoginVerb(text, start, end) && isLoginVerb(text.slice(start, end));
    // A login verb, like a user flag, says a password letter flag on its line gives a password (`docker login -p …`).
    if (login) userFlagLine = lineStart;
    // A login subcommand names its argument as a strong name would, but only near: the argument must look random.
    // `password='…'`: the `=` read as padding belongs to the gap after a name, not to the name.
    let nameEnd = end;
    while (nameEnd > start && text.charCodeAt(nameEnd - 1) === 61) nameEnd -= 1;
    const strength = login ? 'strong' : nameStrength(text, start, nameEnd, previousRunStart, previousEnd);
    const passwordFlag =
      strength === 'weak' &&
      nameEnd - start === 2 &&
      userFlagLine === lineStart &&
      isPasswordLetterFlag(text.slice(start, nameEnd));
    context =
      strength === 'none'
        ? context
        : {
            strength,
            flag: c === 45,
            skipped: 0,
            colonPath: start > 0 && text.charCodeAt(start - 1) === 58,
            password: !login && PASSWORD_NAME.test(text.slice(start, nameEnd)),
            login,
            passwordFlag,
          };
    previousEnd = strength === 'none' ? end : nameEnd;
    previousRunStart = start;
    i = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** True for a run of 1 to 8 letters: a word such as `Bearer` or `is` between a name and its value. */
function isShortWord(text: string, start: number, end: number): boolean {
  if (end - start > 8) return false;
  for (let i = start; i < end; i += 1) {
    const kind = caseOf(text.charCodeAt(i));
    if (kind !== 'lower' && kind !== 'upper') return false;
  }
  return true;
}

/** `text.indexOf(needle, from)` remembered under `slot`, searched again only once `from` passes it. */
function cachedIndexOf(text: string, needle: string, from: number, cache: Map<number, number>, slot: number): number {
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
function judgeNamedValue(
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

/** Shortest id-shaped token a login verb's argument is a credential at: a UUID is 36, a short hex key 16 or more. */
const MIN_LOGIN_ID_TOKEN = 16;

/**
 * True when `text[start, end)` is a UUID or a long hex run with letters and
 * digits: an id anywhere else, but the argument of a login verb is what logs
 * in (Snyk and Heroku tokens are UUIDs), whatever it looks like.
 */
function isIdShapedToken(text: string, start: number, end: number): boolean {
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
function looksRandomValue(
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

/** Hex digits and dashes only: a digest, a UUID, a trace id. */
function isHexOrUuid(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i += 1) {
    const c = text.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70) || c === 45)) return false;
  }
  return true;
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

/**
 * The run after `base64,` (a data URL's payload), after an SSH key type (a
 * public key), or after an algorithm label (`SHA256:…` fingerprints) is
 * data, not a secret.
 */
function excludedByContext(text: string, start: number, previousRunStart: number, previousEnd: number): boolean {
  if (start >= 7 && text.startsWith('base64,', start - 7)) return true;
  if (previousRunStart >= 0 && start - previousEnd <= 2) {
    const previous = text.slice(previousRunStart, previousEnd);
    if (SSH_KEY_TYPE.test(previous)) return true;
    if (DIGEST_LABEL.test(previous) && text.charCodeAt(previousEnd) !== 32) return true;
  }
  return false;
}

/** Public members of a JSON Web Key (the RSA modulus and exponent, the EC point): `"n": "…"`. */
const PUBLIC_JWK_MEMBER = /["'](?:n|e|x|y|x5c|x5t|x5t#S256)\\?["']\s*:\s*\\?["']?\[?\\?["']?$/;

function isPublicJwkMember(text: string, start: number): boolean {
  return PUBLIC_JWK_MEMBER.test(text.slice(Math.max(0, start - 16), start));
}

/** A prefixed or lone secret in the run `text[start, end)`, as [start, end); a path is checked segment by segment. */
function findShapedSecret(text: string, start: number, end: number): [number, number] | undefined {
  // `mysql -pS3cr3tV4lu3`: a one-letter flag glued to a value that looks random; the flag is kept.
  if (
    text.charCodeAt(start) === 45 &&
    caseOf(text.charCodeAt(start + 1)) !== 'other' &&
    caseOf(text.charCodeAt(start + 1)) !== 'digit'
  ) {
    if (isAlnum(text.charCodeAt(start + 2)) && looksRandomValue(text, start + 2, end, 'weak', 12))
      return [start + 2, end];
  }
  if (end - start < 16 || hasPublicLead(text, start, end)) return undefined;
  const slash = text.indexOf('/', start);
  if (slash < 0 || slash >= end) return shapedRun(text, start, end) ? [start, end] : undefined;
  // Base64 that holds a certificate, a public key, a file or text is data as a whole: its `/`s are no path.
  const whole = decodedBytes(text.slice(start, end));
  if (
    whole !== undefined &&
    whole.length >= 24 &&
    (isDerPublic(whole) || hasFileSignature(whole) || isPrintable(whole))
  )
    return undefined;
  const webhook = webhookPathStart(text, start, end);
  if (webhook >= 0) return [webhook, end];
  // A path of words with a random last part (`database/creds/agent-rw/iO6Sj…`) is looked at segment by segment only.
  if (text.charCodeAt(start) !== 47 && wordPieces(text, start, end) < 2 && shapedRun(text, start, end))
    return [start, end];
  // `/bot<token>/sendMessage`: a path's segments are looked at one by one.
  let segment = start;
  for (let i = start; i <= end; i += 1) {
    if (i === end || text.charCodeAt(i) === 47) {
      if (i - segment >= 16 && !hasPublicLead(text, segment, i) && shapedRun(text, segment, i)) return [segment, i];
      segment = i + 1;
    }
  }
  return undefined;
}

/**
 * Where the credential starts in a webhook's URL path, or -1: in a path with
 * a segment that names a hook (`/api/webhooks/`, `/webhookb2/`,
 * `/IncomingWebhook/`, `/hooks/catch/`), the rest of the path from its first
 * segment with a digit is the credential, whatever its length (Zapier's are 7
 * characters), as Slack's rule treats its webhooks.
 */
function webhookPathStart(text: string, start: number, end: number): number {
  let segment = start;
  let afterHook = false;
  for (let i = start; i <= end; i += 1) {
    if (i !== end && text.charCodeAt(i) !== 47) continue;
    if (i > segment) {
      if (afterHook) {
        for (let j = segment; j < i; j += 1) {
          const c = text.charCodeAt(j);
          if (c >= 48 && c <= 57) return segment;
        }
      } else if (HOOK.test(text.slice(segment, i))) {
        afterHook = true;
      }
    }
    segment = i + 1;
  }
  return -1;
}

const HOOK = /hook/i;

function shapedRun(text: string, start: number, end: number): boolean {
  if (isPrefixedSecret(text, start, end)) return true;
  // A run built as prefix and body (`msgbatch_01HK…`, `price_11I3…`) whose body is too short for a key is an id.
  if (hasWordPrefix(text, start, end)) return false;
  let body = end;
  while (body > start && text.charCodeAt(body - 1) === 61) body -= 1;
  if (!looksRandomAlone(measureRun(text, start, body)) || isComposite(text, start, body)) return false;
  const decoded = decodedBytes(text.slice(start, end));
  if (decoded === undefined) return end - start <= MAX_ALONE;
  // Base64 of text (a cursor), of a file (audio, an image) or of a certificate or public key is data; of a private key, a secret.
  if (isDerPrivateKey(decoded)) return true;
  return end - start <= MAX_ALONE && !isPrintable(decoded) && !hasFileSignature(decoded) && !isDerPublic(decoded);
}

/** Longest run taken for a secret by its shape alone: longer base64 is content (a file, a blob), keys are shorter. */
const MAX_ALONE = 512;

/** The bytes of a base64 or base64url run, or undefined when it is not base64. */
function decodedBytes(run: string): Buffer | undefined {
  if (/[^A-Za-z0-9+/=_-]/.test(run)) return undefined;
  // A run cut short (not a multiple of 4) still decodes to the bytes it starts with.
  return Buffer.from(run.slice(0, run.length - (run.length % 4)), 'base64');
}

/** True when 95% of `bytes` are printable ASCII: base64 of text (a pagination cursor, a JSON state). */
function isPrintable(bytes: Buffer): boolean {
  let printable = 0;
  for (const c of bytes) if ((c >= 32 && c <= 126) || c === 10 || c === 13 || c === 9) printable += 1;
  return bytes.length > 0 && printable >= bytes.length * 0.95;
}

/** File signatures of media and documents carried as base64 (RIFF/WAV, PNG, JPEG, GIF, PDF, OGG, MP3, ZIP, WebP). */
const FILE_SIGNATURES: readonly (readonly number[])[] = [
  [0x52, 0x49, 0x46, 0x46],
  [0x89, 0x50, 0x4e, 0x47],
  [0xff, 0xd8, 0xff],
  [0x47, 0x49, 0x46, 0x38],
  [0x25, 0x50, 0x44, 0x46],
  [0x4f, 0x67, 0x67, 0x53],
  [0x49, 0x44, 0x33],
  [0x50, 0x4b, 0x03, 0x04],
  [0x1a, 0x45, 0xdf, 0xa3],
];

function hasFileSignature(bytes: Buffer): boolean {
  return FILE_SIGNATURES.some((signature) => signature.every((b, i) => bytes[i] === b));
}

/** The offset of the first field inside a DER SEQUENCE at the start of `bytes`, or -1. */
function derFirstField(bytes: Buffer): number {
  if (bytes[0] !== 0x30 || bytes.length < 4) return -1;
  const length = bytes[1] as number;
  if (length < 0x80) return 2;
  const octets = length & 0x7f;
  return octets >= 1 && octets <= 4 ? 2 + octets : -1;
}

/**
 * A DER private key (PKCS#1, PKCS#8, SEC1): a SEQUENCE whose first field is
 * the version INTEGER. Certificates and public keys open with a SEQUENCE.
 */
function isDerPrivateKey(bytes: Buffer): boolean {
  const first = derFirstField(bytes);
  return first > 0 && bytes[first] === 0x02 && bytes[first + 1] === 0x01 && (bytes[first + 2] as number) <= 1;
}

/** A DER certificate or public key (SubjectPublicKeyInfo): a SEQUENCE whose first field is a SEQUENCE. */
function isDerPublic(bytes: Buffer): boolean {
  const first = derFirstField(bytes);
  return first > 0 && bytes[first] === 0x30;
}

/** True when the run opens with a lower-case word of 2 to 8 letters and a `_`, `-` or `.` (`msgbatch_`, `price_`). */
function hasWordPrefix(text: string, start: number, end: number): boolean {
  let at = start;
  while (at < end && at - start <= 8 && caseOf(text.charCodeAt(at)) === 'lower') at += 1;
  const separator = text.charCodeAt(at);
  return at - start >= 2 && at - start <= 8 && (separator === 95 || separator === 45 || separator === 46);
}

/**
 * True when the run starts with an id prefix (`chatcmpl-`, `resp_`) or an
 * algorithm label (`sha512-`): an id or a digest, whatever follows.
 */
function hasPublicLead(text: string, start: number, end: number): boolean {
  let at = start;
  while (at < end && at - start <= 8 && isAlnum(text.charCodeAt(at))) at += 1;
  const separator = text.charCodeAt(at);
  if (at === start || at >= end || (separator !== 95 && separator !== 45 && separator !== 46)) return false;
  const lead = text.slice(start, at);
  return DIGEST_LABEL.test(lead) || PUBLIC_ID_PREFIXES.has(lead.toLowerCase());
}

/**
 * True when the run is made of words: two or more pieces between `-`, `_`,
 * `.`, `/` or `:` are letters only, three or more of them
 * (`deepseek-ai/DeepSeek-R1-Distill-Qwen-32B`, `node-cache-Linux-x64-npm-<hash>`).
 * A random token's pieces almost never are.
 */
export function isComposite(text: string, start: number, end: number): boolean {
  let words = 0;
  let pieces = 0;
  let plain = 0;
  let pieceStart = start;
  for (let i = start; i <= end; i += 1) {
    const c = i < end ? text.charCodeAt(i) : 45;
    if (c === 45 || c === 95 || c === 46 || c === 47 || c === 58) {
      // A long random piece that is no hex digest (`…_mockPG4ZsoxmjHOyUFw4idWG_…`) makes a key, whatever words surround it.
      if (
        i - pieceStart >= 16 &&
        !isHexOrUuid(text, pieceStart, i) &&
        looksRandomPiece(measureRun(text, pieceStart, i))
      )
        return false;
      if (i > pieceStart) {
        pieces += 1;
        const word = isWord(text, pieceStart, i);
        if (word) words += 1;
        if (word || isNumber(text, pieceStart, i)) plain += 1;
      }
      pieceStart = i + 1;
    }
  }
  // Words and numbers only: a date or a version after a word (`token-counting-2024-11-01`, `v1.2.3`).
  return words >= 2 || (pieces >= 2 && plain === pieces && words >= 1);
}

/** True when every piece of `text[start, end)` between `-`, `_`, `.`, `/` or `:` is a lower-case word or a number (`pat_expiry_2025`). */
function isPlainWords(text: string, start: number, end: number): boolean {
  let pieceStart = start;
  for (let i = start; i <= end; i += 1) {
    const c = i < end ? text.charCodeAt(i) : 45;
    if (c !== 45 && c !== 95 && c !== 46 && c !== 47 && c !== 58) continue;
    if (
      i > pieceStart &&
      !isNumber(text, pieceStart, i) &&
      !(
        isWord(text, pieceStart, i) &&
        caseOf(text.charCodeAt(pieceStart)) === 'lower' &&
        isOneCase(text, pieceStart, i)
      )
    )
      return false;
    pieceStart = i + 1;
  }
  return true;
}

/** True when the letters of `text[start, end)` are all lower case. */
function isOneCase(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i += 1) if (caseOf(text.charCodeAt(i)) === 'upper') return false;
  return true;
}

/** How many pieces of `text[start, end)` between `-`, `_`, `.`, `/` or `:` read as words. */
function wordPieces(text: string, start: number, end: number): number {
  let words = 0;
  let pieceStart = start;
  for (let i = start; i <= end; i += 1) {
    const c = i < end ? text.charCodeAt(i) : 45;
    if (c !== 45 && c !== 95 && c !== 46 && c !== 47 && c !== 58) continue;
    if (isWord(text, pieceStart, i)) words += 1;
    pieceStart = i + 1;
  }
  return words;
}

/** True when `text[start, end)` is digits only: a number, a date part, a version part. */
function isNumber(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i += 1) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return end > start;
}

/** True when `value` looks like a key: random, and no composite of words, numbers and ids. */
export function looksLikeKey(value: string): boolean {
  return looksRandom(measureRun(value, 0, value.length)) && !isComposite(value, 0, value.length);
}

/**
 * True when `text[start, end)` reads as a word: letters only, in at most
 * three humps (`node`, `Linux`, `DeepSeek`, `XMLHttp`, `npm`), each of 3 or
 * more letters but a 2-letter first one (`doFilter`, `isSecret`).
 * A hump starts at an upper-case letter after a lower-case one (`Deep|Seek`)
 * or before the lower case that ends a capital run (`XML|Http`). Random
 * letters (`LQcuXUmndOMyjv`, `FdKM`, `QAAAAAAAAAAz`) break into short humps.
 */
function isWord(text: string, start: number, end: number): boolean {
  if (end - start < 3 || isHexOrUuid(text, start, end)) return false;
  let humps = 0;
  let humpStart = start;
  for (let i = start; i <= end; i += 1) {
    if (i < end) {
      const c = text.charCodeAt(i);
      if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122))) return false;
      const upper = c <= 90;
      const previousLower = i > start && text.charCodeAt(i - 1) >= 97;
      const capitalRunEnds =
        upper && i > start && text.charCodeAt(i - 1) <= 90 && i + 1 < end && text.charCodeAt(i + 1) >= 97;
      if (!((upper && previousLower) || capitalRunEnds)) continue;
    }
    const length = i - humpStart;
    if (length < 2 || (length === 2 && humps > 0)) return false;
    // An acronym is short (`XML`, `HTTP`); a long capital run inside mixed letters (`PWIGGJSSD`) is random.
    if (
      length > 5 &&
      text.charCodeAt(i - 1) <= 90 &&
      text.charCodeAt(humpStart + 1) <= 90 &&
      !(humpStart === start && i === end)
    )
      return false;
    if (!isPronounceable(text, humpStart, i)) return false;
    humps += 1;
    humpStart = i;
  }
  return humps <= 3;
}

/** More consonants in a row than a word of a name has (`lengths` has 5). */
const MAX_CONSONANT_RUN = 5;
/** A hump this long with no vowel after its first letter is no word (`Akrnvq`); shorter ones are acronyms (`Http`, `Grpc`). */
const MIN_VOWELLESS_NON_WORD = 5;

/**
 * True when a hump with lower-case letters reads aloud: no run of more than
 * {@link MAX_CONSONANT_RUN} consonants, and a vowel (`y` counts) after its
 * first letter once it is {@link MIN_VOWELLESS_NON_WORD} letters long. An
 * all-capital hump is an acronym (`HTTP`) and always reads.
 */
function isPronounceable(text: string, start: number, end: number): boolean {
  let lower = false;
  let vowelsAfterFirst = 0;
  let run = 0;
  let longestRun = 0;
  for (let i = start; i < end; i += 1) {
    const c = text.charCodeAt(i);
    if (c >= 97) lower = true;
    const folded = c | 0x20;
    if (folded === 97 || folded === 101 || folded === 105 || folded === 111 || folded === 117 || folded === 121) {
      if (i > start) vowelsAfterFirst += 1;
      run = 0;
    } else {
      run += 1;
      longestRun = Math.max(longestRun, run);
    }
  }
  if (!lower) return true;
  return longestRun <= MAX_CONSONANT_RUN && (end - start < MIN_VOWELLESS_NON_WORD || vowelsAfterFirst > 0);
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

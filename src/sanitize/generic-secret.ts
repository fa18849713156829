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
 *
 * This file is the pass; each step's decision is its own module: named-value.ts
 * (step 1), shaped-secret.ts (steps 2 and 3), with public-tokens.ts for what
 * looks random but is public.
 */
import { isLoginVerb, isPasswordLetterFlag, isUserNameFlag, mayBeLoginVerb } from './login-words.js';
import type { NameContext } from './named-value.js';
import {
  cachedIndexOf,
  isPasswordValue,
  judgeNamedValue,
  MAX_GAP,
  nameStrength,
  PASSWORD_NAME,
  SCHEMES,
} from './named-value.js';
import { isPublicName, mayNamePublic } from './public-names.js';
import { excludedByContext, isPublicJwkMember } from './public-tokens.js';
import { isQuote, isRunChar, isShortWord } from './run-chars.js';
import { findShapedSecret, gluedToMarker } from './shaped-secret.js';
const MARKER = '[redacted:';

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

/**
 * Base64 that hides a secret: checked decoded (docs/sanitization.md, "The
 * catch-all"). A run of base64 is redacted whole when it decodes to a PEM
 * private key (kubeconfig `client-key-data`), to JSON that holds a credential
 * (a service-account file), or to a `user:password` pair (`.npmrc`'s `_auth`,
 * a Basic header's value logged alone). Base64 that decodes to anything else
 * (a pagination cursor, an image) is left as it is. Linear: each run is
 * decoded once, and only runs that can be one of these are decoded.
 */
import { Buffer } from 'node:buffer';
import { replaceGenericSecrets } from './generic-secret.js';
import { looksRandom, measureRun } from './secret-shape.js';

/** A JSON member named for a password: its value is one, random or not. */
const PASSWORD_MEMBER = /"(?:password|passwd|pwd|passphrase)"\s*:/i;

/** Shortest run decoded: `dTpwYXNz` is `u:pass`. */
const MIN_RUN = 8;
/** Longest run decoded for a `user:password` pair; PEM and JSON runs are decoded whatever their length. */
const MAX_PAIR_RUN = 256;

function isBase64Char(c: number): boolean {
  // A-Z a-z 0-9 + / - _
  return (
    (c >= 48 && c <= 57) ||
    (c >= 65 && c <= 90) ||
    (c >= 97 && c <= 122) ||
    c === 43 ||
    c === 47 ||
    c === 45 ||
    c === 95
  );
}

/** The kinds this rule redacts as (a subset of the redaction kinds in rules.ts, which imports this module). */
type EncodedKind = 'private_key' | 'secret' | 'credentials';

/** What a decoded run holds: the redaction kind, or undefined when it holds no secret. */
function decodedSecret(decoded: string): EncodedKind | undefined {
  if (decoded.includes('PRIVATE KEY-----') || decoded.includes('PRIVATE KEY BLOCK-----')) return 'private_key';
  const trimmed = decoded.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    // A credential in the JSON: a password, or a named value that looks random (a client secret). A
    // continuation `"token"` such as Cosmos DB's (`-RID:~zjGq…#RT:2`) is state, not a credential.
    const password = PASSWORD_MEMBER.test(decoded);
    let found = false;
    replaceGenericSecrets(decoded, (secret) => {
      const shape = measureRun(secret, 0, secret.length);
      found ||= password || (looksRandom(shape) && shape.others * 8 <= shape.length);
      return secret;
    });
    return found ? 'secret' : undefined;
  }
  return isUserPasswordPair(decoded) ? 'credentials' : undefined;
}

/** `user:password`: printable ASCII without spaces, one `:`, a user of name characters, a password of 4 or more. */
function isUserPasswordPair(decoded: string): boolean {
  const colon = decoded.indexOf(':');
  if (colon < 1 || colon > 64 || decoded.length - colon - 1 < 4 || decoded.indexOf(':', colon + 1) >= 0) return false;
  for (let i = 0; i < decoded.length; i += 1) {
    const c = decoded.charCodeAt(i);
    if (c < 33 || c > 126) return false;
    if (
      i < colon &&
      !(
        (c >= 48 && c <= 57) ||
        (c >= 65 && c <= 90) ||
        (c >= 97 && c <= 122) ||
        c === 46 ||
        c === 95 ||
        c === 45 ||
        c === 64 ||
        c === 43
      )
    )
      return false;
  }
  return true;
}

/**
 * True when every group of 4 characters in `text[start, end)` starts with a
 * character that encodes a printable ASCII byte (`I` to `f`): base64 of
 * `user:password` does, words and identifiers almost never do. Saves
 * decoding every long word of every string.
 */
function mayBePrintable(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i += 4) {
    const c = text.charCodeAt(i);
    if (!((c >= 73 && c <= 90) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/**
 * Replaces every base64 run of `text` that decodes to a secret by
 * `redact(run, kind)`.
 */
export function replaceEncodedSecrets(text: string, redact: (run: string, kind: EncodedKind) => string): string {
  let out = '';
  let copied = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    if (!isBase64Char(text.charCodeAt(i))) {
      i += 1;
      continue;
    }
    const start = i;
    while (i < n && isBase64Char(text.charCodeAt(i))) i += 1;
    let end = i;
    while (end < n && text.charCodeAt(end) === 61 && end - i < 2) end += 1;
    const length = i - start;
    i = end;
    if (length < MIN_RUN) continue;
    // `LS0tLS1` is `-----`, `ey`/`ew`/`W3` open JSON (`{"`, `{\n`, `[`): decoded at any length; others only short.
    const structured =
      text.startsWith('LS0tLS1', start) ||
      text.startsWith('ey', start) ||
      text.startsWith('ew', start) ||
      text.startsWith('W3', start);
    if (!structured && (length > MAX_PAIR_RUN || !mayBePrintable(text, start, i))) continue;
    const decoded = Buffer.from(text.slice(start, end), 'base64').toString('latin1');
    const kind = decodedSecret(decoded);
    if (kind === undefined) continue;
    out += text.slice(copied, start) + redact(text.slice(start, end), kind);
    copied = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

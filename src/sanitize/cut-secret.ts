/**
 * A secret cut short at the end of a value. The SDK cuts attribute values at
 * `attributeValueLengthLimit` before any processor sees them, so a key can
 * reach the rules as `key sk-abcdefghijklm`: its known start, then fewer
 * characters than its rule needs. The last token of a value is redacted when
 * it begins with a known secret prefix (or follows an Authorization scheme)
 * and carries at least a few characters after it. Linear: one backward scan
 * over the last token.
 */
import { Buffer } from 'node:buffer';

/**
 * Starts of the formats the built-in rules know (case-sensitive), each with
 * what may follow it in a real secret: a token whose rest does not fit is a
 * word that happens to start the same way (`sk-learn-toolkit`), not a cut key.
 */
const PREFIXES: readonly (readonly [string, RegExp])[] = [
  ['sk-', /^(?:(?:proj|svcacct|admin|live|ant-(?:api|admin)\d\d)-[A-Za-z0-9_-]*|[A-Za-z0-9]+)$/],
  ['sk_live_', /^[A-Za-z0-9]+$/],
  ['sk_test_', /^[A-Za-z0-9]+$/],
  ['rk_live_', /^[A-Za-z0-9]+$/],
  ['rk_test_', /^[A-Za-z0-9]+$/],
  ['ghp_', /^[A-Za-z0-9]+$/],
  ['gho_', /^[A-Za-z0-9]+$/],
  ['ghu_', /^[A-Za-z0-9]+$/],
  ['ghs_', /^[A-Za-z0-9]+$/],
  ['ghr_', /^[A-Za-z0-9]+$/],
  ['github_pat_', /^[A-Za-z0-9_]+$/],
  ['glpat-', /^[A-Za-z0-9_-]+$/],
  ['xoxa-', /^[A-Za-z0-9-]+$/],
  ['xoxb-', /^[A-Za-z0-9-]+$/],
  ['xoxp-', /^[A-Za-z0-9-]+$/],
  ['xoxe-', /^[A-Za-z0-9-]+$/],
  ['xapp-', /^[A-Za-z0-9-]+$/],
  ['AKIA', /^[A-Z0-9]+$/],
  ['ASIA', /^[A-Z0-9]+$/],
  ['AIza', /^[0-9A-Za-z_-]+$/],
  ['ya29.', /^[0-9A-Za-z_-]+$/],
  ['hf_', /^[A-Za-z]+$/],
  ['gsk_', /^[A-Za-z0-9]+$/],
  ['xai-', /^[A-Za-z0-9]+$/],
  ['npm_', /^[A-Za-z0-9]+$/],
  ['pypi-', /^AgE[A-Za-z0-9_-]*$/],
  ['SG.', /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]*)?$/],
  ['eyJ', /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]*){0,2}$/],
];
const SCHEME = /(?:^|[\s"'])(?:Bearer|Basic|Token|ApiKey|Api-Key|Bot|Digest)\s+$/i;
/** A scheme written in lower case as a word of prose (`polling token endpoint`), then a word: no credential. */
const PROSE_SCHEME = /(?:^|[\s"'])(?:bearer|basic|token|bot|digest)\s+$/;
const PROSE_WORD = /^[a-z]+$/;
/** Characters after a prefix that make a cut secret rather than a mention of the prefix. */
const MIN_REST = 4;

function isTokenChar(c: number): boolean {
  // 0-9 A-Z a-z _ - . / + =
  return (
    (c >= 48 && c <= 57) ||
    (c >= 65 && c <= 90) ||
    (c >= 97 && c <= 122) ||
    c === 95 ||
    c === 45 ||
    c === 46 ||
    c === 47 ||
    c === 43 ||
    c === 61
  );
}

/**
 * `text` with its last token replaced by `redact(token)` when that token is
 * the start of a known secret cut short; `text` itself otherwise.
 */
export function redactCutSecret(text: string, redact: (token: string) => string): string {
  let start = text.length;
  while (start > 0 && isTokenChar(text.charCodeAt(start - 1))) start -= 1;
  const token = text.slice(start);
  if (token.length < MIN_REST) return text;
  const known = PREFIXES.find(([prefix]) => token.startsWith(prefix));
  const cut =
    known !== undefined
      ? token.length - known[0].length >= MIN_REST &&
        known[1].test(token.slice(known[0].length)) &&
        !(known[0] === 'eyJ' && isPlainJson(token))
      : SCHEME.test(text.slice(Math.max(0, start - 32), start)) &&
        !(PROSE_SCHEME.test(text.slice(Math.max(0, start - 32), start)) && PROSE_WORD.test(token));
  return cut ? text.slice(0, start) + redact(token) : text;
}

/** A JOSE header names its algorithm or type early (`{"alg":`, `{"typ":`); base64 JSON that does not is a cursor or a state, not a cut JWT. */
const JOSE_MEMBER = /"(?:alg|typ|kid|enc|cty|jku|x5u)"/;

/**
 * True when `token` (base64url from `eyJ`, no `.`) decodes to JSON that is
 * no JOSE header: a pagination cursor, not the start of a JWT cut short.
 * Too short to tell (under 8 decoded characters) is a JWT: fail closed.
 */
function isPlainJson(token: string): boolean {
  if (token.includes('.')) return false;
  const decoded = Buffer.from(token, 'base64url').toString('latin1');
  return decoded.length >= 8 && !JOSE_MEMBER.test(decoded);
}

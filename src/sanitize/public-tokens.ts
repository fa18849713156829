/**
 * Tokens that look random but are public on purpose, so the catch-all leaves
 * them: ids providers hand out (`chatcmpl-…`, `resp_…`), algorithm-labelled
 * digests (`sha512-…`), SSH public keys, data URLs' payloads and the public
 * members of a JSON Web Key.
 */
import { isAlnum } from './run-chars.js';

/** First segments of ids that providers return and users log on purpose; their bodies look random. */
// prettier-ignore
export const PUBLIC_ID_PREFIXES: ReadonlySet<string> = new Set([
  'chatcmpl', 'cmpl', 'resp', 'msg', 'fc', 'rs', 'ctc', 'call', 'run', 'thread', 'asst', 'file', 'batch', 'req',
  'request', 'toolu', 'srvtoolu', 'step', 'vs', 'ft', 'ftjob', 'gen', 'trace', 'span', 'evt', 'sess', 'session',
  'conv', 'item', 'img', 'comp', 'job', 'ws', 'pod', 'container',
]);
/** Algorithm labels: what follows is a digest (`sha512-…` in package-lock.json), not a key. */
export const DIGEST_LABEL = /^(?:sha\d*|sha3|md5|blake\d*[bs]?|xxh\d*|crc\d*|murmur\d*|sri|h1|hmac)$/i;

/** SSH public key types: the base64 after them is a public key. */
export const SSH_KEY_TYPE =
  /^(?:ssh-(?:rsa|dss|ed25519|ed448)|ecdsa-sha2-nistp\d+|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)$/;

/**
 * True when the run starts with an id prefix (`chatcmpl-`, `resp_`) or an
 * algorithm label (`sha512-`): an id or a digest, whatever follows.
 */
export function hasPublicLead(text: string, start: number, end: number): boolean {
  let at = start;
  while (at < end && at - start <= 8 && isAlnum(text.charCodeAt(at))) at += 1;
  const separator = text.charCodeAt(at);
  if (at === start || at >= end || (separator !== 95 && separator !== 45 && separator !== 46)) return false;
  const lead = text.slice(start, at);
  return DIGEST_LABEL.test(lead) || PUBLIC_ID_PREFIXES.has(lead.toLowerCase());
}

/**
 * The run after `base64,` (a data URL's payload), after an SSH key type (a
 * public key), or after an algorithm label (`SHA256:…` fingerprints) is
 * data, not a secret.
 */
export function excludedByContext(text: string, start: number, previousRunStart: number, previousEnd: number): boolean {
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

/** True when the run at `start` is the value of a public JWK member ({@link PUBLIC_JWK_MEMBER}). */
export function isPublicJwkMember(text: string, start: number): boolean {
  return PUBLIC_JWK_MEMBER.test(text.slice(Math.max(0, start - 16), start));
}

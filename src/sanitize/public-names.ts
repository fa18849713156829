/**
 * Names that say their value is random by design but no secret: an
 * identifier, a version or a digest (`gen_ai.response.id`, `etag`), or a
 * public value, a certificate or a public key (`PublicKey`,
 * `tls.server.certificate_chain`). The catch-all does not take such a value
 * for a secret by its shape alone (docs/sanitization.md, "The catch-all").
 */
import { lastWords, packed } from './name-words.js';
/** The last word of a name that says its value is an identifier, a version or a digest (`gen_ai.response.id`, `x-amz-id-2`, `etag`). */
const IDENTIFIER_WORD =
  /(?:^|[._-])(?:id|ids|uid|uuid|guid|etag|digest|hash|checksum|fingerprint|sha|cursor|version|revision|rev|commit)(?:[-_]?\d+)?$/;
/** The same word as a camel-case hump: `requestId`, `contentHash`, `nextCursor`. */
const IDENTIFIER_HUMP =
  /[a-z0-9](?:Id|Ids|ID|Uid|Uuid|Guid|ETag|Etag|Digest|Hash|Checksum|Fingerprint|Sha|Cursor|Version|Revision|Rev|Commit)(?:[-_]?\d+)?$/;

/**
 * True when `name` says its value is an identifier, a version or a digest:
 * such a value is random by design, so it is not taken for a secret by its
 * shape alone (docs/sanitization.md, "The catch-all").
 */
export function isIdentifierName(name: string): boolean {
  return IDENTIFIER_WORD.test(name.toLowerCase()) || IDENTIFIER_HUMP.test(name);
}

/** Last three letters of the words that end a public name (`key`, `keys`, `cert`, `certs`, `certificate(s)`, `pubkey`, `pem`, `chain`, `bundle`). */
const PUBLIC_ENDINGS: ReadonlySet<number> = new Set(
  ['key', 'eys', 'ert', 'rts', 'ate', 'tes', 'pem', 'ain', 'dle'].map((e) => packed(e, 0)),
);

/** Cheap test before {@link isPublicName}: reads three characters, allocates nothing. */
export function mayNamePublic(text: string, start: number, end: number): boolean {
  return end - start >= 3 && PUBLIC_ENDINGS.has(packed(text, end - 3));
}

/** Last words that name a public value: a certificate, a public key. */
const PUBLIC_WORDS: ReadonlySet<string> = new Set([
  'certificate',
  'certificates',
  'cert',
  'certs',
  'pubkey',
  'publickey',
  'pem',
]);
/** Words before `key` that make it public: a public key, a verification key, an SSH host key. */
const PUBLIC_KEY_KINDS: ReadonlySet<string> = new Set(['public', 'pub', 'verification', 'verifying', 'host']);

/**
 * True when `name` says its value is public by design: a certificate or a
 * public key (`tls.server.certificate_chain`, `PublicKey`, `RSA_PUBLIC_KEY`,
 * `ssh.host_key`). Random-looking base64 under it is not a secret by shape
 * (docs/sanitization.md, "The catch-all").
 */
export function isPublicName(name: string): boolean {
  if (name.length === 0 || name.length > 128) return false;
  const { last, before } = lastWords(name);
  if (PUBLIC_WORDS.has(last)) return true;
  if (last === 'chain' || last === 'bundle') return PUBLIC_WORDS.has(before);
  return (last === 'key' || last === 'keys') && PUBLIC_KEY_KINDS.has(before);
}

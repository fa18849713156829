/**
 * What a base64 run decodes to when it is data, not a key: text (a cursor, a
 * JSON state), a file (an image, audio, a document) by its signature, or a DER
 * certificate or public key. A DER private key is told apart by its version
 * field, so the catch-all can still take it for a secret.
 */
import { Buffer } from 'node:buffer';
/** The bytes of a base64 or base64url run, or undefined when it is not base64. */
export function decodedBytes(run: string): Buffer | undefined {
  if (/[^A-Za-z0-9+/=_-]/.test(run)) return undefined;
  // A run cut short (not a multiple of 4) still decodes to the bytes it starts with.
  return Buffer.from(run.slice(0, run.length - (run.length % 4)), 'base64');
}

/** True when 95% of `bytes` are printable ASCII: base64 of text (a pagination cursor, a JSON state). */
export function isPrintable(bytes: Buffer): boolean {
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

/** True when `bytes` start with one of {@link FILE_SIGNATURES}. */
export function hasFileSignature(bytes: Buffer): boolean {
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
export function isDerPrivateKey(bytes: Buffer): boolean {
  const first = derFirstField(bytes);
  return first > 0 && bytes[first] === 0x02 && bytes[first + 1] === 0x01 && (bytes[first + 2] as number) <= 1;
}

/** A DER certificate or public key (SubjectPublicKeyInfo): a SEQUENCE whose first field is a SEQUENCE. */
export function isDerPublic(bytes: Buffer): boolean {
  const first = derFirstField(bytes);
  return first > 0 && bytes[first] === 0x30;
}

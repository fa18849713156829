/**
 * Encoded data (src/sanitize/encoded-data.ts): what a base64 run decodes to
 * when it is data, not a key.
 */
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import {
  decodedBytes,
  hasFileSignature,
  isDerPrivateKey,
  isDerPublic,
  isPrintable,
} from '../../src/sanitize/encoded-data.js';

const b64 = (bytes: number[] | string) => Buffer.from(bytes as never).toString('base64');

describe('decodedBytes', () => {
  it('decodes base64 and base64url', () => {
    expect(decodedBytes(b64('{"page":2}'))?.toString()).toBe('{"page":2}');
    expect(decodedBytes(Buffer.from([0xfb, 0xff, 0xbf]).toString('base64url'))).toEqual(
      Buffer.from([0xfb, 0xff, 0xbf]),
    );
  });

  it('decodes a run cut short to the bytes it starts with', () => {
    expect(decodedBytes('aGVsbG8gd29ybGQ')?.toString()).toBe('hello wor');
  });

  it.each(['a b', 'abc!', 'a.b', 'ab:c'])('is undefined for %j, which is not base64', (run) => {
    expect(decodedBytes(run)).toBeUndefined();
  });
});

describe('isPrintable', () => {
  it.each([
    ['text', Buffer.from('{"cursor":"abc"}\n'), true],
    ['19 printable bytes of 20', Buffer.from([...Buffer.from('a'.repeat(19)), 0]), true],
    ['18 printable bytes of 20', Buffer.from([...Buffer.from('a'.repeat(18)), 0, 1]), false],
    ['random bytes', Buffer.from([0x00, 0x9f, 0xc3, 0x11, 0xfe]), false],
    ['nothing', Buffer.alloc(0), false],
  ])('%s → %s', (_, bytes, printable) => {
    expect(isPrintable(bytes)).toBe(printable);
  });
});

describe('hasFileSignature', () => {
  it.each([
    ['PNG', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a], true],
    ['JPEG', [0xff, 0xd8, 0xff, 0xe0], true],
    ['PDF', [...Buffer.from('%PDF-1.7')], true],
    ['WAV', [...Buffer.from('RIFF')], true],
    ['MP3', [...Buffer.from('ID3')], true],
    ['ZIP', [0x50, 0x4b, 0x03, 0x04], true],
    ['WebM', [0x1a, 0x45, 0xdf, 0xa3], true],
    ['a PNG signature cut short', [0x89, 0x50, 0x4e], false],
    ['random bytes', [0x12, 0x34, 0x56, 0x78], false],
  ])('%s → %s', (_, bytes, file) => {
    expect(hasFileSignature(Buffer.from(bytes))).toBe(file);
  });
});

describe('DER', () => {
  it.each([
    ['a PKCS#1 private key', [0x30, 0x82, 0x04, 0xa4, 0x02, 0x01, 0x00, 0x02], true, false],
    ['a PKCS#8 private key, short length', [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30], true, false],
    ['a SEC1 private key (version 1)', [0x30, 0x77, 0x02, 0x01, 0x01, 0x04], true, false],
    ['a certificate', [0x30, 0x82, 0x03, 0x0f, 0x30, 0x82, 0x02, 0xf7], false, true],
    ['a public key, short length', [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03], false, true],
    ['an integer of version 2', [0x30, 0x2e, 0x02, 0x01, 0x02, 0x30], false, false],
    ['no SEQUENCE', [0x31, 0x2e, 0x30, 0x05], false, false],
    ['a length of too many octets', [0x30, 0x85, 0x00, 0x00, 0x00, 0x00, 0x01, 0x30], false, false],
    ['too short', [0x30, 0x02, 0x30], false, false],
  ])('%s: private %s, public %s', (_, bytes, privateKey, publicKey) => {
    const buffer = Buffer.from(bytes);
    expect([isDerPrivateKey(buffer), isDerPublic(buffer)]).toEqual([privateKey, publicKey]);
  });
});

/**
 * Encoded secrets (src/sanitize/encoded-secret.ts): base64 runs redacted
 * whole when they decode to a private key, to JSON holding a credential, or
 * to a `user:password` pair.
 */
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { replaceEncodedSecrets } from '../../src/sanitize/encoded-secret.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const redact = (run: string, kind: string) => `[${kind}:${run.length}]`;

const PEM = b64('-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n');
const SERVICE_ACCOUNT = b64('{"type":"service_account","client_secret":"Xk9QvT2mLp7RwZ4aBn8cYd3e"}');
const PASSWORD_JSON = b64('{"user":"app","password":"hunter22"}');
const PAIR = b64('deploy:S3cr3tPass');
const CURSOR = b64('{"page":2,"after":"item_42"}');

describe('replaceEncodedSecrets', () => {
  it.each([
    ['a PEM private key', `client-key-data: ${PEM}`, `client-key-data: [private_key:${PEM.length}]`],
    ['JSON with a random client secret', `creds ${SERVICE_ACCOUNT}`, `creds [secret:${SERVICE_ACCOUNT.length}]`],
    ['JSON with a password member', `cfg=${PASSWORD_JSON};`, `cfg=[secret:${PASSWORD_JSON.length}];`],
    ['a user:password pair', `_auth=${PAIR}`, `_auth=[credentials:${PAIR.length}]`],
  ])('redacts %s', (_, text, redacted) => {
    expect(replaceEncodedSecrets(text, redact)).toBe(redacted);
  });

  it.each([
    ['a pagination cursor', `next=${CURSOR}`],
    ['a pair with a space', `x ${b64('user:pass word')}`],
    ['a pair with two colons', `x ${b64('a:b:cdef')}`],
    ['a pair with a short password', `x ${b64('user:abc')}`],
    ['ordinary words', 'the quick brown fox jumps over the lazy dog'],
    ['an identifier', 'secretsManagerGetSecretValue'],
  ])('leaves %s', (_, text) => {
    expect(replaceEncodedSecrets(text, redact)).toBe(text);
  });

  it('redacts each secret run and keeps the text between them', () => {
    expect(replaceEncodedSecrets(`a ${PAIR} b ${CURSOR} c ${PAIR}`, redact)).toBe(
      `a [credentials:${PAIR.length}] b ${CURSOR} c [credentials:${PAIR.length}]`,
    );
  });

  it('takes trailing padding into the run it redacts', () => {
    const padded = b64('admin:passw0rd');
    expect(padded.endsWith('=')).toBe(true);
    expect(replaceEncodedSecrets(`${padded} x`, redact)).toBe(`[credentials:${padded.length}] x`);
  });
});

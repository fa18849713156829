/**
 * Public names (src/sanitize/public-names.ts): names that say their value is
 * an identifier, a digest or a public value, so its shape alone is no secret.
 */
import { describe, expect, it } from 'vitest';
import { isIdentifierName, isPublicName, mayNamePublic } from '../../src/sanitize/public-names.js';

describe('isIdentifierName', () => {
  it.each([
    ['gen_ai.response.id', true],
    ['x-amz-id-2', true],
    ['etag', true],
    ['ETag', true],
    ['requestId', true],
    ['contentHash', true],
    ['nextCursor', true],
    ['git.commit', true],
    ['schema_version', true],
    ['sha256', true],
    ['user_ids', true],
    ['api_key', false],
    ['password', false],
    ['valid', false],
    ['Id', true],
    ['Kid', false],
    ['hidden', false],
  ])('%s → %s', (name, identifier) => {
    expect(isIdentifierName(name)).toBe(identifier);
  });
});

describe('isPublicName', () => {
  it.each([
    ['PublicKey', true],
    ['RSA_PUBLIC_KEY', true],
    ['ssh.host_key', true],
    ['verification_keys', true],
    ['pubkey', true],
    ['tls.server.certificate_chain', true],
    ['ca_cert_bundle', true],
    ['cert', true],
    ['server.pem', true],
    ['private_key', false],
    ['api_key', false],
    ['key', false],
    ['block_chain', false],
    ['', false],
    [`${'a'.repeat(130)}_cert`, false],
  ])('%s → %s', (name, isPublic) => {
    expect(isPublicName(name)).toBe(isPublic);
  });
});

describe('mayNamePublic', () => {
  it.each([
    ['PublicKey', true],
    ['keys', true],
    ['cert', true],
    ['certs', true],
    ['certificate', true],
    ['certificates', true],
    ['pem', true],
    ['chain', true],
    ['bundle', true],
    ['password', false],
    ['id', false],
  ])('%s → %s', (name, may) => {
    expect(mayNamePublic(name, 0, name.length)).toBe(may);
  });

  it('passes every public name', () => {
    const names = ['PublicKey', 'RSA_PUBLIC_KEY', 'tls.server.certificate_chain', 'ca_cert_bundle', 'pubkey'];
    expect(names.filter((n) => isPublicName(n) && !mayNamePublic(n, 0, n.length))).toEqual([]);
  });
});

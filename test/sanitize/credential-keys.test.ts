/**
 * Credential keys (src/sanitize/credential-keys.ts): a captured HTTP header
 * is a credential when its name says so (authorization, cookies, sessions,
 * any credential word); any other key only when its name is a strong
 * credential name.
 */
import { describe, expect, it } from 'vitest';
import { HEADER_KEY_PREFIXES, isCredentialKey, isCredentialName } from '../../src/sanitize/credential-keys.js';

describe('isCredentialKey', () => {
  it.each([
    ['http.request.header.authorization', true],
    ['http.response.header.set-cookie', true],
    ['ai.request.headers.x-session-id', true],
    ['ai.response.headers.x-api-key', true],
    ['http.request.header.content-type', false],
    ['authorization', false],
    ['http.method', false],
  ])('%s → %s', (key, credential) => {
    expect(isCredentialKey(key)).toBe(credential);
  });

  it('reads the headers captured under each instrumentation prefix', () => {
    expect(HEADER_KEY_PREFIXES.map((prefix) => isCredentialKey(`${prefix}authorization`))).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });
});

describe('isCredentialName', () => {
  it.each([
    ['api_key', true],
    ['password', true],
    ['gen_ai.usage.input_tokens', false],
    ['http.method', false],
  ])('%s → %s', (key, credential) => {
    expect(isCredentialName(key)).toBe(credential);
  });
});

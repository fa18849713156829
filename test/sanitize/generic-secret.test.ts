/**
 * The catch-all (src/sanitize/generic-secret.ts): secrets whose format no
 * rule names, found by a name before them or by their shape, in one pass.
 */
import { describe, expect, it } from 'vitest';
import { replaceGenericSecrets } from '../../src/sanitize/generic-secret.js';

const KEY = 'Xk9QvT2mLp7RwZ4aBn8cYd3e';
const ALONE = 'Xk9QvT2mLp7RwZ4aBn8cYd3eFg5hJk6LmN1p';
const redact = () => '<S>';
const scrub = (text: string) => replaceGenericSecrets(text, redact);

describe('replaceGenericSecrets: named values', () => {
  it.each([
    ['key=value', 'DB_PASSWORD=hunter2', 'DB_PASSWORD=<S>'],
    ['key: value', 'client_secret: hunter2', 'client_secret: <S>'],
    ['JSON', '{"apiKey": "hunter2"}', '{"apiKey": "<S>"}'],
    ['escaped JSON', '{\\"password\\":\\"hunter2\\"}', '{\\"password\\":\\"<S>\\"}'],
    ['a flag and its value', 'tool --client-secret hunter2', 'tool --client-secret <S>'],
    ['a flag=value', 'tool --token=hunter2', 'tool --token=<S>'],
    ['a header', 'x-functions-key: hunter2', 'x-functions-key: <S>'],
    ['a weak name assigned a random value', `key=${KEY}`, 'key=<S>'],
    ['a strong name one word before a random value', `token is ${KEY}`, 'token is <S>'],
    ['a login verb argument', `snyk auth ${KEY}`, 'snyk auth <S>'],
    ['a glued password flag after a user flag', 'mysql -u app -pS3cr3t', 'mysql -u app -p<S>'],
  ])('redacts the value of %s', (_, text, scrubbed) => {
    expect(scrub(text)).toBe(scrubbed);
  });

  it.each([
    ['a placeholder', 'password=<your-password>'],
    ['a non-credential name', 'model=gpt-4o-mini'],
    ['a weak name before a word', 'key is cache'],
    ['a weak name merely near a random value', `key ${KEY}`],
    ['a weak name assigned a UUID', 'key=0b7c4a1e-1f2d-4c3b-9a8e-7d6c5b4a3f21'],
    ['a plain key name assigned a random value', `cache_key=${KEY}`],
    ['a strong name near a word that does not look random', 'the token is expired'],
    ['a pagination token', 'next_page_token=abc123'],
    ['a glued password flag with no user flag', 'tar -pS3cr3t'],
  ])('leaves %s', (_, text) => {
    expect(scrub(text)).toBe(text);
  });
});

describe('replaceGenericSecrets: by shape', () => {
  it.each([
    ['a lone random run', `found ${ALONE} in the log`, 'found <S> in the log'],
    ['a prefixed key', `use tvly-${KEY}Fg5hJk6L`, 'use <S>'],
    ['two secrets', `${ALONE} and ${ALONE}`, '<S> and <S>'],
    ['the rest of a token glued to a marker', `SG.${KEY}[redacted:secret]`, '<S>[redacted:secret]'],
  ])('redacts %s', (_, text, scrubbed) => {
    expect(scrub(text)).toBe(scrubbed);
  });

  it.each([
    ['a provider id', `id chatcmpl-${ALONE}`],
    ['an SSH public key', `ssh-ed25519 ${ALONE}`],
    ['a data URL payload', `data:image/png;base64,${ALONE}`],
    ['the value of a public name', `PublicKey = ${ALONE}`],
    ['a public PEM block', `-----BEGIN CERTIFICATE-----\n${ALONE}\n-----END CERTIFICATE-----`],
    ['a public JWK member', `{"kty":"RSA","n":"${ALONE}","e":"AQAB"}`],
    ['a redaction marker', `[redacted:secret:${ALONE}]`],
  ])('leaves %s', (_, text) => {
    expect(scrub(text)).toBe(text);
  });

  it('finds only named secrets in an identifier', () => {
    expect(replaceGenericSecrets(ALONE, redact, { identifier: true })).toBe(ALONE);
    expect(replaceGenericSecrets('password=hunter2', redact, { identifier: true })).toBe('password=<S>');
  });

  it('hands the secret itself to redact', () => {
    const seen: string[] = [];
    replaceGenericSecrets(`a ${ALONE} b password=hunter2`, (secret) => {
      seen.push(secret);
      return '';
    });
    expect(seen).toEqual([ALONE, 'hunter2']);
  });
});

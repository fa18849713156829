/**
 * Credential words (src/sanitize/credential-words.ts): how strongly a name,
 * in any case style, says its value is a credential.
 */
import { describe, expect, it } from 'vitest';
import { credentialName, mayNameCredential } from '../../src/sanitize/credential-words.js';

describe('credentialName', () => {
  it.each([
    // A credential word ends the name, in any case style.
    ['DB_PASSWORD', 'strong'],
    ['dbPassword', 'strong'],
    ['db-password', 'strong'],
    ['db.password', 'strong'],
    ['--client-secret', 'strong'],
    ['_authToken', 'strong'],
    ['password2', 'strong'],
    // A secret kind before `key`.
    ['api_key', 'strong'],
    ['AccountKey', 'strong'],
    ['x-functions-key', 'strong'],
    ['ocp-apim-subscription-key', 'strong'],
    // Glued single-case names.
    ['dbpassword', 'strong'],
    ['APIKEY', 'strong'],
    ['clientsecret', 'strong'],
    ['authtoken', 'strong'],
    ['BOTTOKEN', 'strong'],
    ['accountkey', 'strong'],
    // Bundler host credentials.
    ['BUNDLE_ENTERPRISE__CONTRIBSYS__COM', 'strong'],
    // A bare key or a signature only weakly.
    ['key', 'weak'],
    ['x-key', 'weak'],
    ['signature', 'weak'],
    ['url_sig', 'weak'],
    // Words that say otherwise.
    ['next_page_token', 'none'],
    ['max_token', 'none'],
    ['existingSecret', 'none'],
    ['cache_key', 'none'],
    ['publicKey', 'none'],
    ['messaging.kafka.message.key', 'none'],
    ['token_count', 'none'],
    ['passwordFile', 'none'],
    ['tiktoken', 'none'],
    ['http.method', 'none'],
    ['', 'none'],
    ['ab', 'none'],
  ])('%s → %s', (name, strength) => {
    expect(credentialName(name)).toBe(strength);
  });

  it('judges names longer than 128 characters as none', () => {
    expect(credentialName(`${'a'.repeat(121)}_password`)).toBe('none');
    expect(credentialName(`${'a'.repeat(110)}_password`)).toBe('strong');
  });
});

describe('mayNameCredential', () => {
  it.each([
    ['password', true],
    ['API_KEY', true],
    ['token__42', true],
    ['auth', true],
    ['BUNDLE_X', true],
    ['username', false],
    ['model', false],
    ['ke', false],
    ['12', false],
  ])('%s → %s', (word, may) => {
    expect(mayNameCredential(word, 0, word.length)).toBe(may);
  });

  it('reads only the range it is given', () => {
    const text = 'x password y';
    expect(mayNameCredential(text, 2, 10)).toBe(true);
    expect(mayNameCredential(text, 0, 1)).toBe(false);
  });

  it('passes every name credentialName calls a credential', () => {
    const names = [
      'DB_PASSWORD',
      'api_key',
      'authtoken',
      'signature',
      'privatekey',
      'passphrase',
      'pat',
      'credentials',
    ];
    expect(names.filter((name) => !mayNameCredential(name, 0, name.length))).toEqual([]);
  });
});

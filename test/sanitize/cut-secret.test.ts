/**
 * Cut secrets (src/sanitize/cut-secret.ts): a known secret prefix, or a token
 * after an Authorization scheme, cut short at the end of a value.
 */
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { redactCutSecret } from '../../src/sanitize/cut-secret.js';

const redact = (token: string) => `[cut:${token.length}]`;

describe('redactCutSecret', () => {
  it.each([
    ['an OpenAI key', 'key sk-abcdefghijklm', 'key [cut:16]'],
    ['an OpenAI project key', 'using sk-proj-Ab3_', 'using [cut:12]'],
    ['a GitHub token', 'token: ghp_Ab12', 'token: [cut:8]'],
    ['an AWS access key id', 'id AKIAQ1Z2', 'id [cut:8]'],
    ['a Stripe key', 'sk_live_51Hq', '[cut:12]'],
    ['a JWT cut after its header', 'Authorization: eyJhbGciOiJIUzI1NiJ9.eyJz', 'Authorization: [cut:25]'],
    ['a token after a Bearer scheme', 'Authorization: Bearer abcd', 'Authorization: Bearer [cut:4]'],
    ['a token after a quoted Basic scheme', '"Basic dXNlcjpw', '"Basic [cut:8]'],
  ])('redacts %s at the end', (_, text, redacted) => {
    expect(redactCutSecret(text, redact)).toBe(redacted);
  });

  it.each([
    ['a word that starts like a prefix', 'pip install sk-learn-toolkit'],
    ['a prefix with too few characters after it', 'key sk-abc'],
    ['a last token shorter than 4', 'key ab'],
    ['a token after a scheme shorter than 4', 'Bearer abc'],
    ['a prefix glued to the word before it', 'token=ghp_Ab12'],
    ['a prefix not at the end', 'sk-abcdefghijklm is the key'],
    ['a prefix in another case', 'SK-abcdefghijklm'],
    ['a prose scheme followed by a word', 'the polling token endpoint'],
    ['a lower-case word after bearer in prose', 'the bearer carries'],
    ['base64 JSON that is no JOSE header', `cursor ${Buffer.from('{"page":2,"size":50}').toString('base64url')}`],
    ['no scheme before a plain token', 'value abcdef'],
  ])('leaves %s', (_, text) => {
    expect(redactCutSecret(text, redact)).toBe(text);
  });

  it('redacts a short eyJ token as a JWT: too short to tell, fail closed', () => {
    expect(redactCutSecret('x eyJhbGci', redact)).toBe('x [cut:8]');
  });

  it('redacts a capitalised scheme followed by a word', () => {
    expect(redactCutSecret('Bearer hunter', redact)).toBe('Bearer [cut:6]');
  });
});

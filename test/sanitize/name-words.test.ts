/**
 * Name words (src/sanitize/name-words.ts): the last two words of a name in
 * any case style, and the three-letter fingerprint of a word's end.
 */
import { describe, expect, it } from 'vitest';
import { lastWords, packed } from '../../src/sanitize/name-words.js';

describe('lastWords', () => {
  it.each([
    ['DB_PASSWORD', { last: 'password', before: 'db', glued: true }],
    ['dbPassword', { last: 'password', before: 'db', glued: false }],
    ['db-password', { last: 'password', before: 'db', glued: true }],
    ['db.password', { last: 'password', before: 'db', glued: true }],
    ['APIKey', { last: 'key', before: 'api', glued: false }],
    ['dbpassword', { last: 'dbpassword', before: '', glued: true }],
    ['password2', { last: 'password', before: '', glued: true }],
    ['token_', { last: 'token', before: '', glued: true }],
    ['a.b.c_d', { last: 'd', before: 'c', glued: true }],
    ['v2Token', { last: 'token', before: 'v', glued: false }],
    ['--api-key', { last: 'key', before: 'api', glued: true }],
    ['x-amz-id-2', { last: 'id', before: 'amz', glued: true }],
    ['', { last: '', before: '', glued: true }],
    ['123', { last: '', before: '', glued: true }],
  ])('%s → %o', (name, words) => {
    expect(lastWords(name)).toEqual(words);
  });
});

describe('packed', () => {
  it('packs three letters into one number, lower-cased', () => {
    expect(packed('abc', 0)).toBe((97 << 16) | (98 << 8) | 99);
    expect(packed('ABC', 0)).toBe(packed('abc', 0));
    expect(packed('xxKeY', 2)).toBe(packed('key', 0));
  });

  it('tells different endings apart', () => {
    expect(packed('key', 0)).not.toBe(packed('kez', 0));
    expect(packed('ord', 0)).not.toBe(packed('dro', 0));
  });
});

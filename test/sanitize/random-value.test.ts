/**
 * Random values (src/sanitize/random-value.ts): whether a value looks like
 * the secret its name announces, by the name's strength.
 */
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import {
  isIdShapedToken,
  isLoginArgumentValue,
  isNamedSecretShape,
  looksLikeKey,
  looksRandomValue,
} from '../../src/sanitize/random-value.js';

const KEY = 'Xk9QvT2mLp7RwZ4aBn8c';
const UUID = '0b7c4a1e-1f2d-4c3b-9a8e-7d6c5b4a3f21';
const HEX = 'c53dffd5a1b2e4f7c53d';

describe('isIdShapedToken', () => {
  it.each([
    [UUID, true],
    [HEX, true],
    ['c53dffd5a1b2e4f', false],
    ['0123456789012345', false],
    ['abcdefabcdefabcd', false],
    [KEY, false],
  ])('%s → %s', (run, id) => {
    expect(isIdShapedToken(run, 0, run.length)).toBe(id);
  });
});

describe('isNamedSecretShape', () => {
  it.each([
    ['a random key', KEY, 'strong', true],
    ['a random key', KEY, 'weak', true],
    ['a hex key', HEX, 'strong', true],
    ['a hex key', HEX, 'weak', false],
    ['a UUID', UUID, 'weak', false],
    ['an option', 'Xk9QvT2mLp=7RwZ4aBn8c', 'weak', false],
    ['an option', 'Xk9QvT2mLp=7RwZ4aBn8c', 'strong', true],
    ['base64 of text', Buffer.from('{"ExclusiveStartKey":{"pk":"user#42"}}').toString('base64'), 'weak', false],
    ['a composite name', 'node-cache-Linux-x64', 'strong', false],
    ['a value with a space', 'Xk9QvT2m Lp7RwZ4aBn8c', 'strong', false],
    ['a short value', 'Xk9Qv', 'strong', false],
    ['a word', 'passwordpassword', 'strong', false],
  ] as const)('%s under a %s name → %s', (_, value, strength, secret) => {
    expect(isNamedSecretShape(value, strength)).toBe(secret);
  });

  it('lets a long token of three classes through on the name alone', () => {
    // Few turns: the shape alone would hesitate.
    const vouched = 'TZDKWJRFQOMC2Jvnaz';
    expect(isNamedSecretShape(vouched, 'weak')).toBe(true);
  });
});

describe('looksRandomValue', () => {
  it('reads only the range it is given', () => {
    const text = `key=${KEY};`;
    expect(looksRandomValue(text, 4, 4 + KEY.length, 'strong')).toBe(true);
    expect(looksRandomValue(text, 4, 14, 'strong')).toBe(false);
    expect(looksRandomValue(text, 4, 14, 'strong', 10)).toBe(true);
  });
});

describe('isLoginArgumentValue', () => {
  it.each([
    [KEY, true],
    [UUID, true],
    [HEX, true],
    ['myproject', false],
    ['--relogin', false],
  ])('%s → %s', (value, credential) => {
    expect(isLoginArgumentValue(value)).toBe(credential);
  });
});

describe('looksLikeKey', () => {
  it.each([
    [KEY, true],
    [HEX, true],
    ['secretsManagerGetSecretValue', false],
    ['deepseek-ai/DeepSeek-R1-Distill-Qwen-32B', false],
    ['short1A', false],
  ])('%s → %s', (value, key) => {
    expect(looksLikeKey(value)).toBe(key);
  });
});

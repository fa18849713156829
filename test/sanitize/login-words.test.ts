/**
 * Login words (src/sanitize/login-words.ts): command-line words that say a
 * credential follows.
 */
import { describe, expect, it } from 'vitest';
import {
  isLoginCommand,
  isLoginVerb,
  isPasswordLetterFlag,
  isUserFlag,
  isUserNameFlag,
  mayBeLoginVerb,
} from '../../src/sanitize/login-words.js';

describe('isLoginVerb', () => {
  it.each([
    ['login', true],
    ['auth', true],
    ['authenticate', true],
    ['Login', false],
    ['logout', false],
    ['add-authtoken', false],
  ])('%s → %s', (word, verb) => {
    expect(isLoginVerb(word)).toBe(verb);
  });
});

describe('isLoginCommand', () => {
  it.each([
    ['login', true],
    ['auth', true],
    ['add-authtoken', true],
    ['set-token', true],
    ['authtoken', true],
    ['set-password', true],
    ['Set-Token', false],
    ['set_token', false],
    ['config', false],
    ['next-page-token', false],
    [`${'a'.repeat(20)}-token`, false],
  ])('%s → %s', (word, command) => {
    expect(isLoginCommand(word)).toBe(command);
  });
});

describe('mayBeLoginVerb', () => {
  it.each([
    ['login', true],
    ['auth', true],
    ['authenticate', true],
    ['list', true],
    ['bogus', false],
    ['log', false],
    ['logins', false],
  ])('%s → %s', (word, may) => {
    expect(mayBeLoginVerb(word, 0, word.length)).toBe(may);
  });

  it('passes every login verb', () => {
    expect(['login', 'auth', 'authenticate'].every((v) => mayBeLoginVerb(`x ${v} y`, 2, 2 + v.length))).toBe(true);
  });
});

describe('flags', () => {
  it.each([
    ['-u', true, true, false],
    ['-U', true, true, false],
    ['--user', true, true, false],
    ['--http-user', true, false, false],
    ['--proxy-user', true, false, false],
    ['--username', false, true, false],
    ['-D', false, true, false],
    ['--bind-dn', false, true, false],
    ['-p', false, false, true],
    ['-P', false, false, true],
    ['-w', false, false, true],
    ['-a', false, false, true],
    ['-x', false, false, false],
    ['--password', false, false, false],
  ])('%s: user flag %s, user name flag %s, password letter flag %s', (flag, user, userName, password) => {
    expect([isUserFlag(flag), isUserNameFlag(flag), isPasswordLetterFlag(flag)]).toEqual([user, userName, password]);
  });
});

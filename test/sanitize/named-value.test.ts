/**
 * Named values (src/sanitize/named-value.ts): how strongly a run names a
 * credential, and where the value after it ends and whether it is a secret.
 */
import { describe, expect, it } from 'vitest';
import type { NameContext } from '../../src/sanitize/named-value.js';
import {
  cachedIndexOf,
  isCall,
  isPasswordValue,
  isSecretValue,
  judgeNamedValue,
  nameStrength,
} from '../../src/sanitize/named-value.js';

const KEY = 'Xk9QvT2mLp7RwZ4aBn8cYd3e';

describe('nameStrength', () => {
  /** The strength of the last run of `text`, the run before it (if any) given as the previous run. */
  function strengthOfLast(text: string): string {
    const start = text.lastIndexOf(' ') + 1;
    const previousRunStart = start > 0 ? text.lastIndexOf(' ', start - 2) + 1 : -1;
    return nameStrength(text, start, text.length, previousRunStart, start > 0 ? start - 1 : -1);
  }

  it.each([
    ['password', 'strong'],
    ['api_key', 'strong'],
    ['key', 'weak'],
    ['model', 'none'],
    ['API key', 'strong'],
    ['access token', 'strong'],
    ['cache key', 'none'],
    ['page token', 'none'],
    ['-p', 'weak'],
    ['-x', 'weak'],
    [`${'a'.repeat(130)}_password`, 'none'],
  ])('%s → %s', (text, strength) => {
    expect(strengthOfLast(text)).toBe(strength);
  });

  it.each([
    ['$TOKEN', 1, 6],
    ['${TOKEN}', 2, 7],
  ])('takes the name in the shell variable %s for none: it stands for the value', (text, start, end) => {
    expect(nameStrength(text, start, end, -1, -1)).toBe('none');
    expect(nameStrength(`x ${text.slice(start, end)}`, 2, 2 + end - start, -1, -1)).toBe('strong');
  });
});

describe('isSecretValue', () => {
  it.each([
    ['strong', 'hunter2', true],
    ['strong', ' hunter2 ', true],
    ['strong', 'abc', false],
    ['strong', '<your-password>', false],
    ['strong', '--quiet', false],
    ['weak', KEY, true],
    ['weak', 'hunter2', false],
    ['weak', `${KEY} ${KEY}`, false],
    ['weak', `chatcmpl-${KEY}`, false],
    ['none', KEY, false],
  ] as const)('under a %s name, %j → %s', (strength, value, secret) => {
    expect(isSecretValue(strength, value)).toBe(secret);
  });
});

describe('isPasswordValue', () => {
  it.each([
    ['S3cr3t', true],
    ['hunter2', true],
    ['alllowercaseword', true],
    ['pthread', false],
    ['12345678', false],
    ['abc1', false],
    ['--quiet', false],
    ['/etc/mysql', false],
    ['pass word', false],
    ['<password>', false],
  ])('%s → %s', (value, password) => {
    expect(isPasswordValue(value)).toBe(password);
  });
});

describe('cachedIndexOf', () => {
  it('searches once and reuses the answer until the search passes it', () => {
    const cache = new Map<number, number>();
    const text = 'a"b"c';
    expect(cachedIndexOf(text, '"', 0, cache, 34)).toBe(1);
    expect(cache.get(34)).toBe(1);
    expect(cachedIndexOf(text, '"', 1, cache, 34)).toBe(1);
    expect(cachedIndexOf(text, '"', 2, cache, 34)).toBe(3);
    expect(cachedIndexOf(text, '"', 4, cache, 34)).toBe(-1);
    expect(cachedIndexOf(text, '"', 0, cache, 34)).toBe(-1);
  });
});

describe('judgeNamedValue', () => {
  const strong: NameContext = {
    strength: 'strong',
    flag: false,
    skipped: 0,
    colonPath: false,
    password: false,
    login: false,
    passwordFlag: false,
  };
  /** Judges the value after `name` in `text`: the run that starts right after the gap. */
  function judge(text: string, name: string, context: NameContext): string | number {
    const gapStart = text.indexOf(name) + name.length;
    let start = gapStart;
    while (start < text.length && ' =:"\'\\>'.includes(text[start] as string)) start += 1;
    let end = start;
    while (end < text.length && /[A-Za-z0-9_\-.+/~]/.test(text[end] as string)) end += 1;
    const judged = judgeNamedValue(text, gapStart, start, end, context, new Map());
    return judged > 0 ? text.slice(start, judged) : judged;
  }

  it.each([
    ['an assigned value, to its end', 'password=hunter2!x more', 'password', strong, 'hunter2!x'],
    ['a quoted value, to its closing quote', '{"token": "a b c d"}', 'token', strong, 'a b c d'],
    ['a JSON-escaped value', '{\\"token\\":\\"hunter2\\"}', 'token', strong, 'hunter2'],
    ['a random value merely near', `token ${KEY} x`, 'token', strong, KEY],
    ['a flag value', '--token hunter2', '--token', { ...strong, flag: true }, 'hunter2'],
    ['a quoted SQL password', "PASSWORD 'hunter2'", 'PASSWORD', { ...strong, password: true }, 'hunter2'],
    ['a password after a password flag', '-p S3cr3t', '-p', { ...strong, passwordFlag: true }, 'S3cr3t'],
  ])('takes %s', (_, text, name, context, value) => {
    expect(judge(text, name, context)).toBe(value);
  });

  it.each([
    ['a scheme word, which may be skipped', 'Authorization: Bearer x', 'Authorization:', strong, 0],
    ['a word merely near', 'token expired', 'token', strong, 0],
    ['a weak name merely near', `key ${KEY}`, 'key', { ...strong, strength: 'weak' }, 0],
    ['a gap longer than 16', `token${' '.repeat(17)}hunter2`, 'token', strong, -1],
    ['a line break in the gap', 'token=\nhunter2', 'token', strong, -1],
    ['a placeholder', 'password=<redacted>', 'password', strong, -1],
    ['a call', 'token = tokenizer.encode(text)', 'token', strong, -1],
    ['a flag after a flag', '--token --quiet', '--token', { ...strong, flag: true }, -1],
    ['an ARN path step', 'secret:prod/db', 'secret', { ...strong, colonPath: true }, -1],
    ['a C++ path', 'refresh_token::value', 'refresh_token', strong, -1],
    ['a skipped word then an assignment', 'secret x=hunter2', 'secret x', { ...strong, skipped: 1 }, -1],
    ['a short assigned value', 'password=abc', 'password', strong, -1],
  ])('rejects %s', (_, text, name, context, judged) => {
    expect(judge(text, name, context as NameContext)).toBe(judged);
  });
});

describe('isCall', () => {
  it.each([
    ['os.getenv', '("TOKEN")', true],
    ['SecretStr', '(value)', true],
    ['tokenizer.encode', '(text) + 1', true],
    ['Qgr7xZ', '(', false],
    ['os.getenv', '(\n"TOKEN")', false],
    ['getenv2', '(x)', false],
    ['os.getenv', ' (x)', false],
  ])('%s%s → %s', (value, following, call) => {
    expect(isCall(value, following)).toBe(call);
  });
});

/**
 * The sanitizer (src/sanitize/sanitizer.ts): per attribute key, whether a
 * value is removed, kept or scrubbed, by mode and the user's key lists.
 */
import { describe, expect, it } from 'vitest';
import { createSanitizer, sanitizeAttributes, scrubString } from '../../src/sanitize/sanitizer.js';

describe('createSanitizer().decide', () => {
  it.each([
    ['standard', 'gen_ai.input.messages', { action: 'remove', kind: 'content_key' }],
    ['standard', 'http.request.header.authorization', { action: 'remove', kind: 'credential_key' }],
    ['standard', 'gen_ai.request.model', { action: 'scrub' }],
    ['standard', 'db.password', { action: 'scrub', named: true }],
    ['standard', 'gen_ai.response.id', { action: 'scrub', named: true }],
    ['standard', 'tls.server.certificate', { action: 'scrub', named: true }],
    ['strict', 'gen_ai.request.model', { action: 'scrub' }],
    ['strict', 'gen_ai.response.id', { action: 'scrub', named: true }],
    ['strict', 'user.note', { action: 'remove', kind: 'not_allowed' }],
    ['strict', 'gen_ai.input.messages', { action: 'remove', kind: 'not_allowed' }],
    ['off', 'gen_ai.input.messages', { action: 'keep' }],
  ] as const)('in %s mode, %s → %o', (mode, key, decision) => {
    expect(createSanitizer({ mode }).decide(key)).toEqual(decision);
  });

  it('blocks before it allows, and allows before it removes content or credentials', () => {
    const sanitizer = createSanitizer({
      mode: 'strict',
      allowKeys: ['gen_ai.input.messages', 'both'],
      allowKeyPatterns: ['^http\\.request\\.header\\.'],
      blockKeys: ['gen_ai.request.model', 'both'],
      blockKeyPatterns: ['^secret\\.'],
    });
    expect(
      ['gen_ai.input.messages', 'http.request.header.authorization', 'gen_ai.request.model', 'both', 'secret.x'].map(
        (key) => sanitizer.decide(key),
      ),
    ).toEqual([
      { action: 'scrub' },
      { action: 'scrub' },
      { action: 'remove', kind: 'blocked_key' },
      { action: 'remove', kind: 'blocked_key' },
      { action: 'remove', kind: 'blocked_key' },
    ]);
  });

  it('reports its mode, standard by default', () => {
    expect([createSanitizer().mode, createSanitizer({ mode: 'strict' }).mode]).toEqual(['standard', 'strict']);
  });

  it.each([
    [{ allowKeyPatterns: ['('] }, /^invalid allowKeyPatterns entry "\(": /],
    [{ blockKeyPatterns: ['['] }, /^invalid blockKeyPatterns entry "\[": /],
    [{ valuePatterns: [{ pattern: '+' }] }, /^invalid valuePatterns pattern "\+": /],
    [{ valuePatterns: [{ pattern: 'a*' }] }, /^invalid valuePatterns pattern "a\*": it matches the empty string$/],
  ])('throws a TypeError naming a pattern that does not compile: %o', (options, message) => {
    expect(() => createSanitizer(options)).toThrow(TypeError);
    expect(() => createSanitizer(options)).toThrow(message);
  });

  it('redacts value patterns with their kind, custom by default', () => {
    const sanitizer = createSanitizer({
      valuePatterns: [{ pattern: 'ACME-\\d+' }, { pattern: 'EMP\\d{4}', kind: 'employee' }],
    });
    expect(sanitizer.scrub('ACME-42 by EMP1234')).toBe('[redacted:custom] by [redacted:employee]');
  });
});

describe('sanitizeAttributes', () => {
  it('removes content, scrubs strings and counts what changed', () => {
    expect(
      sanitizeAttributes({
        'gen_ai.input.messages': '[{"role":"user"}]',
        'gen_ai.request.model': 'gpt-4o',
        note: 'password=hunter2',
        'gen_ai.usage.input_tokens': 12,
      }),
    ).toEqual({
      attributes: {
        'gen_ai.request.model': 'gpt-4o',
        note: 'password=[redacted:secret]',
        'gen_ai.usage.input_tokens': 12,
      },
      changed: 2,
    });
  });

  it('uses the sanitizer it is given', () => {
    expect(sanitizeAttributes({ a: 'x' }, createSanitizer({ blockKeys: ['a'] }))).toEqual({
      attributes: {},
      changed: 1,
    });
  });

  it('gives an empty map for no attributes', () => {
    expect(sanitizeAttributes(undefined)).toEqual({ attributes: {}, changed: 0 });
  });
});

describe('scrubString', () => {
  it('scrubs with the standard sanitizer, cut to the length given', () => {
    expect(scrubString('password=hunter2')).toBe('password=[redacted:secret]');
    expect(scrubString('the agent stopped', 9)).toBe('the agent…[truncated]');
  });
});

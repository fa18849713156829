/**
 * isPlaceholder's promise (src/sanitize/placeholder.ts): the value after a
 * credential name is a placeholder (a type, a mask, a template or variable
 * reference, a store reference, a digest, a path, an instruction), never a
 * secret, and a value that looks random is not one.
 */
import { describe, expect, it } from 'vitest';
import { isPlaceholder } from '../../src/sanitize/placeholder.js';

describe('isPlaceholder', () => {
  it.each([
    ['empty', ''],
    ['a type name', 'string'],
    ['None', 'None'],
    ['a mask', '***'],
    ['a dashboard mask showing a few characters', 'sk-proj-****Xy9Q'],
    ['a template reference', '${OPENAI_API_KEY}'],
    ['a CI template', '{{ secrets.TOKEN }}'],
    ['an environment lookup', 'process.env.OPENAI_API_KEY'],
    ['a code reference', 'config.apiKey'],
    ['an instruction', 'your-api-key-here'],
    ['a secret store reference', 'op://vault/item/field'],
    ['a labelled digest', 'sha256:4289abcdef0123456789abcdef'],
    ['a file path', '/run/secrets/db'],
    ['a redaction marker', '[redacted:secret]'],
  ])('%s (%s) is a placeholder', (_case, value) => {
    expect(isPlaceholder(value)).toBe(true);
  });

  it.each([
    ['an API key', 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789'],
    ['a random token', 'Zx8Qw2Lm9Tp4Rv7Ks1Bn'],
    ['a path with a random segment', '/tmp/AbCdEfGhIjKlMnOpQrStUv'],
    ['a masked value showing too much', 'sk-proj-abcdefghij****Xy9Q'],
    ['anything over 200 characters', 'x'.repeat(201)],
  ])('%s is not', (_case, value) => {
    expect(isPlaceholder(value)).toBe(false);
  });
});

/** inKeyList's promise (src/sanitize/key-list.ts): a key is listed when it is an exact entry or starts with a listed prefix. */
import { describe, expect, it } from 'vitest';
import { inKeyList } from '../../src/sanitize/key-list.js';

describe('inKeyList', () => {
  const exact = new Set(['gen_ai.prompt']);
  const prefixes = ['gen_ai.input.', 'llm.'];
  it.each([
    ['an exact entry', 'gen_ai.prompt', true],
    ['a key under a prefix', 'gen_ai.input.messages', true],
    ['a key equal to a prefix with its dot', 'llm.', true],
    ['a key that only starts like an exact entry', 'gen_ai.prompt.0', false],
    ['a key that is a prefix without its dot', 'llm', false],
    ['any other key', 'http.method', false],
  ])('%s (%s) → %s', (_case, key, listed) => {
    expect(inKeyList(key, exact, prefixes)).toBe(listed);
  });
});

/**
 * Operational keys (src/sanitize/operational-keys.ts): the keys `strict`
 * mode keeps without being told to.
 */
import { describe, expect, it } from 'vitest';
import { isContentKey } from '../../src/sanitize/content-keys.js';
import { OPERATIONAL_KEY_PREFIXES, OPERATIONAL_KEYS, isOperationalKey } from '../../src/sanitize/operational-keys.js';

describe('isOperationalKey', () => {
  it.each([
    ['gen_ai.request.model', true],
    ['gen_ai.response.finish_reasons', true],
    ['error.type', true],
    ['ai.model.id', true],
    ['openinference.span.kind', true],
    ['traceloop.entity.name', true],
    ['gen_ai.usage.input_tokens', true],
    ['llm.token_count.prompt', true],
    ['incident.cause', true],
    ['agent_incidents.version', true],
    ['gen_ai.input.messages', false],
    ['exception.message', false],
    ['http.request.header.authorization', false],
    ['user.id', false],
    ['incident', false],
  ])('%s → %s', (key, kept) => {
    expect(isOperationalKey(key)).toBe(kept);
  });

  it('keeps every listed exact key and every key under a listed prefix', () => {
    expect([...OPERATIONAL_KEYS].filter((key) => !isOperationalKey(key))).toEqual([]);
    expect(OPERATIONAL_KEY_PREFIXES.filter((prefix) => !isOperationalKey(`${prefix}x`))).toEqual([]);
  });

  it('keeps no content key', () => {
    expect([...OPERATIONAL_KEYS].filter(isContentKey)).toEqual([]);
  });
});

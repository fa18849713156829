/**
 * Content keys (src/sanitize/content-keys.ts): keys that carry prompts,
 * outputs or tool arguments under each supported convention.
 */
import { describe, expect, it } from 'vitest';
import { CONTENT_KEY_PREFIXES, CONTENT_KEYS, isContentKey } from '../../src/sanitize/content-keys.js';

describe('isContentKey', () => {
  it.each([
    ['gen_ai.input.messages', true],
    ['ai.response.text', true],
    ['input.value', true],
    ['traceloop.entity.output', true],
    ['gen_ai.prompt.0.content', true],
    ['llm.input_messages.0.message.content', true],
    ['ai.telemetry.metadata.user', true],
    ['llm.tools.0.tool.json_schema', true],
    ['gen_ai.request.model', false],
    ['gen_ai.usage.input_tokens', false],
    ['ai.response.finishReason', false],
    ['http.method', false],
    ['input', false],
  ])('%s → %s', (key, content) => {
    expect(isContentKey(key)).toBe(content);
  });

  it('counts every listed exact key as content', () => {
    expect([...CONTENT_KEYS].filter((key) => !isContentKey(key))).toEqual([]);
  });

  it('counts any key under every listed prefix as content', () => {
    expect(CONTENT_KEY_PREFIXES.filter((prefix) => !isContentKey(`${prefix}x`))).toEqual([]);
  });
});

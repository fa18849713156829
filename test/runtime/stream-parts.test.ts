/**
 * The stream part types `AttemptRecorder.chunk` accepts (the AI SDK
 * `fullStream` part types) and the neutral output each shows; lifecycle-only
 * parts show none (docs/conventions.md#fact-events, `provider_progress`).
 */
import { describe, expect, it } from 'vitest';
import { streamOutputOf } from '../../src/runtime/stream-parts.js';

describe('stream part types', () => {
  it.each([
    ['text-start', 'text'],
    ['text-delta', 'text'],
    ['text', 'text'],
    ['reasoning-start', 'reasoning'],
    ['reasoning-delta', 'reasoning'],
    ['reasoning', 'reasoning'],
    ['tool-input-start', 'tool_input_started'],
    ['tool-input-end', 'tool_input_completed'],
    ['tool-call', 'tool_call'],
    ['tool-input-delta', 'other_output'],
    ['tool-result', 'other_output'],
    ['tool-error', 'other_output'],
    ['source', 'other_output'],
    ['file', 'other_output'],
  ])('%s shows %s', (type, output) => {
    expect(streamOutputOf(type)).toBe(output);
  });

  it.each(['start', 'stream-start', 'response-metadata', 'start-step', 'finish-step', 'finish', 'error', 'toString'])(
    '%s is not progress',
    (type) => {
      expect(streamOutputOf(type)).toBeUndefined();
    },
  );
});

/**
 * documentedSpanName's promise (src/sanitize/span-name.ts): a GenAI span
 * whose name carries more than its documented name gets the documented one
 * (operation and target); a name already documented, or not a GenAI
 * operation's, is left alone.
 */
import { describe, expect, it } from 'vitest';
import { documentedSpanName } from '../../src/sanitize/span-name.js';

describe('documentedSpanName', () => {
  it.each([
    [
      'a tool name followed by its arguments',
      'execute_tool deploy {"env":"prod"}',
      { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'deploy' },
      'execute_tool deploy',
    ],
    [
      'an agent call followed by the prompt',
      'invoke_agent support: my card is 4111…',
      { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support' },
      'invoke_agent support',
    ],
    [
      'a model call with more after the model',
      'chat gpt-4o hello',
      { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' },
      'chat gpt-4o',
    ],
    ['a call with no target: the operation alone', 'chat hello there', { 'gen_ai.operation.name': 'chat' }, 'chat'],
    [
      'an empty target counts as none',
      'execute_tool rm -rf',
      { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': '' },
      'execute_tool',
    ],
    [
      'the documented name: left alone',
      'chat gpt-4o',
      { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' },
      undefined,
    ],
    [
      'the operation alone: left alone',
      'chat',
      { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'm' },
      undefined,
    ],
    ['a name not starting with its operation', 'my chat', { 'gen_ai.operation.name': 'chat' }, undefined],
    ['no operation', 'GET /users/42', {}, undefined],
  ])('%s', (_case, name, attributes, documented) => {
    expect(documentedSpanName(name, attributes)).toBe(documented);
  });
});

/**
 * The GenAI spans the recorders start: names and attributes of the run
 * (`invoke_agent`), attempt (`chat`) and tool (`execute_tool`) spans, in the
 * order the spans carry them, and the run's link to the run it continues.
 */
import { describe, expect, it } from 'vitest';
import {
  attemptAttributesOf,
  attemptNameOf,
  runSpanOf,
  toolAttributesOf,
  toolNameOf,
} from '../../src/runtime/genai-spans.js';

const FAILED_RUN = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: '00f067aa0ba902b7', traceFlags: 1 };

describe('GenAI spans', () => {
  it.each([
    {
      promise: 'a bare run is `invoke_agent` with its operation only',
      options: {},
      expected: { name: 'invoke_agent', attributes: { 'gen_ai.operation.name': 'invoke_agent' }, links: [] },
    },
    {
      promise: 'a named run carries agent, provider, model and conversation, and is named for its agent',
      options: { agentName: 'coder', providerName: 'openai', model: 'gpt-4o', conversationId: 'c-1' },
      expected: {
        name: 'invoke_agent coder',
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': 'coder',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.conversation.id': 'c-1',
        },
        links: [],
      },
    },
    {
      promise: 'a resumed run links to the failed one as resume_of, with its resume number',
      options: { continues: { spanContext: FAILED_RUN, as: 'resume', resumeAttempt: 2 } },
      expected: {
        name: 'invoke_agent',
        attributes: { 'gen_ai.operation.name': 'invoke_agent', 'agent_incidents.resume.attempt': 2 },
        links: [{ context: FAILED_RUN, attributes: { 'agent_incidents.link.type': 'resume_of' } }],
      },
    },
    {
      promise: 'a reassigned run links as reassign_of, with its task retry count',
      options: { continues: { spanContext: FAILED_RUN, as: 'reassign', taskRetryCount: 1 } },
      expected: {
        name: 'invoke_agent',
        attributes: { 'gen_ai.operation.name': 'invoke_agent', 'agent_incidents.task.retry_count': 1 },
        links: [{ context: FAILED_RUN, attributes: { 'agent_incidents.link.type': 'reassign_of' } }],
      },
    },
  ] as const)('$promise', ({ options, expected }) => {
    const span = runSpanOf(options);
    expect(span).toEqual(expected);
    expect(Object.keys(span.attributes)).toEqual(Object.keys(expected.attributes));
  });

  it('an attempt is a streamed chat, numbered, with provider, model and the attempt it retries, in that order', () => {
    const attributes = attemptAttributesOf({ number: 2, providerName: 'openai', model: 'gpt-4o', retryOf: 1 });
    expect(Object.entries(attributes)).toEqual([
      ['gen_ai.operation.name', 'chat'],
      ['agent_incidents.attempt.number', 2],
      ['gen_ai.request.stream', true],
      ['gen_ai.provider.name', 'openai'],
      ['gen_ai.request.model', 'gpt-4o'],
      ['agent_incidents.retry.of_attempt', 1],
    ]);
    expect(attemptAttributesOf({ number: 1 })).toEqual({
      'gen_ai.operation.name': 'chat',
      'agent_incidents.attempt.number': 1,
      'gen_ai.request.stream': true,
    });
  });

  it.each([
    [undefined, 'chat'],
    ['gpt-4o', 'chat gpt-4o'],
  ])('an attempt on model %s is named %s', (model, name) => {
    expect(attemptNameOf(model)).toBe(name);
  });

  it('a tool carries its name, class, call id and the attempt that called it, in that order', () => {
    const attributes = toolAttributesOf({ name: 'bash', sideEffects: 'unsafe', callId: 'c1', attemptNumber: 3 });
    expect(Object.entries(attributes)).toEqual([
      ['gen_ai.operation.name', 'execute_tool'],
      ['gen_ai.tool.name', 'bash'],
      ['agent_incidents.tool.side_effects', 'unsafe'],
      ['gen_ai.tool.call.id', 'c1'],
      ['agent_incidents.attempt.number', 3],
    ]);
    expect(toolAttributesOf({ name: 'read', sideEffects: 'read_only' })).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'read',
      'agent_incidents.tool.side_effects': 'read_only',
    });
    expect(toolNameOf('bash')).toBe('execute_tool bash');
  });
});

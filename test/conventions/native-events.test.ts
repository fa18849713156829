/**
 * decodeNativeEvent and isNativeEvent: every fact event of the native
 * convention decoded with its attributes, and total: missing or mistyped
 * attributes give safe defaults, unknown names give nothing.
 */
import { describe, expect, it } from 'vitest';
import { decodeNativeEvent, isNativeEvent } from '../../src/conventions/native-events.js';

const P = 'agent_incidents.';
const keyOf = (n: number) => (n === 1 ? 'a1' : undefined);
const decode = (name: string, attributes?: Record<string, unknown>, timeMillis = 100) =>
  decodeNativeEvent({ name: `${P}${name}`, timeMillis, attributes }, keyOf);

describe('isNativeEvent', () => {
  it.each([
    ['agent_incidents.provider_progress', true],
    ['agent_incidents.anything', true],
    ['exception', false],
    ['gen_ai.choice', false],
  ])('%s is native: %s', (name, expected) => {
    expect(isNativeEvent({ name, timeMillis: 0 })).toBe(expected);
  });

  it('is false for a name that is not a string', () => {
    expect(isNativeEvent({ name: 7 as unknown as string, timeMillis: 0 })).toBe(false);
  });
});

describe('decodeNativeEvent', () => {
  it.each<[string, Record<string, unknown> | undefined, unknown]>([
    ['provider_progress', undefined, { kind: 'provider_progress' }],
    ['text_output_started', undefined, { kind: 'text_output_started' }],
    ['reasoning_output_started', undefined, { kind: 'reasoning_output_started' }],
    ['attempt_finished', undefined, { kind: 'attempt_finished' }],
    [
      'tool_input_started',
      { 'gen_ai.tool.name': 'bash', [`${P}tool.provider_executed`]: true },
      { kind: 'tool_input_started', tool: 'bash', providerExecuted: true },
    ],
    ['tool_input_completed', { 'gen_ai.tool.name': 'bash' }, { kind: 'tool_input_completed', tool: 'bash' }],
    [
      'tool_call_materialized',
      { 'gen_ai.tool.name': 'rm', [`${P}tool.side_effects`]: 'unsafe' },
      { kind: 'tool_call_materialized', tool: 'rm', sideEffects: 'unsafe', providerExecuted: false },
    ],
    [
      'tool_call_materialized',
      { [`${P}tool.side_effects`]: 'bogus', [`${P}tool.provider_executed`]: 'yes' },
      { kind: 'tool_call_materialized', tool: undefined, sideEffects: 'unknown', providerExecuted: false },
    ],
    ['pending_tool_interrupted', {}, { kind: 'pending_tool_interrupted', tool: undefined }],
    ['tool_execution_interrupted', { 'gen_ai.tool.name': 'x' }, { kind: 'tool_execution_interrupted', tool: 'x' }],
    [
      'tool_execution_failed',
      { [`${P}tool.failure_kind`]: 'timeout', [`${P}error.code`]: 'ETIMEDOUT' },
      { kind: 'tool_execution_failed', tool: undefined, detail: 'timeout', code: 'ETIMEDOUT', startSeen: true },
    ],
    [
      'tool_execution_failed',
      { [`${P}tool.failure_kind`]: 'weird' },
      { kind: 'tool_execution_failed', tool: undefined, detail: 'unknown', code: undefined, startSeen: true },
    ],
    [
      'watchdog_fired',
      { [`${P}watchdog.phase`]: 'silent_stream', [`${P}watchdog.budget_ms`]: 30000 },
      { kind: 'watchdog_fired', phase: 'silent_stream', budgetMillis: 30000 },
    ],
    ['watchdog_fired', undefined, { kind: 'watchdog_fired', phase: 'connect', budgetMillis: undefined }],
    ['retry_issued', { [`${P}retry.of_attempt`]: 1 }, { kind: 'retry_issued', ofAttempt: 'a1' }],
    ['retry_issued', { [`${P}retry.of_attempt`]: 5 }, { kind: 'retry_issued', ofAttempt: undefined }],
    [
      'user_cancel',
      { [`${P}cancel.origin`]: 'client_disconnect' },
      { kind: 'user_cancel', origin: 'client_disconnect' },
    ],
    ['user_cancel', { [`${P}cancel.origin`]: 'nope' }, { kind: 'user_cancel', origin: 'unknown' }],
    [
      'lifecycle_close',
      { [`${P}lifecycle.kind`]: 'shutdown', [`${P}lifecycle.initiated_at_ms`]: 90 },
      { kind: 'lifecycle_close', lifecycle: 'shutdown', timeMillis: 90 },
    ],
    [
      'lifecycle_close',
      { [`${P}lifecycle.initiated_at_ms`]: 150 },
      { kind: 'lifecycle_close', lifecycle: 'unknown_lifecycle_close' },
    ],
    ['setup_failure', { [`${P}error.code`]: 'ENOENT' }, { kind: 'setup_failure', code: 'ENOENT' }],
    [
      'process_exit',
      { [`${P}process.close_reason`]: 'signal', 'process.exit.code': 1, [`${P}process.signal`]: 'SIGTERM' },
      { kind: 'process_exit', reason: 'signal', exitCode: 1, signal: 'SIGTERM' },
    ],
    [
      'process_exit',
      { 'process.exit.code': 1.5 },
      { kind: 'process_exit', reason: 'execution_failed', exitCode: undefined, signal: undefined },
    ],
    [
      'recovery_action',
      {
        [`${P}recovery.action`]: 'retry',
        [`${P}recovery.reason`]: 'auto_retry_allowed',
        [`${P}recovery.strategy`]: 'backoff',
      },
      { kind: 'recovery_action', action: 'retry', reason: 'auto_retry_allowed', strategy: 'backoff' },
    ],
    [
      'recovery_action',
      { [`${P}recovery.action`]: 'resume' },
      { kind: 'recovery_action', action: 'resume', reason: 'unknown', strategy: 'custom' },
    ],
    ['recovery_action', { [`${P}recovery.action`]: 'explode' }, undefined],
    ['not_a_fact', {}, undefined],
  ])('decodes %s %j', (name, attributes, expected) => {
    expect(decode(name, attributes)).toEqual(expected);
  });

  it.each<[string, Record<string, unknown>, unknown]>([
    [
      'a transport error with its detail',
      { kind: 'transport', detail: 'tls', code: 'ERR_TLS', retryable: false },
      { kind: 'transport', detail: 'tls', code: 'ERR_TLS', retryable: false },
    ],
    [
      'a transport error of an unknown detail',
      { kind: 'transport', detail: 'rate_limit' },
      { kind: 'transport', detail: 'unknown', code: undefined, retryable: undefined },
    ],
    [
      'an API error with a retry-after',
      { kind: 'api', detail: 'rate_limit', retry_after_ms: 2000, retryable: true },
      { kind: 'api', detail: 'rate_limit', code: undefined, retryable: true, retryAfterMillis: 2000 },
    ],
    [
      'an API error of an unknown detail, a negative wait dropped',
      { kind: 'api', detail: 'socket_closed', retry_after_ms: -1 },
      { kind: 'api', detail: 'unknown', code: undefined, retryable: undefined },
    ],
    ['an error of no known kind', { kind: 'cosmic' }, { kind: 'unknown', code: undefined, retryable: undefined }],
  ])('decodes a provider error: %s', (_what, fields, error) => {
    const attributes = Object.fromEntries(Object.entries(fields).map(([k, v]) => [`${P}error.${k}`, v]));
    expect(decode('provider_error', attributes)).toEqual({ kind: 'provider_error', error });
  });

  it('decodes a side-effect boundary, adding provider-executed tools not listed', () => {
    expect(
      decode('side_effect_boundary', {
        [`${P}boundary.read_only_tools`]: ['read'],
        [`${P}boundary.unsafe_tools`]: ['bash', 3],
        [`${P}boundary.unknown_tools`]: ['web'],
        [`${P}boundary.provider_executed_tools`]: ['web', 'search'],
        [`${P}boundary.external`]: true,
      }),
    ).toEqual({
      kind: 'side_effect_boundary',
      boundary: {
        tools: [
          { name: 'read', sideEffects: 'read_only', providerExecuted: false },
          { name: 'bash', sideEffects: 'unsafe', providerExecuted: false },
          { name: 'web', sideEffects: 'unknown', providerExecuted: true },
          { name: 'search', sideEffects: 'unknown', providerExecuted: true },
        ],
        external: true,
      },
    });
    expect(decode('side_effect_boundary')).toEqual({
      kind: 'side_effect_boundary',
      boundary: { tools: [], external: false },
    });
  });

  it.each<[string, unknown]>([
    ['an entry that is no name', ['bash', 3]],
    ['a list that is no list', 'bash'],
    ['more names than are read', Array.from({ length: 257 }, (_, i) => `t${i}`)],
  ])('reads a boundary list it cannot read in full as external, never as fewer tools: %s', (_what, list) => {
    for (const key of ['read_only_tools', 'unsafe_tools', 'unknown_tools', 'provider_executed_tools']) {
      const fact = decode('side_effect_boundary', { [`${P}boundary.${key}`]: list });
      expect(fact && 'boundary' in fact ? fact.boundary.external : undefined).toBe(true);
    }
    const readable = decode('side_effect_boundary', { [`${P}boundary.unsafe_tools`]: ['bash'] });
    expect(readable && 'boundary' in readable ? readable.boundary.external : undefined).toBe(false);
  });
});

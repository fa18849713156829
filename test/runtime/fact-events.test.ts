/**
 * The fact-event encoders: each fact a recorder writes comes out as the exact
 * native event of docs/conventions.md#fact-events, names and attribute keys
 * written out here so a change to the convention fails. Pure: no span, no clock.
 */
import { describe, expect, it } from 'vitest';
import type { FactEvent } from '../../src/runtime/fact-events.js';
import {
  attemptFinishedEvent,
  lifecycleCloseEvent,
  pendingToolInterruptedEvent,
  processExitEvent,
  providerProgressEvent,
  reasoningOutputStartedEvent,
  recoveryActionEvent,
  retryIssuedEvent,
  sideEffectBoundaryEvent,
  textOutputStartedEvent,
  toolCallMaterializedEvent,
  toolExecutionInterruptedEvent,
  toolInputCompletedEvent,
  toolInputStartedEvent,
  userCancelEvent,
  watchdogFiredEvent,
} from '../../src/runtime/fact-events.js';

const EVENTS: readonly { readonly fact: string; readonly event: FactEvent; readonly expected: FactEvent }[] = [
  {
    fact: 'a boundary, tools grouped by side-effect class (default unknown), provider-executed ones listed apart',
    event: sideEffectBoundaryEvent({
      tools: [
        { name: 'read', sideEffects: 'read_only' },
        { name: 'bash', sideEffects: 'unsafe' },
        { name: 'web', providerExecuted: true },
        { name: 'mystery' },
      ],
      external: true,
    }),
    expected: {
      name: 'agent_incidents.side_effect_boundary',
      attributes: {
        'agent_incidents.boundary.read_only_tools': ['read'],
        'agent_incidents.boundary.unsafe_tools': ['bash'],
        'agent_incidents.boundary.unknown_tools': ['web', 'mystery'],
        'agent_incidents.boundary.provider_executed_tools': ['web'],
        'agent_incidents.boundary.external': true,
      },
    },
  },
  {
    fact: 'an empty boundary, not external by default',
    event: sideEffectBoundaryEvent({ tools: [] }),
    expected: {
      name: 'agent_incidents.side_effect_boundary',
      attributes: {
        'agent_incidents.boundary.read_only_tools': [],
        'agent_incidents.boundary.unsafe_tools': [],
        'agent_incidents.boundary.unknown_tools': [],
        'agent_incidents.boundary.provider_executed_tools': [],
        'agent_incidents.boundary.external': false,
      },
    },
  },
  {
    fact: 'provider progress with its chunk type',
    event: providerProgressEvent('source'),
    expected: { name: 'agent_incidents.provider_progress', attributes: { 'agent_incidents.chunk.type': 'source' } },
  },
  {
    fact: 'provider progress without a chunk type',
    event: providerProgressEvent(),
    expected: { name: 'agent_incidents.provider_progress', attributes: {} },
  },
  {
    fact: 'text output started',
    event: textOutputStartedEvent(),
    expected: { name: 'agent_incidents.text_output_started', attributes: {} },
  },
  {
    fact: 'reasoning output started',
    event: reasoningOutputStartedEvent(),
    expected: { name: 'agent_incidents.reasoning_output_started', attributes: {} },
  },
  {
    fact: 'tool input started, provider-executed',
    event: toolInputStartedEvent('web', true),
    expected: {
      name: 'agent_incidents.tool_input_started',
      attributes: { 'agent_incidents.tool.provider_executed': true, 'gen_ai.tool.name': 'web' },
    },
  },
  {
    fact: 'tool input started without a name: not provider-executed by default',
    event: toolInputStartedEvent(),
    expected: {
      name: 'agent_incidents.tool_input_started',
      attributes: { 'agent_incidents.tool.provider_executed': false },
    },
  },
  {
    fact: 'tool input completed',
    event: toolInputCompletedEvent('read'),
    expected: { name: 'agent_incidents.tool_input_completed', attributes: { 'gen_ai.tool.name': 'read' } },
  },
  {
    fact: 'a complete tool call with name, id and class',
    event: toolCallMaterializedEvent({ name: 'bash', callId: 'c1', sideEffects: 'unsafe' }),
    expected: {
      name: 'agent_incidents.tool_call_materialized',
      attributes: {
        'agent_incidents.tool.side_effects': 'unsafe',
        'agent_incidents.tool.provider_executed': false,
        'gen_ai.tool.name': 'bash',
        'gen_ai.tool.call.id': 'c1',
      },
    },
  },
  {
    fact: 'a complete tool call of no known class is unknown',
    event: toolCallMaterializedEvent({ providerExecuted: true }),
    expected: {
      name: 'agent_incidents.tool_call_materialized',
      attributes: { 'agent_incidents.tool.side_effects': 'unknown', 'agent_incidents.tool.provider_executed': true },
    },
  },
  {
    fact: 'a pending tool interrupted',
    event: pendingToolInterruptedEvent('bash'),
    expected: { name: 'agent_incidents.pending_tool_interrupted', attributes: { 'gen_ai.tool.name': 'bash' } },
  },
  {
    fact: 'a watchdog with its budget',
    event: watchdogFiredEvent({ phase: 'silent_stream', budgetMillis: 30_000 }),
    expected: {
      name: 'agent_incidents.watchdog_fired',
      attributes: { 'agent_incidents.watchdog.phase': 'silent_stream', 'agent_incidents.watchdog.budget_ms': 30_000 },
    },
  },
  {
    fact: 'a watchdog without a budget',
    event: watchdogFiredEvent({ phase: 'total' }),
    expected: { name: 'agent_incidents.watchdog_fired', attributes: { 'agent_incidents.watchdog.phase': 'total' } },
  },
  {
    fact: 'an attempt finished',
    event: attemptFinishedEvent(),
    expected: { name: 'agent_incidents.attempt_finished', attributes: {} },
  },
  {
    fact: 'a tool execution interrupted',
    event: toolExecutionInterruptedEvent(),
    expected: { name: 'agent_incidents.tool_execution_interrupted', attributes: {} },
  },
  {
    fact: 'a retry of attempt 2 with its delay',
    event: retryIssuedEvent(2, 500),
    expected: {
      name: 'agent_incidents.retry_issued',
      attributes: { 'agent_incidents.retry.of_attempt': 2, 'agent_incidents.retry.delay_ms': 500 },
    },
  },
  {
    fact: 'a retry of the whole run names no attempt',
    event: retryIssuedEvent(undefined),
    expected: { name: 'agent_incidents.retry_issued', attributes: {} },
  },
  {
    fact: 'a recovery action with every optional field and a snapshot',
    event: recoveryActionEvent({
      action: 'retry',
      reason: 'auto_retry_allowed',
      strategy: 'safeRetry',
      delayMillis: 250,
      resumeAttempt: 1,
      taskRetryCount: 3,
      snapshot: {
        turns: 2,
        attempts: 3,
        recoveredAttempts: 1,
        inputTokens: 10,
        outputTokens: 20,
        costUsd: 0.5,
        durationMillis: 900,
        attemptDurationsMillis: [100, 200],
        outcome: 'failed',
      },
    }),
    expected: {
      name: 'agent_incidents.recovery_action',
      attributes: {
        'agent_incidents.recovery.action': 'retry',
        'agent_incidents.recovery.reason': 'auto_retry_allowed',
        'agent_incidents.recovery.strategy': 'safeRetry',
        'agent_incidents.retry.delay_ms': 250,
        'agent_incidents.resume.attempt': 1,
        'agent_incidents.task.retry_count': 3,
        'agent_incidents.snapshot.turns': 2,
        'agent_incidents.snapshot.attempts': 3,
        'agent_incidents.snapshot.input_tokens': 10,
        'agent_incidents.snapshot.output_tokens': 20,
        'agent_incidents.snapshot.duration_ms': 900,
        'agent_incidents.snapshot.cost_usd': 0.5,
      },
    },
  },
  {
    fact: 'a recovery action whose strategy name is free text records it as custom',
    event: recoveryActionEvent({ action: 'stop', reason: 'not_auto_retryable', strategy: 'my strategy, v2!' }),
    expected: {
      name: 'agent_incidents.recovery_action',
      attributes: {
        'agent_incidents.recovery.action': 'stop',
        'agent_incidents.recovery.reason': 'not_auto_retryable',
        'agent_incidents.recovery.strategy': 'custom',
      },
    },
  },
  {
    fact: 'a user cancel with its origin',
    event: userCancelEvent('client_disconnect'),
    expected: {
      name: 'agent_incidents.user_cancel',
      attributes: { 'agent_incidents.cancel.origin': 'client_disconnect' },
    },
  },
  {
    fact: 'a lifecycle close initiated at a Date',
    event: lifecycleCloseEvent({ kind: 'instance_reload', initiatedAt: new Date(1_700_000_000_000) }),
    expected: {
      name: 'agent_incidents.lifecycle_close',
      attributes: {
        'agent_incidents.lifecycle.kind': 'instance_reload',
        'agent_incidents.lifecycle.initiated_at_ms': 1_700_000_000_000,
      },
    },
  },
  {
    fact: 'a lifecycle close with a time that is not finite writes no time',
    event: lifecycleCloseEvent({ kind: 'shutdown', initiatedAt: Number.NaN }),
    expected: { name: 'agent_incidents.lifecycle_close', attributes: { 'agent_incidents.lifecycle.kind': 'shutdown' } },
  },
  {
    fact: 'a process exit with code and signal',
    event: processExitEvent({ exitCode: 137, signal: 'SIGKILL', closeReason: 'signal' }),
    expected: {
      name: 'agent_incidents.process_exit',
      attributes: {
        'agent_incidents.process.close_reason': 'signal',
        'process.exit.code': 137,
        'agent_incidents.process.signal': 'SIGKILL',
      },
    },
  },
  {
    fact: 'a process exit with no reason failed its execution',
    event: processExitEvent({}),
    expected: {
      name: 'agent_incidents.process_exit',
      attributes: { 'agent_incidents.process.close_reason': 'execution_failed' },
    },
  },
];

describe('fact-event encoders', () => {
  it.each(EVENTS)('encode $fact as its exact native event', ({ event, expected }) => {
    expect(event).toEqual(expected);
  });

  it('keep the attribute order the spans carry (the exported events are compared as written)', () => {
    for (const { event, expected } of EVENTS)
      expect(Object.keys(event.attributes)).toEqual(Object.keys(expected.attributes));
  });
});

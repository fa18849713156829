/**
 * summarizeAttempt's promises (src/derive/attempt-summary.ts): the phase an
 * attempt reached by its facts in order, the output and tools they show, its
 * last side-effect boundary, and that facts after `until` or of another
 * attempt never move it.
 */
import { describe, expect, it } from 'vitest';
import { summarizeAttempt } from '../../src/derive/attempt-summary.js';
import type { Fact } from '../../src/model/facts.js';

/** Facts of attempt `a`, in the order given (one millisecond apart). */
function facts(...drafts: Record<string, unknown>[]): Fact[] {
  return drafts.map((draft, i) => ({ timeMillis: i, seq: i, attempt: 'a', ...draft }) as Fact);
}
const started = (sideEffects = 'read_only') => ({ kind: 'tool_execution_started', tool: 't', sideEffects });
const completed = { kind: 'tool_execution_completed', tool: 't', startSeen: true };

describe('the phase an attempt reached', () => {
  it.each([
    ['nothing yet: before the first provider progress', [], 'before_first_provider_progress'],
    ['progress: text generation', [{ kind: 'provider_progress' }], 'text_generation'],
    ['reasoning only', [{ kind: 'reasoning_output_started' }], 'reasoning_generation'],
    [
      'reasoning after text stays text',
      [{ kind: 'text_output_started' }, { kind: 'reasoning_output_started' }],
      'text_generation',
    ],
    ['a tool input', [{ kind: 'tool_input_started', providerExecuted: false }], 'tool_input_generation'],
    [
      'a materialized call',
      [{ kind: 'tool_call_materialized', sideEffects: 'unsafe', providerExecuted: false }],
      'tool_call_materialized',
    ],
    [
      'an input completed after its call materialized stays materialized',
      [
        { kind: 'tool_call_materialized', sideEffects: 'unsafe', providerExecuted: false },
        { kind: 'tool_input_completed' },
      ],
      'tool_call_materialized',
    ],
    ['a tool running', [started()], 'tool_execution'],
    ['every tool done: after the tool result', [started(), started(), completed, completed], 'after_tool_result'],
    ['one of two tools still running', [started(), started(), completed], 'tool_execution'],
    [
      'a tool failed',
      [started(), { kind: 'tool_execution_failed', detail: 'error', startSeen: true }],
      'tool_execution',
    ],
    ['finished before any output: finalizing', [{ kind: 'attempt_finished' }], 'finalizing'],
    ['finished after text: finalizing', [{ kind: 'text_output_started' }, { kind: 'attempt_finished' }], 'finalizing'],
    [
      'finished after a tool result keeps it',
      [started(), completed, { kind: 'attempt_finished' }],
      'after_tool_result',
    ],
    [
      'a provider error moves nothing',
      [{ kind: 'text_output_started' }, { kind: 'provider_error' }],
      'text_generation',
    ],
  ])('%s → %s', (_case, drafts, phase) => {
    expect(summarizeAttempt(facts(...drafts)).phase).toBe(phase);
  });
});

describe('what the attempt did', () => {
  it('reports output, tool inputs, materialized calls, executions and the last boundary', () => {
    const first = { tools: [], external: true };
    const last = { tools: [], external: false };
    expect(
      summarizeAttempt(
        facts(
          { kind: 'side_effect_boundary', boundary: first },
          { kind: 'text_output_started' },
          { kind: 'reasoning_output_started' },
          { kind: 'tool_input_completed' },
          { kind: 'tool_call_materialized', sideEffects: 'unsafe', providerExecuted: true },
          started('unsafe'),
          { kind: 'tool_execution_completed', startSeen: false },
          { kind: 'tool_execution_failed', detail: 'error', startSeen: false },
          { kind: 'side_effect_boundary', boundary: last },
        ),
      ),
    ).toEqual({
      progress: true,
      text: true,
      reasoning: true,
      toolInputStarted: true,
      materialized: [{ sideEffects: 'unsafe', providerExecuted: true }],
      // A completion or failure whose start was not seen counts as an execution of unknown effects.
      executions: ['unsafe', 'unknown', 'unknown'],
      boundary: last,
      phase: 'tool_execution',
    });
  });

  it('folds only the named attempt of a run, and stops at `until`', () => {
    const run = [
      ...facts({ kind: 'text_output_started' }, started(), completed),
      { kind: 'tool_execution_started', tool: 'x', sideEffects: 'unsafe', timeMillis: 1, seq: 9, attempt: 'b' } as Fact,
    ];
    expect(summarizeAttempt(run, undefined, 'b').executions).toEqual(['unsafe']);
    expect(summarizeAttempt(run, run[1], 'a')).toMatchObject({ phase: 'tool_execution', executions: ['read_only'] });
    expect(summarizeAttempt(run, undefined, 'a').phase).toBe('after_tool_result');
  });
});

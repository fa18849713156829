/**
 * TERMINAL_FACT_KINDS: the fact kinds that can end a run, read from the
 * cause table's terminal facts, and no other.
 */
import { describe, expect, it } from 'vitest';
import { CAUSE_TABLE } from '../../src/model/cause-table.js';
import type { FactKind } from '../../src/model/facts.js';
import { TERMINAL_FACT_KINDS } from '../../src/model/facts.js';

describe('TERMINAL_FACT_KINDS', () => {
  it('holds exactly the terminal facts of the cause table', () => {
    expect([...TERMINAL_FACT_KINDS].sort()).toEqual([
      'lifecycle_close',
      'process_exit',
      'provider_error',
      'run_error',
      'setup_failure',
      'tool_execution_failed',
      'tool_execution_interrupted',
      'user_cancel',
      'watchdog_fired',
    ]);
    expect(new Set(CAUSE_TABLE.flatMap((row) => row.terminalFacts))).toEqual(TERMINAL_FACT_KINDS);
  });

  it.each<FactKind>([
    'provider_progress',
    'text_output_started',
    'tool_call_materialized',
    'tool_execution_started',
    'tool_execution_completed',
    'retry_issued',
    'attempt_finished',
    'child_run_side_effects',
  ])('does not count %s as ending a run', (kind) => {
    expect(TERMINAL_FACT_KINDS.has(kind)).toBe(false);
  });
});

/**
 * Summarizes the facts of one attempt: what output it produced, which tools it
 * prepared or ran, its side-effect boundary, and the phase it reached.
 */
import type { Phase, ToolSideEffects } from '../model/enums.js';
import { checkExhaustive } from '../model/exhaustive.js';
import type { Fact, SideEffectBoundary } from '../model/facts.js';
import { compareFacts } from './timeline.js';

/** What one attempt did, as far as the facts show. */
export interface AttemptSummary {
  readonly progress: boolean;
  readonly text: boolean;
  readonly reasoning: boolean;
  readonly toolInputStarted: boolean;
  /** Materialized tool calls (retry rules look at them only when no execution started). */
  readonly materialized: readonly { readonly sideEffects: ToolSideEffects; readonly providerExecuted: boolean }[];
  /** Side-effect classes of the tool executions that started. */
  readonly executions: readonly ToolSideEffects[];
  /** The last boundary recorded for the attempt, if any. */
  readonly boundary?: SideEffectBoundary;
  /** The phase reached by the last fact considered. */
  readonly phase: Phase;
}

/**
 * Folds the facts of one attempt in order: `facts` is either that attempt's
 * facts, or a run's sorted facts with `attempt` naming the one to fold.
 * `until`, when given, ignores facts after it: facts recorded after the
 * terminal event never move the phase.
 */
export function summarizeAttempt(facts: readonly Fact[], until?: Fact, attempt?: string): AttemptSummary {
  let progress = false;
  let text = false;
  let reasoning = false;
  let toolInputStarted = false;
  let boundary: SideEffectBoundary | undefined;
  let phase: Phase = 'before_first_provider_progress';
  let running = 0;
  const materialized: { sideEffects: ToolSideEffects; providerExecuted: boolean }[] = [];
  const executions: ToolSideEffects[] = [];
  for (const fact of facts) {
    // `attempt`, when given, restricts a whole-run fact list without copying it.
    if (attempt !== undefined && fact.attempt !== attempt) continue;
    if (until && compareFacts(fact, until) > 0) break;
    switch (fact.kind) {
      case 'side_effect_boundary':
        boundary = fact.boundary;
        break;
      case 'provider_progress':
        progress = true;
        if (phase === 'before_first_provider_progress') phase = 'text_generation';
        break;
      case 'text_output_started':
        progress = text = true;
        phase = 'text_generation';
        break;
      case 'reasoning_output_started':
        progress = reasoning = true;
        if (!text) phase = 'reasoning_generation';
        break;
      case 'tool_input_started':
        progress = toolInputStarted = true;
        phase = 'tool_input_generation';
        break;
      case 'tool_input_completed':
        progress = toolInputStarted = true;
        if (phase !== 'tool_call_materialized') phase = 'tool_input_generation';
        break;
      case 'tool_call_materialized':
        progress = true;
        materialized.push({ sideEffects: fact.sideEffects, providerExecuted: fact.providerExecuted });
        phase = 'tool_call_materialized';
        break;
      case 'tool_execution_started':
        executions.push(fact.sideEffects);
        running += 1;
        phase = 'tool_execution';
        break;
      case 'tool_execution_completed':
        running = Math.max(0, running - 1);
        if (!fact.startSeen) executions.push('unknown');
        if (running === 0) phase = 'after_tool_result';
        break;
      case 'tool_execution_failed':
      case 'tool_execution_interrupted':
        if (fact.kind === 'tool_execution_failed' && !fact.startSeen) executions.push('unknown');
        running = Math.max(0, running - 1);
        phase = 'tool_execution';
        break;
      case 'attempt_finished':
        if (
          phase === 'before_first_provider_progress' ||
          phase === 'text_generation' ||
          phase === 'reasoning_generation'
        ) {
          phase = 'finalizing';
        }
        break;
      case 'pending_tool_interrupted':
      case 'watchdog_fired':
      case 'provider_error':
      case 'retry_issued':
      case 'user_cancel':
      case 'lifecycle_close':
      case 'setup_failure':
      case 'process_exit':
      case 'run_error':
      case 'child_run_side_effects':
      case 'recovery_action':
        // These end or describe the attempt without moving its phase or progress.
        break;
      default:
        // Exported and total over facts: a kind outside the type (from
        // JavaScript) is ignored, as before.
        checkExhaustive(fact);
        break;
    }
  }
  return { progress, text, reasoning, toolInputStarted, materialized, executions, boundary, phase };
}

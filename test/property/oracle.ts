// Over 300 lines: the contract's verdict rules written once more, in one place, to be read against docs/attributes.md.
/**
 * The oracle: the verdict docs/attributes.md gives a generated run, computed
 * from the run's model (what the runtime did, in order), not from spans and
 * not by calling anything in src/. Small on purpose: it is the rules of the
 * contract, written once more, so a seam between the edges cannot hide in it.
 */
import type { Fact } from './oracle-cause.js';
import { causeOf } from './oracle-cause.js';
import type { AttemptModel, RunModel, ToolClass } from './run-model.js';
import { finishReasonOf, toolFailureOf } from './run-model.js';
import type { AttemptFates, ExpectedLost } from './oracle-lost.js';
import { expectedLost } from './oracle-lost.js';

/** The verdict fields every edge is compared on. */
export interface Expected {
  outcome: string;
  cause?: string;
  causeDetail?: string;
  phase?: string;
  retrySafety?: string;
  retrySafetyReason?: string;
  retryable?: boolean;
  errorCode?: string;
  sideEffects: string;
  factsComplete: boolean;
  missingFacts: string[];
  attempts: number;
  recoveredAttempts: number;
  lost?: ExpectedLost;
}

/** A fact in play order, with the attempt it belongs to (0 for a run-level fact). */
interface Placed {
  readonly at: number;
  readonly attempt: number;
  readonly fact: Fact;
}

const RANK = { none: 0, read_only: 1, unknown: 2, unsafe: 3 } as const;
type SideEffects = keyof typeof RANK;
const worse = (a: SideEffects, b: SideEffects): SideEffects => (RANK[b] > RANK[a] ? b : a);

const TERMINAL = new Set(['tool_failed', 'tool_interrupted', 'provider_error', 'watchdog', 'stop']);

/** The facts of a run in the order the runtime recorded them, and its other properties. */
function factsOf(model: RunModel) {
  const placed: Placed[] = [];
  let at = 0;
  const push = (attempt: number, fact: Fact) => placed.push({ at: at++, attempt, fact });
  let sideEffects: SideEffects = 'none';
  let openChildren = false;
  const cutOff = new Set<number>();
  const stop = model.stop;
  model.attempts.forEach((attempt: AttemptModel, index) => {
    const n = index + 1;
    if (attempt.boundary !== 'none') push(n, { kind: 'boundary', remote: attempt.boundary === 'remote' });
    let text = false;
    let reasoning = false;
    for (const output of attempt.outputs) {
      if (output.kind === 'text' && !text) push(n, { kind: 'text' });
      if (output.kind === 'reasoning' && !reasoning) push(n, { kind: 'reasoning' });
      if (output.kind === 'text') text = true;
      if (output.kind === 'reasoning') reasoning = true;
      if (output.kind === 'input') push(n, { kind: 'input' });
      if (output.kind === 'call') {
        push(n, { kind: 'call', cls: output.cls, providerExecuted: output.providerExecuted });
        if (output.providerExecuted)
          sideEffects = worse(sideEffects, output.cls === 'read_only' ? 'read_only' : 'unknown');
      }
    }
    for (let i = 0; i < attempt.parallelCalls; i += 1) {
      push(n, { kind: 'input' });
      push(n, { kind: 'call', cls: 'read_only', providerExecuted: false });
    }
    for (const [t, tool] of attempt.tools.entries()) {
      push(n, { kind: 'tool_started', cls: tool.cls });
      sideEffects = worse(sideEffects, tool.cls);
      if (tool.nested) {
        const nested = nestedProperties(tool.nested);
        sideEffects = worse(sideEffects, nested.sideEffects);
        // A sub-agent that never ended is still open when this run ends.
        if (tool.nested.ending === 'crash') openChildren = true;
      }
      if (tool.end === 'complete') push(n, { kind: 'tool_completed' });
      else if (tool.end === 'fail') push(n, { kind: 'tool_failed', failure: toolFailureOf(model, index, t) });
      else if (tool.end === 'interrupt') push(n, { kind: 'tool_interrupted' });
      else openChildren = true;
    }
    const end = attempt.end;
    // A finish is read by its reasons (docs/conventions.md#finish-reasons-by-meaning): the runtime's
    // finish stands unless a known reason says it did not finish, or finished on a refusal or an error.
    const reason = end.kind === 'finish' ? finishReasonOf(model, index) : undefined;
    if (end.kind === 'finish' && (reason === 'interrupted' || reason === 'other')) cutOff.add(n);
    else if (end.kind === 'finish' && reason === 'content_filter')
      push(n, { kind: 'provider_error', error: 'content_filter' });
    else if (end.kind === 'finish' && reason === 'error') push(n, { kind: 'provider_error', error: 'finish_error' });
    else if (end.kind === 'finish') push(n, { kind: 'finished' });
    else if (end.kind === 'fail') push(n, { kind: 'provider_error', error: end.error });
    else if (end.kind === 'watchdog') push(n, { kind: 'watchdog', phase: end.phase });
    const failed = end.kind === 'fail' || end.kind === 'watchdog';
    if (failed && attempt.retry && n < model.attempts.length) push(0, { kind: 'retry_issued', of: n });
    const closedByStop = stop !== undefined && stop.after === index && stop.kind !== 'process_exit';
    if (end.kind === 'open' && !closedByStop) {
      // Open when the run ended: cut off there, with nothing naming what stopped it.
      cutOff.add(n);
      openChildren = true;
    }
    if (stop && stop.after === index) push(0, { kind: 'stop', stop });
  });
  if (stop && stop.after === -1) push(0, { kind: 'stop', stop });
  return { placed, sideEffects, openChildren, cutOff };
}

/** What a nested run contributes to its parent. */
function nestedProperties(model: RunModel): { sideEffects: SideEffects } {
  return { sideEffects: factsOf(model).sideEffects };
}

/** The phase and what an attempt did, from its facts (up to `until`, inclusive, when given). */
function summarize(placed: readonly Placed[], attempt: number, until?: number) {
  let phase = 'before_first_provider_progress';
  let progress = false;
  let text = false;
  let reasoning = false;
  let input = false;
  let boundary: { remote: boolean } | undefined;
  let running = 0;
  const calls: { cls: ToolClass; providerExecuted: boolean }[] = [];
  const executions: ToolClass[] = [];
  for (const { at, attempt: of, fact } of placed) {
    if (of !== attempt || (until !== undefined && at > until)) continue;
    switch (fact.kind) {
      case 'boundary':
        boundary = { remote: fact.remote };
        break;
      case 'text':
        progress = text = true;
        phase = 'text_generation';
        break;
      case 'reasoning':
        progress = reasoning = true;
        if (!text) phase = 'reasoning_generation';
        break;
      case 'input':
        progress = input = true;
        phase = 'tool_input_generation';
        break;
      case 'call':
        progress = true;
        calls.push({ cls: fact.cls, providerExecuted: fact.providerExecuted });
        phase = 'tool_call_materialized';
        break;
      case 'tool_started':
        executions.push(fact.cls);
        running += 1;
        phase = 'tool_execution';
        break;
      case 'tool_completed':
        running = Math.max(0, running - 1);
        if (running === 0) phase = 'after_tool_result';
        break;
      case 'tool_failed':
      case 'tool_interrupted':
        running = Math.max(0, running - 1);
        phase = 'tool_execution';
        break;
      case 'finished':
        if (
          phase === 'before_first_provider_progress' ||
          phase === 'text_generation' ||
          phase === 'reasoning_generation'
        )
          phase = 'finalizing';
        break;
      default:
        break;
    }
  }
  return { phase, progress, text, reasoning, input, boundary, calls, executions };
}

type Summary = ReturnType<typeof summarize>;

/** The retry-safety rules, in the documented order (docs/attributes.md, retry-safety reasons). */
function retrySafety(
  cause: string,
  retryable: boolean | undefined,
  attempt: Summary | undefined,
  cancelSeen: boolean,
  closeSeen: boolean,
  retriesUsed: number,
): [string, string] {
  if (cause === 'user_cancel') return ['do_not_retry', 'user_cancel'];
  if (cause === 'local_lifecycle_close') return ['do_not_retry', 'local_lifecycle_close'];
  if (retryable === false) return ['do_not_retry', 'not_retryable_error'];
  if (attempt) {
    if (attempt.executions.includes('unsafe')) return ['ask_user_before_retry', 'unsafe_side_effect_started'];
    if (attempt.executions.length > 0) return ['ask_user_before_retry', 'tool_execution_started'];
    if (attempt.calls.length > 0) {
      if (attempt.calls.some((c) => c.cls === 'unknown' || (c.providerExecuted && c.cls !== 'read_only')))
        return ['ask_user_before_retry', 'side_effect_facts_incomplete'];
      if (attempt.calls.some((c) => c.cls === 'unsafe'))
        return ['ask_user_before_retry', 'tool_call_materialized_without_execution'];
      return ['offer_continue', 'tool_call_materialized_without_execution'];
    }
    if (attempt.input) return ['offer_continue', 'partial_tool_input_without_execution'];
    if (attempt.text) return ['offer_continue', 'visible_output_without_tool_execution'];
    // No boundary fails closed; a provider-executed tool or an external system is never known.
    // (Every class in the generated boundaries is declared, so "unknown after progress" never applies.)
    if (!attempt.boundary || attempt.boundary.remote) return ['ask_user_before_retry', 'side_effect_facts_incomplete'];
  }
  if (cancelSeen) return ['do_not_retry', 'user_cancel'];
  if (closeSeen) return ['do_not_retry', 'local_lifecycle_close'];
  // Past the not-retryable rule: a drop or a watchdog retries unless it said no; an API error or an exit only when it said yes.
  const auto =
    cause === 'provider_transport_disconnect' ||
    cause === 'watchdog_timeout' ||
    ((cause === 'provider_api_error' || cause === 'process_exit') && retryable === true);
  if (auto) {
    if (retriesUsed >= 1) return ['ask_user_before_retry', 'retry_budget_exhausted'];
    return attempt?.reasoning
      ? ['auto_retry', 'reasoning_only_without_final_text']
      : ['auto_retry', 'no_visible_output_or_tool_execution'];
  }
  return ['unknown', 'unknown'];
}

/**
 * The verdict of `model` by the contract. `lostFacts`: a span of the run
 * lost events to the SDK's limit (observed on the exported spans).
 */
export function expectedVerdict(model: RunModel, lostFacts: boolean): Expected {
  const verdict = judgedRun(model, lostFacts);
  const lost = expectedLost(model, verdict.outcome, attemptFates(model), lostFacts);
  return lost ? { ...verdict, lost } : verdict;
}

/** Retried attempts: named by a retry, or failed (or cut off) and followed by a later attempt. By number, never by time. */
function retriedOf(placed: readonly Placed[], cutOff: ReadonlySet<number>, attempts: number): Set<number> {
  const retried = new Set<number>();
  for (const { fact, attempt } of placed) {
    if (fact.kind === 'retry_issued') retried.add(fact.of);
    if ((fact.kind === 'provider_error' || fact.kind === 'watchdog') && attempt < attempts) retried.add(attempt);
  }
  for (const n of cutOff) if (n < attempts) retried.add(n);
  return retried;
}

/** How each attempt of `model` ended, for its lost usage. */
function attemptFates(model: RunModel): AttemptFates {
  const { placed, cutOff } = factsOf(model);
  const failed = new Set<number>();
  for (const { fact, attempt } of placed)
    if (attempt > 0 && (fact.kind === 'provider_error' || fact.kind === 'watchdog')) failed.add(attempt);
  const apiError = new Set<number>();
  model.attempts.forEach((a, i) => {
    if (a.end.kind === 'fail' && a.end.error !== 'socket') apiError.add(i + 1);
  });
  return { failed, apiError, retried: retriedOf(placed, cutOff, model.attempts.length), cutOff };
}

/** The verdict of `model` without its lost usage. */
function judgedRun(model: RunModel, lostFacts: boolean): Expected {
  const facts = factsOf(model);
  const { placed, openChildren, cutOff } = facts;
  // What was lost may have been a side effect: never fewer than `unknown` then.
  const sideEffects: SideEffects = lostFacts ? worse(facts.sideEffects, 'unknown') : facts.sideEffects;
  const attempts = model.attempts.length;
  const neverEnded = model.ending === 'crash';
  const retried = retriedOf(placed, cutOff, attempts);
  const recovered = [...retried].filter((n) => n < attempts).sort((a, b) => a - b);
  const cancelSeen = placed.some((p) => p.fact.kind === 'stop' && p.fact.stop.kind === 'user_cancel');
  const closeSeen = placed.some((p) => p.fact.kind === 'stop' && p.fact.stop.kind === 'lifecycle_close');
  const hasBoundary = (n: number | undefined) =>
    n !== undefined && placed.some((p) => p.attempt === n && p.fact.kind === 'boundary');
  const markers = (decisive: number | undefined, unnamed = false): string[] => {
    const list: string[] = [];
    if (decisive !== undefined && !hasBoundary(decisive)) list.push('side_effect_boundary_missing');
    if (openChildren) list.push('open_child_spans');
    if (neverEnded) list.push('run_never_ended');
    if (lostFacts) list.push('evidence_truncated');
    if (unnamed) list.push('terminal_event_missing');
    return list;
  };
  const base = { sideEffects, attempts, recoveredAttempts: recovered.length };
  const judged = (
    outcome: string,
    fact: Placed | undefined,
    attempt: number | undefined,
    missing: string[],
    guard: boolean,
  ): Expected => {
    const cause = causeOf(fact?.fact);
    const whole = attempt !== undefined && attempt > 0 ? summarize(placed, attempt) : undefined;
    const atFact = attempt !== undefined && attempt > 0 ? summarize(placed, attempt, fact?.at) : undefined;
    const phase = atFact
      ? atFact.phase
      : cause.cause === 'user_cancel' ||
          cause.cause === 'local_lifecycle_close' ||
          cause.cause === 'request_setup_failure'
        ? 'setup'
        : 'unknown';
    const retriesUsed = attempt === undefined ? retried.size : [...retried].filter((n) => n < attempt).length;
    let [safety, reason] = retrySafety(
      cause.cause as string,
      cause.retryable,
      whole,
      cancelSeen,
      closeSeen,
      retriesUsed,
    );
    if (guard && (safety === 'auto_retry' || safety === 'offer_continue'))
      [safety, reason] = ['ask_user_before_retry', 'side_effect_facts_incomplete'];
    return {
      outcome,
      ...cause,
      phase,
      retrySafety: safety,
      retrySafetyReason: reason,
      factsComplete: missing.length === 0,
      missingFacts: missing,
      ...base,
    };
  };

  const terminal = placed.find(
    (p) =>
      TERMINAL.has(p.fact.kind) &&
      !(p.attempt > 0 && retried.has(p.attempt)) &&
      !(p.fact.kind === 'tool_failed' && p.attempt < attempts),
  );
  if (terminal) {
    // A run-level fact is placed in the attempt that had started when it happened: the last one played.
    const attempt = terminal.attempt > 0 ? terminal.attempt : attempts > 0 ? attempts : undefined;
    const cancelled = terminal.fact.kind === 'stop' && terminal.fact.stop.kind === 'user_cancel';
    const outcome = cancelled ? 'cancelled' : neverEnded || lostFacts ? 'incomplete' : 'failed';
    return judged(outcome, terminal, attempt, markers(attempt), lostFacts);
  }
  if (neverEnded || lostFacts) {
    const last = attempts > 0 ? attempts : undefined;
    const phase = last !== undefined ? summarize(placed, last).phase : 'unknown';
    const [safety, reason] =
      sideEffects === 'none' ? ['unknown', 'unknown'] : ['ask_user_before_retry', 'side_effect_facts_incomplete'];
    const cause = neverEnded
      ? { cause: 'crash_or_restart_incomplete', causeDetail: 'run_never_ended' }
      : { cause: 'unknown_interruption' };
    const missing = markers(last);
    return {
      outcome: 'incomplete',
      ...cause,
      phase,
      retrySafety: safety,
      retrySafetyReason: reason,
      factsComplete: missing.length === 0,
      missingFacts: missing,
      ...base,
    };
  }
  if (attempts > 0 && cutOff.has(attempts))
    return judged('failed', undefined, attempts, markers(attempts, true), false);
  const lastRecovered = recovered.at(-1);
  if (lastRecovered !== undefined) {
    const failure = placed.find(
      (p) => p.attempt === lastRecovered && (p.fact.kind === 'provider_error' || p.fact.kind === 'watchdog'),
    );
    return judged('recovered', failure, lastRecovered, markers(lastRecovered, failure === undefined), false);
  }
  const missing = markers(undefined);
  return { outcome: 'success', factsComplete: missing.length === 0, missingFacts: missing, ...base };
}

/** How cautious a retry safety is: a lost fact may only move a verdict up this order. */
export const CAUTION: Readonly<Record<string, number>> = {
  auto_retry: 0,
  offer_continue: 1,
  unknown: 2,
  ask_user_before_retry: 3,
  do_not_retry: 4,
};

/**
 * What the contract says of a run whose facts were lost to span limits: the
 * fields that do not depend on which events survived. Phase, the reason and
 * the boundary marker depend on which of the oldest events the SDK dropped;
 * the retry safety must be at least as cautious as the full facts' (checked
 * with {@link CAUTION}).
 */
export function lostFactsView(v: Expected): Partial<Expected> {
  return {
    outcome: v.outcome,
    cause: v.cause,
    causeDetail: v.causeDetail,
    errorCode: v.errorCode,
    retryable: v.retryable,
    sideEffects: v.sideEffects,
    factsComplete: v.factsComplete,
    attempts: v.attempts,
    recoveredAttempts: v.recoveredAttempts,
    missingFacts: v.missingFacts.filter((m) => m !== 'side_effect_boundary_missing'),
  };
}

/** The oracle of a nested run that ended on its own, or undefined when it did not end before its parent. */
export function expectedNested(model: RunModel): Expected | undefined {
  return model.ending === 'end' ? expectedVerdict(model, false) : undefined;
}

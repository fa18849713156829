// Over 300 lines: the verdict of each way a run can end (terminal fact, never ended, cut off, recovered) in one place.
/**
 * facts → cause → phase → retry safety: the one classifier every edge calls.
 */
import { CAUSE_TABLE, usualRetryableByDetail } from '../model/cause-table.js';
import type { Cause, MissingFact, Phase, SideEffects } from '../model/enums.js';
import { checkExhaustive } from '../model/exhaustive.js';
import type { Fact, RunFacts } from '../model/facts.js';
import type { AttemptVerdict, Incident, LostUsage, RecoveryRecord } from '../model/incident.js';
import { summarizeAttempt } from './attempt-summary.js';
import { attemptLostUsage, lostUsage } from './lost-usage.js';
import type { Policy } from './policy.js';
import { DEFAULT_POLICY } from './policy.js';
import { deriveRetrySafety } from './retry-safety.js';
import type { Timeline } from './timeline.js';
import { buildTimeline, compareFacts, cutOffAttempts, retriesBefore } from './timeline.js';

/** Cause, detail, error code and retryability read from one terminal fact. */
export interface TerminalCause {
  readonly cause: Cause;
  readonly detail?: string;
  readonly code?: string;
  readonly retryable?: boolean;
}

/** Facts that fail a provider attempt (tool failures belong to the run, not to one request). */
const PROVIDER_FAILURES = new Set<Fact['kind']>(['provider_error', 'watchdog_fired']);

/** The cause of a provider error of each `ErrorFact` kind (the cause table's `errorKind`). */
const CAUSE_OF_ERROR_KIND: ReadonlyMap<string, Cause> = new Map(
  CAUSE_TABLE.flatMap((row) => ('errorKind' in row ? [[row.errorKind, row.cause] as const] : [])),
);

/** The usual retryability of each process close reason (the cause table's `retryable` of `process_exit`). */
const EXIT_RETRYABLE = usualRetryableByDetail('process_exit');

/** Maps a terminal fact to its cause; non-terminal facts give `unknown_interruption`. */
export function causeOf(fact: Fact): TerminalCause {
  switch (fact.kind) {
    case 'provider_error': {
      const { error } = fact;
      const cause = CAUSE_OF_ERROR_KIND.get(error.kind) ?? 'unknown_interruption';
      // An error of no known kind has no detail; a transport or API error always has one.
      if (cause === 'unknown_interruption') return { cause, code: error.code, retryable: error.retryable };
      return { cause, detail: error.detail ?? 'unknown', code: error.code, retryable: error.retryable };
    }
    case 'watchdog_fired':
      return { cause: 'watchdog_timeout', detail: fact.phase, retryable: true };
    case 'user_cancel':
      return { cause: 'user_cancel', detail: fact.origin };
    case 'lifecycle_close':
      return { cause: 'local_lifecycle_close', detail: fact.lifecycle };
    case 'setup_failure':
      return { cause: 'request_setup_failure', code: fact.code };
    case 'tool_execution_failed':
      return { cause: 'tool_execution_failure', detail: fact.detail, code: fact.code };
    case 'tool_execution_interrupted':
      return { cause: 'tool_execution_interrupted' };
    case 'process_exit': {
      const retryable = EXIT_RETRYABLE.get(fact.reason);
      const code = fact.signal ?? (fact.exitCode !== undefined ? `exit_${fact.exitCode}` : undefined);
      return { cause: 'process_exit', detail: fact.reason, code, retryable };
    }
    case 'run_error':
      return { cause: 'unknown_interruption', code: fact.code };
    case 'side_effect_boundary':
    case 'provider_progress':
    case 'text_output_started':
    case 'reasoning_output_started':
    case 'tool_input_started':
    case 'tool_input_completed':
    case 'tool_call_materialized':
    case 'tool_execution_started':
    case 'tool_execution_completed':
    case 'pending_tool_interrupted':
    case 'attempt_finished':
    case 'retry_issued':
    case 'child_run_side_effects':
    case 'recovery_action':
      return { cause: 'unknown_interruption' };
    default:
      // Exported and documented as total over facts: a kind outside the type
      // (from JavaScript) reads as a non-terminal fact, as before.
      checkExhaustive(fact);
      return { cause: 'unknown_interruption' };
  }
}

/** The phase of a run that ended with each cause before any attempt (the cause table's `phaseWithoutAttempt`). */
const PHASE_WITHOUT_ATTEMPT: ReadonlyMap<Cause, Phase> = new Map(
  CAUSE_TABLE.map((row) => [row.cause, row.phaseWithoutAttempt]),
);

function phaseWithoutAttempt(cause: Cause): Phase {
  return PHASE_WITHOUT_ATTEMPT.get(cause) ?? 'unknown';
}

/** A verdict before its missing facts and side effects are added: cause, phase and retry safety. */
interface PartialVerdict extends TerminalCause {
  readonly phase: Phase;
  readonly retrySafety: Incident['retrySafety'];
  readonly retrySafetyReason: Incident['retrySafetyReason'];
}

/** Judges one terminal fact within its run: cause, phase and retry safety. */
function judge(
  timeline: Timeline,
  terminal: Fact,
  attempt: string | undefined,
  policy: Policy,
  progressUnknown: readonly string[] | undefined,
): PartialVerdict {
  const terminalCause = causeOf(terminal);
  const hasAttempt = attempt !== undefined && timeline.attempts.some((a) => a.key === attempt);
  // Safety looks at everything the attempt did, even what was recorded late:
  // a tool that started after the drop still ran. Phase stops at the terminal fact.
  const whole = hasAttempt ? summarizeAttempt(timeline.facts, undefined, attempt) : undefined;
  const lateFacts = hasAttempt && timeline.facts.some((f) => f.attempt === attempt && compareFacts(f, terminal) > 0);
  const atTerminal = lateFacts ? summarizeAttempt(timeline.facts, terminal, attempt) : whole;
  const seen = timeline.facts;
  const safety = deriveRetrySafety({
    cause: terminalCause.cause,
    retryable: terminalCause.retryable,
    attempt: whole,
    userCancelSeen: seen.some((f) => f.kind === 'user_cancel'),
    lifecycleCloseSeen: seen.some((f) => f.kind === 'lifecycle_close'),
    retriesUsed: retriesBefore(timeline, attempt),
    policy,
  });
  const phase = atTerminal?.phase ?? phaseWithoutAttempt(terminalCause.cause);
  if (phase === 'before_first_provider_progress' && attempt !== undefined && progressUnknown?.includes(attempt)) {
    // The convention could not show whether output was streamed: neither the
    // phase nor an automatic retry can be claimed.
    const unsure = safety.retrySafety === 'auto_retry';
    return {
      cause: terminalCause.cause,
      detail: terminalCause.detail,
      code: terminalCause.code,
      retryable: terminalCause.retryable,
      phase: 'unknown',
      retrySafety: unsure ? 'unknown' : safety.retrySafety,
      retrySafetyReason: unsure ? 'unknown' : safety.reason,
    };
  }
  // Explicit fields, not an object spread: V8's spread of this shape is slow
  // enough to show in the processor's benchmark.
  return {
    cause: terminalCause.cause,
    detail: terminalCause.detail,
    code: terminalCause.code,
    retryable: terminalCause.retryable,
    phase,
    retrySafety: safety.retrySafety,
    retrySafetyReason: safety.reason,
  };
}

const SIDE_EFFECT_RANK: Record<SideEffects, number> = { none: 0, read_only: 1, unknown: 2, unsafe: 3 };

/** The worst side effect any tool of the run (or of its child runs) may have caused. */
export function runSideEffects(facts: readonly Fact[]): SideEffects {
  let worst: SideEffects = 'none';
  const raise = (candidate: SideEffects): void => {
    if (SIDE_EFFECT_RANK[candidate] > SIDE_EFFECT_RANK[worst]) worst = candidate;
  };
  for (const fact of facts) {
    if (fact.kind === 'tool_execution_started') raise(fact.sideEffects);
    else if (fact.kind === 'child_run_side_effects') raise(fact.sideEffects);
    else if ((fact.kind === 'tool_execution_completed' || fact.kind === 'tool_execution_failed') && !fact.startSeen)
      raise('unknown');
    else if (fact.kind === 'tool_call_materialized' && fact.providerExecuted)
      raise(fact.sideEffects === 'read_only' ? 'read_only' : 'unknown');
  }
  return worst;
}

/** What stopped an attempt that was cut off: no fact names it, so it sorts after every fact. */
function unnamedStop(attempt: string): Fact {
  return { kind: 'run_error', timeMillis: Number.POSITIVE_INFINITY, seq: Number.POSITIVE_INFINITY, attempt };
}

function missingFacts(run: RunFacts, timeline: Timeline, decisive: string | undefined, unnamed = false): MissingFact[] {
  const missing: MissingFact[] = [];
  if (
    decisive !== undefined &&
    !timeline.facts.some((f) => f.attempt === decisive && f.kind === 'side_effect_boundary')
  ) {
    missing.push('side_effect_boundary_missing');
  }
  const startMissing = timeline.facts.some(
    (f) => (f.kind === 'tool_execution_completed' || f.kind === 'tool_execution_failed') && !f.startSeen,
  );
  if (startMissing) missing.push('tool_execution_start_missing');
  if (run.progressUnknown) missing.push('provider_progress_missing');
  if (run.openChildren) missing.push('open_child_spans');
  if (run.neverEnded) missing.push('run_never_ended');
  if (run.evidenceTruncated) missing.push('evidence_truncated');
  if (unnamed) missing.push('terminal_event_missing');
  return missing;
}

/**
 * Derives the {@link Incident} of a run from its facts (docs/attributes.md#run-span-keys,
 * docs/conventions.md#fact-events, docs/attributes.md#retry-safety-reasons).
 * Total: garbage facts give `unknown` verdicts, never an exception.
 */
export function deriveIncident(run: RunFacts, policy: Policy = DEFAULT_POLICY): Incident {
  const timeline = buildTimeline(run);
  const incident = judgeRun(run, timeline, policy);
  const lost = lostUsage(run, timeline, incident.outcome);
  // A fresh object, so adding the key here is safe; a run that lost nothing carries none.
  if (lost) (incident as { lost?: LostUsage }).lost = lost;
  return incident;
}

/** The verdict of `run` without its lost usage: cause, phase, retry safety, missing facts. */
function judgeRun(run: RunFacts, timeline: Timeline, policy: Policy): Incident {
  const attempts = timeline.attempts.length;
  const recoveredAttempts = timeline.recovered.length;
  // Facts that may be lost may have been side effects: the run cannot claim fewer than `unknown`.
  const seen = runSideEffects(timeline.facts);
  const sideEffects = run.evidenceTruncated && SIDE_EFFECT_RANK[seen] < SIDE_EFFECT_RANK.unknown ? 'unknown' : seen;
  const base = { sideEffects, attempts, recoveredAttempts, recovery: lastRecovery(timeline.facts) };

  if (timeline.terminal) {
    const judged = judge(timeline, timeline.terminal, timeline.terminalAttempt, policy, run.progressUnknownAttempts);
    const j = run.evidenceTruncated ? guarded(judged) : judged;
    const missing = missingFacts(run, timeline, timeline.terminalAttempt);
    // A user stop stays a cancel even when the run span was never ended after it.
    const outcome =
      j.cause === 'user_cancel' ? 'cancelled' : run.neverEnded || run.evidenceTruncated ? 'incomplete' : 'failed';
    return incidentOf(outcome, j, missing, base);
  }
  if (run.neverEnded || run.evidenceTruncated) {
    const last = timeline.attempts.at(-1)?.key;
    const missing = missingFacts(run, timeline, last);
    const reached = last !== undefined ? summarizeAttempt(timeline.facts, undefined, last).phase : 'unknown';
    // No progress seen by a convention that cannot show progress is not "before the first progress".
    const phase =
      reached === 'before_first_provider_progress' && last !== undefined && run.progressUnknownAttempts?.includes(last)
        ? 'unknown'
        : reached;
    const cause: PartialVerdict = run.neverEnded
      ? {
          cause: 'crash_or_restart_incomplete',
          detail: 'run_never_ended',
          phase,
          retrySafety: 'unknown',
          retrySafetyReason: 'unknown',
        }
      : { cause: 'unknown_interruption', phase, retrySafety: 'unknown', retrySafetyReason: 'unknown' };
    // A run that died with side effects started must not be replayed blindly.
    const safe: PartialVerdict =
      sideEffects === 'none'
        ? cause
        : {
            cause: cause.cause,
            detail: cause.detail,
            phase,
            retrySafety: 'ask_user_before_retry',
            retrySafetyReason: 'side_effect_facts_incomplete',
          };
    return incidentOf('incomplete', safe, missing, base);
  }
  // Only the last attempt being cut off ended the run; an earlier one was abandoned for the next.
  const cutOffs = cutOffAttempts(run);
  const lastAttempt = timeline.attempts.at(-1)?.key;
  const cutOff = lastAttempt !== undefined && cutOffs.includes(lastAttempt) ? lastAttempt : undefined;
  if (cutOff !== undefined) {
    // The run ended while an attempt was still streaming: something ended it
    // that no fact names. Judge that attempt as it stood.
    const j = judge(timeline, unnamedStop(cutOff), cutOff, policy, run.progressUnknownAttempts);
    return incidentOf('failed', j, missingFacts(run, timeline, cutOff, true), base);
  }
  const lastRecovered = timeline.recovered.at(-1);
  if (lastRecovered !== undefined) {
    const failure =
      timeline.facts.find((f) => f.attempt === lastRecovered && PROVIDER_FAILURES.has(f.kind)) ??
      timeline.facts.find((f) => f.kind === 'retry_issued' && f.ofAttempt === lastRecovered) ??
      // Abandoned while streaming: what stopped it is not known.
      (cutOffs.includes(lastRecovered) ? unnamedStop(lastRecovered) : undefined);
    if (failure) {
      const j = judge(timeline, failure, lastRecovered, policy, run.progressUnknownAttempts);
      return incidentOf('recovered', j, missingFacts(run, timeline, lastRecovered, failure.kind === 'run_error'), base);
    }
  }
  // A success needs no side-effect boundary: nothing is to be retried.
  const missing = missingFacts(run, timeline, undefined);
  return {
    outcome: 'success',
    factsComplete: missing.length === 0,
    missingFacts: missing,
    sideEffects: base.sideEffects,
    attempts: base.attempts,
    recoveredAttempts: base.recoveredAttempts,
    ...(base.recovery ? { recovery: base.recovery } : {}),
  };
}

/**
 * A verdict on facts of which some were lost (span limits dropped events, the
 * processor dropped the run's state): what was lost may have been a tool call
 * or a side effect, so neither an automatic retry nor a silent continue can be
 * claimed. A lost fact only ever makes a verdict more cautious.
 */
function guarded(j: PartialVerdict): PartialVerdict {
  if (j.retrySafety !== 'auto_retry' && j.retrySafety !== 'offer_continue') return j;
  return {
    cause: j.cause,
    detail: j.detail,
    code: j.code,
    retryable: j.retryable,
    phase: j.phase,
    retrySafety: 'ask_user_before_retry',
    retrySafetyReason: 'side_effect_facts_incomplete',
  };
}

/** The last recovery action recorded in the run, if a strategy acted. */
function lastRecovery(facts: readonly Fact[]): RecoveryRecord | undefined {
  for (let i = facts.length - 1; i >= 0; i--) {
    const fact = facts[i]!;
    if (fact.kind === 'recovery_action') return { action: fact.action, reason: fact.reason, strategy: fact.strategy };
  }
  return undefined;
}

type Base = Pick<Incident, 'sideEffects' | 'attempts' | 'recoveredAttempts' | 'recovery'>;

function incidentOf(outcome: Incident['outcome'], j: PartialVerdict, missing: MissingFact[], base: Base): Incident {
  return {
    outcome,
    cause: j.cause,
    causeDetail: j.detail,
    phase: j.phase,
    retrySafety: j.retrySafety,
    retrySafetyReason: j.retrySafetyReason,
    retryable: j.retryable,
    errorCode: j.code,
    factsComplete: missing.length === 0,
    missingFacts: missing,
    sideEffects: base.sideEffects,
    attempts: base.attempts,
    recoveredAttempts: base.recoveredAttempts,
    ...(base.recovery ? { recovery: base.recovery } : {}),
  };
}

/**
 * The verdict on one attempt judged alone: its own earliest terminal fact as if
 * it had ended the run. Undefined when the attempt has no terminal fact.
 */
export function deriveAttemptVerdict(
  run: RunFacts,
  attemptKey: string,
  policy: Policy = DEFAULT_POLICY,
): AttemptVerdict | undefined {
  const timeline = buildTimeline(run);
  const record = timeline.attempts.find((a) => a.key === attemptKey);
  const terminal = timeline.facts.find((f) => f.attempt === attemptKey && PROVIDER_FAILURES.has(f.kind));
  if (!record || !terminal) return undefined;
  const j = judge(timeline, terminal, attemptKey, policy, run.progressUnknownAttempts);
  const lost = attemptLostUsage(run, timeline, attemptKey);
  return {
    number: record.number,
    cause: j.cause,
    causeDetail: j.detail,
    phase: j.phase,
    retrySafety: j.retrySafety ?? 'unknown',
    retrySafetyReason: j.retrySafetyReason ?? 'unknown',
    retryable: j.retryable,
    errorCode: j.code,
    ...(lost ? { lost } : {}),
  };
}

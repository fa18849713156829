/**
 * Orders a run's facts and finds what ended it (docs/conventions.md#ordering-and-agent_incidentsseq):
 * the earliest terminal fact by initiation time, ties broken by sequence,
 * skipping facts of attempts that were retried.
 */
import type { AttemptRecord, Fact, RunFacts } from '../model/facts.js';
import { TERMINAL_FACT_KINDS } from '../model/facts.js';

/** A run's facts in order, with its attempts and what ended it. */
export interface Timeline {
  /** All facts, earliest first. */
  readonly facts: readonly Fact[];
  /** Attempts, in start order. */
  readonly attempts: readonly AttemptRecord[];
  /** Attempts whose failure was followed by a retry (explicit or by a later attempt). */
  readonly retried: ReadonlySet<string>;
  /** Retried attempts after which another attempt really started. */
  readonly recovered: readonly string[];
  /** The fact that ended the run, if any. */
  readonly terminal?: Fact;
  /** The attempt the run was in when `terminal` happened. */
  readonly terminalAttempt?: string;
}

function timeOf(fact: Fact): number {
  return Number.isFinite(fact.timeMillis) ? fact.timeMillis : Number.POSITIVE_INFINITY;
}

/** Orders facts by time, then by sequence. Non-finite times sort last. */
export function compareFacts(a: Fact, b: Fact): number {
  const ta = timeOf(a);
  const tb = timeOf(b);
  if (ta !== tb) return ta < tb ? -1 : 1;
  return (Number.isFinite(a.seq) ? a.seq : Infinity) - (Number.isFinite(b.seq) ? b.seq : Infinity) || 0;
}

/** True when `fact` can end a run. */
export function isTerminal(fact: Fact): boolean {
  return TERMINAL_FACT_KINDS.has(fact.kind);
}

/** The attempt running at `timeMillis`: the latest one started at or before it. */
export function attemptAt(attempts: readonly AttemptRecord[], timeMillis: number): AttemptRecord | undefined {
  let found: AttemptRecord | undefined;
  for (const attempt of attempts) {
    if (attempt.startMillis <= timeMillis) found = attempt;
  }
  return found;
}

/**
 * True when another attempt came after `fact`. A fact of a known attempt is
 * placed by structure, the attempt numbers, never by comparing timestamps
 * across spans (their clocks may differ by a millisecond or more, see
 * docs/conventions.md#ordering-and-agent_incidentsseq); only a run-level fact,
 * which belongs to no attempt, is placed by time.
 */
function startedAfter(attempts: readonly AttemptRecord[], fact: Fact): boolean {
  const own = fact.attempt === undefined ? undefined : attempts.find((a) => a.key === fact.attempt);
  if (own !== undefined) return attempts.some((a) => a.number > own.number);
  const time = timeOf(fact);
  return attempts.some((a) => a.startMillis > time);
}

/**
 * Builds the {@link Timeline} of a run. An attempt counts as retried when a
 * `retry_issued` fact names it, or when its provider failure is followed by
 * another attempt (conventions that do not record retries explicitly). A tool
 * failure followed by a new attempt did not end the run: the model went on.
 */
export function buildTimeline(run: RunFacts): Timeline {
  const facts = [...run.facts].sort(compareFacts);
  const attempts = [...run.attempts].sort((a, b) => a.number - b.number);
  const retried = new Set<string>();
  for (const fact of facts) {
    if (fact.kind === 'retry_issued' && fact.ofAttempt !== undefined) retried.add(fact.ofAttempt);
    if (
      (fact.kind === 'provider_error' || fact.kind === 'watchdog_fired') &&
      fact.attempt !== undefined &&
      startedAfter(attempts, fact)
    ) {
      retried.add(fact.attempt);
    }
  }
  // An attempt cut off (never finished, no error recorded) and followed by another was abandoned for it.
  for (const key of cutOffAttempts(run)) {
    const own = attempts.find((a) => a.key === key);
    if (own && attempts.some((a) => a.number > own.number)) retried.add(key);
  }
  const recovered = attempts
    .filter((a) => retried.has(a.key) && attempts.some((b) => b.number > a.number))
    .map((a) => a.key);
  const terminal = facts.find(
    (fact) =>
      isTerminal(fact) &&
      !(fact.attempt !== undefined && retried.has(fact.attempt)) &&
      !(fact.kind === 'tool_execution_failed' && startedAfter(attempts, fact)),
  );
  const terminalAttempt = terminal ? (terminal.attempt ?? attemptAt(attempts, timeOf(terminal))?.key) : undefined;
  return { facts, attempts, retried, recovered, terminal, terminalAttempt };
}

/**
 * Attempts that stopped with no fact naming why: their span was cut off (open
 * when the run ended, or ended with nothing a finished response leaves) and
 * they recorded neither a finish nor a failure of their own. An attempt whose
 * finish or failure was recorded ended as that fact says, whatever became of
 * its span afterwards.
 */
export function cutOffAttempts(run: RunFacts): readonly string[] {
  const truncated = run.truncatedAttempts;
  if (truncated === undefined || truncated.length === 0) return [];
  return truncated.filter(
    (key) =>
      !run.facts.some(
        (f) =>
          f.attempt === key &&
          (f.kind === 'attempt_finished' || f.kind === 'provider_error' || f.kind === 'watchdog_fired'),
      ),
  );
}

/** Retries used before attempt `key` started (for the automatic-retry budget). */
export function retriesBefore(timeline: Timeline, key: string | undefined): number {
  const attempt = timeline.attempts.find((a) => a.key === key);
  if (!attempt) return timeline.retried.size;
  return timeline.attempts.filter((a) => a.number < attempt.number && timeline.retried.has(a.key)).length;
}

/**
 * The verdict about one run: what ended it, where, and what may be done next.
 * Plain data; `incidentAttributes` turns it into span attributes.
 */
import type {
  Cause,
  MissingFact,
  Outcome,
  Phase,
  RecoveryActionKind,
  RecoveryReason,
  RetrySafety,
  RetrySafetyReason,
  SideEffects,
} from './enums.js';

/** The last action a recovery strategy recorded on the run. */
export interface RecoveryRecord {
  /** What the strategy did (`incident.recovery.action`). */
  readonly action: RecoveryActionKind;
  /** Why (`incident.recovery.reason`). */
  readonly reason: RecoveryReason;
  /** The strategy's registered name, a safe token (`incident.recovery.strategy`). */
  readonly strategy: string;
}

/**
 * What the attempts that did not make the run's answer used
 * (docs/attributes.md#lost-usage): every attempt of a run that ended in an
 * incident; in a run that succeeded or recovered, every attempt that did not
 * finish cleanly (failed, cut off, superseded by a retry). Sums over those
 * attempts; a figure no lost attempt reported is absent.
 */
export interface LostUsage {
  /** How many attempts did not make the answer (at least 1). */
  readonly attempts: number;
  /** Input tokens they reported (0 when none did: see `lowerBound`). */
  readonly inputTokens: number;
  /** Output tokens they reported (0 when none did: see `lowerBound`). */
  readonly outputTokens: number;
  /** Reasoning tokens, absent when no lost attempt reported them. */
  readonly reasoningTokens?: number;
  /** Cached input tokens, absent when no lost attempt reported them. */
  readonly cachedInputTokens?: number;
  /** Cost in US dollars, absent when no lost attempt reported one. */
  readonly costUsd?: number;
  /**
   * True when the figures are a lower bound: a lost attempt reported no input
   * or no output tokens (a cut stream often carries no usage), or no cost
   * while another reported one, or the run's facts may be lost.
   */
  readonly lowerBound: boolean;
}

/** The verdict on a run (docs/attributes.md#run-span-keys). Optional fields are absent when they do not apply. */
export interface Incident {
  readonly outcome: Outcome;
  /** Absent only when the outcome is `success`. */
  readonly cause?: Cause;
  readonly causeDetail?: string;
  readonly phase?: Phase;
  readonly retrySafety?: RetrySafety;
  readonly retrySafetyReason?: RetrySafetyReason;
  /** Technical retryability of the terminal error alone; absent when unknown. */
  readonly retryable?: boolean;
  readonly sideEffects: SideEffects;
  readonly factsComplete: boolean;
  readonly missingFacts: readonly MissingFact[];
  readonly errorCode?: string;
  readonly attempts: number;
  readonly recoveredAttempts: number;
  /** What the runtime's recovery strategy did last; absent when none acted. */
  readonly recovery?: RecoveryRecord;
  /** Tokens and cost of the attempts that did not make the answer; absent when every attempt made it. */
  readonly lost?: LostUsage;
}

/** The verdict on one failed attempt, written under the `incident.attempt.*` keys. */
export interface AttemptVerdict {
  readonly number: number;
  readonly cause: Cause;
  readonly causeDetail?: string;
  readonly phase: Phase;
  readonly retrySafety: RetrySafety;
  readonly retrySafetyReason: RetrySafetyReason;
  readonly retryable?: boolean;
  readonly errorCode?: string;
  /** What the failed attempt used (it did not make the answer): its own figures, `attempts` 1. */
  readonly lost?: LostUsage;
}

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
}

/**
 * What recovery reads and writes about a run: the attempt history, a redacted
 * snapshot and the record of an action. Plain types, so a recovery strategy
 * depends on this model and not on the recorder that fills it.
 */
import type { RecoveryActionKind, RecoveryReason } from './enums.js';
import type { AttemptVerdict, Incident } from './incident.js';

export type { AttemptUsage } from './usage.js';

/** One attempt of the run as the recorder saw it: the attempt history of a recovery context. */
export interface AttemptHistoryEntry {
  readonly number: number;
  readonly startMillis: number;
  /** Absent while the attempt is open. */
  readonly endMillis?: number;
  /** Whether a retry was issued for it. */
  readonly retried: boolean;
  /** Its own verdict when it failed (judged on its own facts). */
  readonly verdict?: AttemptVerdict;
  /** `retry-after` its provider error asked for, in milliseconds. */
  readonly retryAfterMillis?: number;
}

/**
 * A redacted snapshot of a run for recovery records: counts, tokens, cost and
 * durations, and the verdict's enums. Never message content, tool arguments or
 * outputs; nothing here can hold free text.
 */
export interface RunSnapshot {
  /** Model turns completed (attempts that finished normally). */
  readonly turns: number;
  readonly attempts: number;
  readonly recoveredAttempts: number;
  /** Input tokens the attempts reported (`finish({ usage })`); absent when none did. */
  readonly inputTokens?: number;
  /** Output tokens the attempts reported; absent when none did. */
  readonly outputTokens?: number;
  /** Sum of the cost the runtime reported per attempt; absent when none did. */
  readonly costUsd?: number;
  /** From the run start to its end, or to the snapshot while it runs. */
  readonly durationMillis: number;
  /** Duration of each ended attempt, in order. */
  readonly attemptDurationsMillis: readonly number[];
  readonly outcome: Incident['outcome'];
  readonly cause?: Incident['cause'];
  readonly causeDetail?: string;
  readonly phase?: Incident['phase'];
}

/** A recovery action as recorded on the run span (`agent_incidents.recovery_action`). */
export interface RecoveryActionRecord {
  readonly action: RecoveryActionKind;
  readonly reason: RecoveryReason;
  /** Strategy name; must be a safe token (`safeRetry`), else it is recorded as `custom`. */
  readonly strategy: string;
  readonly delayMillis?: number;
  readonly resumeAttempt?: number;
  readonly taskRetryCount?: number;
  readonly snapshot?: RunSnapshot;
}

/** Why {@link RecoverableRun.signal} aborted: the fact that stopped the run. */
export interface RunStopReason {
  readonly cause: 'user_cancel' | 'local_lifecycle_close';
}

/**
 * A run a recovery strategy can act on in-process; `RunRecorder` is one.
 * Strategies record their actions on it and wait on its signal.
 */
export interface RecoverableRun {
  /** Aborted when a user cancel or lifecycle close is recorded, with a {@link RunStopReason}. */
  readonly signal: AbortSignal;
  /** Whether the run ended: its span takes no more events. */
  readonly ended: boolean;
  /** The verdict now, from the same pure functions the processor uses. */
  incident(): Incident;
  /** Each attempt so far, with its own verdict. */
  attemptHistory(): AttemptHistoryEntry[];
  /** A redacted snapshot of the run now. */
  snapshot(): RunSnapshot;
  /** Records that a retry of attempt number `attempt` (undefined: the whole run) was issued, before its backoff. */
  retryIssued(attempt: number | undefined, options?: { readonly delayMillis?: number }): void;
  /** Records what a recovery strategy did. */
  recoveryAction(record: RecoveryActionRecord): void;
}

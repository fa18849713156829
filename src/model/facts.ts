/**
 * Facts: the evidence a verdict is computed from (docs/conventions.md#fact-events). Plain data with
 * no OpenTelemetry types, so the SDK processor, the gateway and the runtime
 * recorder build the same values and hand them to the same pure derivation.
 */
import { CAUSE_TABLE } from './cause-table.js';
import type {
  ApiErrorKind,
  CancelOrigin,
  LifecycleKind,
  ProcessCloseReason,
  RecoveryActionKind,
  RecoveryReason,
  ToolFailureKind,
  ToolSideEffects,
  TransportDetail,
  WatchdogPhase,
} from './enums.js';
import type { AttemptUsage } from './usage.js';

/** A provider error, already reduced to closed values (see `classifyError`). */
export interface ErrorFact {
  /**
   * `transport` for a dropped stream, `api` for a provider rejection, `unknown`
   * for an error we cannot place (it never becomes a transport disconnect).
   */
  readonly kind: 'transport' | 'api' | 'unknown';
  /** Transport detail or API error kind, depending on `kind`; absent for `unknown`. */
  readonly detail?: TransportDetail | ApiErrorKind;
  /** Sanitized low-cardinality code (`UND_ERR_SOCKET`, `http_503`), if known. */
  readonly code?: string;
  /** Technical retryability of this error alone; undefined when unknown. */
  readonly retryable?: boolean;
  /** How long the provider asked to wait before a retry (`retry-after`), in milliseconds. */
  readonly retryAfterMillis?: number;
}

/** One tool exposed to a provider request. */
export interface BoundaryTool {
  readonly name: string;
  readonly sideEffects: ToolSideEffects;
  /** True when the provider runs the tool itself (we cannot see its effects). */
  readonly providerExecuted: boolean;
}

/** Which tools a provider request could call: its side-effect boundary. */
export interface SideEffectBoundary {
  readonly tools: readonly BoundaryTool[];
  /** True when the request reaches an external system whose effects are not classified. */
  readonly external: boolean;
}

export interface FactBase {
  /** When the fact happened, in epoch milliseconds (for a lifecycle close: when it was initiated). */
  readonly timeMillis: number;
  /** Tie-breaker within a run when times are equal; lower happened first. */
  readonly seq: number;
  /** Key of the attempt this fact belongs to; absent for run-level facts. */
  readonly attempt?: string;
}

/** Every fact kind, with its payload. `terminal` facts can end a run. */
export type Fact = FactBase &
  (
    | { readonly kind: 'side_effect_boundary'; readonly boundary: SideEffectBoundary }
    | { readonly kind: 'provider_progress' }
    | { readonly kind: 'text_output_started' }
    | { readonly kind: 'reasoning_output_started' }
    | { readonly kind: 'tool_input_started'; readonly tool?: string; readonly providerExecuted: boolean }
    | { readonly kind: 'tool_input_completed'; readonly tool?: string }
    | {
        readonly kind: 'tool_call_materialized';
        readonly tool?: string;
        readonly sideEffects: ToolSideEffects;
        readonly providerExecuted: boolean;
      }
    | { readonly kind: 'tool_execution_started'; readonly tool?: string; readonly sideEffects: ToolSideEffects }
    | { readonly kind: 'tool_execution_completed'; readonly tool?: string; readonly startSeen: boolean }
    | {
        readonly kind: 'tool_execution_failed';
        readonly tool?: string;
        readonly detail: ToolFailureKind;
        readonly code?: string;
        readonly startSeen: boolean;
      }
    | { readonly kind: 'tool_execution_interrupted'; readonly tool?: string }
    | { readonly kind: 'pending_tool_interrupted'; readonly tool?: string }
    | { readonly kind: 'watchdog_fired'; readonly phase: WatchdogPhase; readonly budgetMillis?: number }
    | { readonly kind: 'provider_error'; readonly error: ErrorFact }
    | { readonly kind: 'attempt_finished' }
    | { readonly kind: 'retry_issued'; readonly ofAttempt?: string }
    | { readonly kind: 'user_cancel'; readonly origin: CancelOrigin }
    | { readonly kind: 'lifecycle_close'; readonly lifecycle: LifecycleKind }
    | { readonly kind: 'setup_failure'; readonly code?: string }
    | {
        readonly kind: 'process_exit';
        readonly reason: ProcessCloseReason;
        readonly exitCode?: number;
        readonly signal?: string;
      }
    | { readonly kind: 'run_error'; readonly code?: string }
    | { readonly kind: 'child_run_side_effects'; readonly sideEffects: 'read_only' | 'unsafe' | 'unknown' }
    | {
        readonly kind: 'recovery_action';
        readonly action: RecoveryActionKind;
        readonly reason: RecoveryReason;
        /** Name of the strategy that acted (a safe token; `custom` when it was not one). */
        readonly strategy: string;
      }
  );

/** A fact whose sequence number is not assigned yet (the run that collects it assigns one). */
export type FactDraft = WithoutSeq<Fact>;
type WithoutSeq<T> = T extends unknown ? Omit<T, 'seq'> & { readonly seq?: number } : never;

/** The `kind` of a {@link Fact}. */
export type FactKind = Fact['kind'];

/** The fact of kind `K`. */
export type FactOf<K extends FactKind> = Extract<Fact, { kind: K }>;

/**
 * Fact kinds that can end a run: the terminal facts of the cause table
 * (cause-table.ts). Typed as fact kinds, so a row naming a kind that is not a
 * {@link Fact} fails typecheck here.
 */
export const TERMINAL_FACT_KINDS: ReadonlySet<FactKind> = new Set<FactKind>(
  CAUSE_TABLE.flatMap((row): readonly FactKind[] => row.terminalFacts),
);

/** One provider attempt of a run. */
export interface AttemptRecord {
  /** Stable key within the run (the attempt span's id). */
  readonly key: string;
  /** 1-based position among the run's attempts. */
  readonly number: number;
  readonly startMillis: number;
}

/** Everything known about one run, ready for `deriveIncident`. */
export interface RunFacts {
  readonly facts: readonly Fact[];
  readonly attempts: readonly AttemptRecord[];
  /** The run span never ended: it was finalized at the age limit or at flush/shutdown. */
  readonly neverEnded?: boolean;
  /** Part of the run's facts were lost (state evicted, evidence cut off). */
  readonly evidenceTruncated?: boolean;
  /** Some child spans that carry facts were still open when the run ended. */
  readonly openChildren?: boolean;
  /**
   * Attempts cut off: still open when their run ended, or ended with no
   * finish and no error (their stream never finished, nothing says why).
   */
  readonly truncatedAttempts?: readonly string[];
  /** Facts came from a convention that does not record provider progress. */
  readonly progressUnknown?: boolean;
  /**
   * The attempts (keys) whose progress is unknown. When the deciding attempt is
   * one of them and shows no progress, its phase is `unknown` and it is never
   * retried automatically: output may have reached the user unseen.
   */
  readonly progressUnknownAttempts?: readonly string[];
  /** What each attempt (by key) reported of its token use and cost; an attempt absent here reported none. */
  readonly usage?: ReadonlyMap<string, AttemptUsage>;
}

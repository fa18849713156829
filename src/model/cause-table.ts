/**
 * The cause table: one row per cause, in the order of `CAUSES`, holding what
 * the code knows about a cause as data. `CAUSES` and `CAUSE_DETAILS`
 * (enums.ts) and `TERMINAL_FACT_KINDS` (facts.ts) are read from it; the
 * derivation (retry safety, `causeOf`, the error classifier), the message
 * catalogs, the docs contract test and the property generator read it too, so
 * a new cause starts here (CONTRIBUTING.md, "Checklist: adding a cause").
 *
 * Imports only `native-convention.ts`, which imports nothing: `enums.ts` and
 * `facts.ts` import this module, so it cannot import them back.
 */
import { NATIVE_EVENT } from './native-convention.js';

/**
 * When a runtime may retry a cause automatically, if nothing else forbids it
 * (the last rules of docs/attributes.md#retry-safety-reasons):
 * `unless_not_retryable` unless the error said it is not retryable,
 * `if_retryable` only when it said it is, `never` not at all.
 */
export type AutoRetry = 'unless_not_retryable' | 'if_retryable' | 'never';

/**
 * The usual `incident.retryable` of a cause (the "retryable" column of
 * docs/attributes.md#causes-and-details): `true` or `false` for every
 * detail, a value for some details (the others carry none, or the error's
 * own), `absent` when the cause never carries one, or `error` when it is the
 * error's own.
 */
export type UsualRetryable<D extends string = string> = boolean | { readonly [K in D]?: boolean } | 'absent' | 'error';

/** What the code knows about one cause. */
export interface CauseRow<C extends string = string, D extends string = string> {
  /** The `incident.cause` value. */
  readonly cause: C;
  /** Its closed `incident.cause.detail` values, in contract order; empty when it has none. */
  readonly details: readonly D[];
  /** Whether a runtime may retry it automatically ({@link AutoRetry}). */
  readonly autoRetry: AutoRetry;
  /** The usual `incident.retryable` ({@link UsualRetryable}). */
  readonly retryable: UsualRetryable<D>;
  /**
   * The `Fact` kinds that end a run with this cause (facts.ts checks they are
   * fact kinds); empty when no fact names it (the run never ended).
   */
  readonly terminalFacts: readonly string[];
  /** The native events (docs/conventions.md#fact-events) that record those facts; empty when none does. */
  readonly nativeEvents: readonly string[];
  /** The `ErrorFact` kind `classifyError` gives an error of this cause; absent for causes that are no provider error. */
  readonly errorKind?: 'transport' | 'api' | 'unknown';
  /** The phase of a run that ended this way before any attempt started. */
  readonly phaseWithoutAttempt: 'setup' | 'unknown';
}

/** Every cause, in the order of `CAUSES` (docs/attributes.md#causes-and-details). */
export const CAUSE_TABLE = [
  {
    cause: 'provider_transport_disconnect',
    details: ['socket_closed', 'connection_reset', 'stream_terminated', 'tls', 'unknown'],
    autoRetry: 'unless_not_retryable',
    retryable: { socket_closed: true, connection_reset: true, stream_terminated: true, tls: false, unknown: true },
    terminalFacts: ['provider_error'],
    nativeEvents: [NATIVE_EVENT.PROVIDER_ERROR],
    errorKind: 'transport',
    phaseWithoutAttempt: 'unknown',
  },
  {
    cause: 'provider_api_error',
    details: [
      'auth',
      'rate_limit',
      'quota_exhausted',
      'server_overload',
      'invalid_request',
      'context_overflow',
      'content_filter',
      'unknown',
    ],
    autoRetry: 'if_retryable',
    // `unknown` has no usual value: the status (408, 409) or the client's hint decides.
    retryable: {
      auth: false,
      rate_limit: true,
      quota_exhausted: false,
      server_overload: true,
      invalid_request: false,
      context_overflow: false,
      content_filter: false,
    },
    terminalFacts: ['provider_error'],
    nativeEvents: [NATIVE_EVENT.PROVIDER_ERROR],
    errorKind: 'api',
    phaseWithoutAttempt: 'unknown',
  },
  {
    cause: 'watchdog_timeout',
    details: ['connect', 'silent_stream', 'total'],
    autoRetry: 'unless_not_retryable',
    retryable: true,
    terminalFacts: ['watchdog_fired'],
    nativeEvents: [NATIVE_EVENT.WATCHDOG_FIRED],
    phaseWithoutAttempt: 'unknown',
  },
  {
    cause: 'user_cancel',
    details: ['user_stop', 'client_disconnect', 'unknown'],
    autoRetry: 'never',
    retryable: 'absent',
    terminalFacts: ['user_cancel'],
    nativeEvents: [NATIVE_EVENT.USER_CANCEL],
    phaseWithoutAttempt: 'setup',
  },
  {
    cause: 'local_lifecycle_close',
    details: ['instance_reload', 'instance_dispose', 'shutdown', 'unknown_lifecycle_close'],
    autoRetry: 'never',
    retryable: 'absent',
    terminalFacts: ['lifecycle_close'],
    nativeEvents: [NATIVE_EVENT.LIFECYCLE_CLOSE],
    phaseWithoutAttempt: 'setup',
  },
  {
    cause: 'request_setup_failure',
    details: [],
    autoRetry: 'never',
    retryable: 'absent',
    terminalFacts: ['setup_failure'],
    nativeEvents: [NATIVE_EVENT.SETUP_FAILURE],
    phaseWithoutAttempt: 'setup',
  },
  {
    cause: 'tool_execution_failure',
    details: ['invalid_arguments', 'permission_denied', 'environment', 'timeout', 'provider', 'unknown'],
    autoRetry: 'never',
    retryable: 'absent',
    terminalFacts: ['tool_execution_failed'],
    nativeEvents: [NATIVE_EVENT.TOOL_EXECUTION_FAILED],
    phaseWithoutAttempt: 'unknown',
  },
  {
    cause: 'tool_execution_interrupted',
    details: [],
    autoRetry: 'never',
    retryable: 'absent',
    terminalFacts: ['tool_execution_interrupted'],
    nativeEvents: [NATIVE_EVENT.TOOL_EXECUTION_INTERRUPTED],
    phaseWithoutAttempt: 'unknown',
  },
  {
    cause: 'process_exit',
    details: [
      'exit_nonzero',
      'signal',
      'stream_error',
      'fatal_rpc_error',
      'spawn_failed',
      'cli_not_installed',
      'empty_output',
      'execution_failed',
    ],
    autoRetry: 'if_retryable',
    // A broken pipe to the process may go away on a retry; an exit, a signal or a missing CLI will not.
    retryable: {
      exit_nonzero: false,
      signal: false,
      stream_error: true,
      fatal_rpc_error: true,
      spawn_failed: false,
      cli_not_installed: false,
    },
    terminalFacts: ['process_exit'],
    nativeEvents: [NATIVE_EVENT.PROCESS_EXIT],
    phaseWithoutAttempt: 'unknown',
  },
  {
    cause: 'crash_or_restart_incomplete',
    details: ['run_never_ended', 'restart_detected'],
    autoRetry: 'never',
    retryable: 'absent',
    // No fact names it: the run span never ended (`RunFacts.neverEnded`).
    terminalFacts: [],
    nativeEvents: [],
    phaseWithoutAttempt: 'unknown',
  },
  {
    cause: 'unknown_interruption',
    details: [],
    autoRetry: 'never',
    retryable: 'error',
    // A run span that ended in error with no fact naming why, or a provider error of no known kind.
    terminalFacts: ['run_error', 'provider_error'],
    nativeEvents: [NATIVE_EVENT.PROVIDER_ERROR],
    errorKind: 'unknown',
    phaseWithoutAttempt: 'unknown',
  },
] as const satisfies readonly CauseRow[];

/** The causes of a table, as a tuple in its order. */
type CausesOf<T extends readonly CauseRow[]> = { readonly [I in keyof T]: T[I]['cause'] };

/** The detail lists of a table, keyed by cause in its order. */
type DetailsOf<T extends readonly CauseRow[]> = { readonly [R in T[number] as R['cause']]: R['details'] };

/** The causes of {@link CAUSE_TABLE} in its order. */
export function causesOf<T extends readonly CauseRow[]>(table: T): CausesOf<T> {
  return table.map((row) => row.cause) as unknown as CausesOf<T>;
}

/** The detail lists of {@link CAUSE_TABLE}, keyed by cause in its order. */
export function detailsOf<T extends readonly CauseRow[]>(table: T): DetailsOf<T> {
  return Object.fromEntries(table.map((row) => [row.cause, row.details])) as DetailsOf<T>;
}

/**
 * The usual retryability of each detail of `cause` (its row's `retryable`):
 * every detail when the row gives one value for all, the listed ones when it
 * gives a value per detail, none otherwise. Empty for a cause not in the table.
 */
export function usualRetryableByDetail(cause: string): ReadonlyMap<string, boolean> {
  const row: CauseRow | undefined = CAUSE_TABLE.find((r) => r.cause === cause);
  if (!row) return new Map();
  const { retryable } = row;
  if (typeof retryable === 'boolean') return new Map(row.details.map((detail) => [detail, retryable]));
  if (typeof retryable !== 'object') return new Map();
  return new Map(Object.entries(retryable).filter((entry): entry is [string, boolean] => entry[1] !== undefined));
}

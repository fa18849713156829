/**
 * The oracle's own reading of what ended a run: its facts, and the cause,
 * detail, code and retryability of each terminal one, from the rules of
 * docs/attributes.md ("Causes and details") and docs/conventions.md ("How
 * errors are classified") and from what the player throws. Never from src/.
 */
import type { ErrorKind, StopModel, ToolClass } from './run-model.js';

/** A fact the runtime recorded, as the oracle reads it. */
export type Fact =
  | { kind: 'boundary'; remote: boolean }
  | { kind: 'text' | 'reasoning' | 'input' | 'finished' }
  | { kind: 'call'; cls: ToolClass; providerExecuted: boolean }
  | { kind: 'tool_started'; cls: ToolClass }
  | { kind: 'tool_completed' }
  | { kind: 'tool_failed'; failure: string }
  | { kind: 'tool_interrupted' }
  | { kind: 'provider_error'; error: ErrorKind | 'content_filter' | 'finish_error' }
  | { kind: 'watchdog'; phase: string }
  | { kind: 'retry_issued'; of: number }
  | { kind: 'stop'; stop: StopModel };

/** What the oracle expects of a run's ending (the fields of its verdict). */
export interface TerminalCause {
  cause?: string;
  causeDetail?: string;
  errorCode?: string;
  retryable?: boolean;
}

/** The code each tool error of the player carries (docs/conventions.md, how errors are classified). */
const TOOL_ERROR_CODES: Readonly<Record<string, { errorCode?: string }>> = {
  invalid_arguments: {},
  permission_denied: { errorCode: 'EACCES' },
  environment: { errorCode: 'ENOENT' },
  timeout: { errorCode: 'ETIMEDOUT' },
  provider: { errorCode: 'http_502' },
  unknown: {},
};

/** Retryability of a process close reason, as docs/attributes.md gives it (absent for the others). */
const EXIT_RETRYABLE: Readonly<Record<string, boolean>> = {
  stream_error: true,
  fatal_rpc_error: true,
  exit_nonzero: false,
  signal: false,
  spawn_failed: false,
  cli_not_installed: false,
};

/** Cause, detail, code and retryability of a terminal fact (docs: causes and details, How errors are classified). */
export function causeOf(fact: Fact | undefined): TerminalCause {
  switch (fact?.kind) {
    case 'provider_error': {
      if (fact.error === 'socket')
        return {
          cause: 'provider_transport_disconnect',
          causeDetail: 'socket_closed',
          errorCode: 'UND_ERR_SOCKET',
          retryable: true,
        };
      if (fact.error === 'content_filter')
        return { cause: 'provider_api_error', causeDetail: 'content_filter', retryable: false };
      if (fact.error === 'finish_error') return { cause: 'provider_api_error', causeDetail: 'unknown' };
      const api = {
        http503: ['server_overload', true],
        http429: ['rate_limit', true],
        http400: ['invalid_request', false],
        http401: ['auth', false],
      } as const;
      const [detail, retryable] = api[fact.error];
      return { cause: 'provider_api_error', causeDetail: detail, errorCode: `http_${fact.error.slice(4)}`, retryable };
    }
    case 'watchdog':
      return { cause: 'watchdog_timeout', causeDetail: fact.phase, retryable: true };
    case 'tool_failed':
      return { cause: 'tool_execution_failure', causeDetail: fact.failure, ...TOOL_ERROR_CODES[fact.failure] };
    case 'tool_interrupted':
      return { cause: 'tool_execution_interrupted' };
    case 'stop': {
      const stop = fact.stop;
      if (stop.kind === 'user_cancel') return { cause: 'user_cancel', causeDetail: stop.origin };
      if (stop.kind === 'lifecycle_close') return { cause: 'local_lifecycle_close', causeDetail: stop.lifecycle };
      // The player's setup error has no status, type or phrase: only its code is kept.
      if (stop.kind === 'setup_failure') return { cause: 'request_setup_failure', errorCode: 'model_not_found' };
      return {
        cause: 'process_exit',
        causeDetail: stop.reason,
        errorCode: 'exit_1',
        ...(Object.hasOwn(EXIT_RETRYABLE, stop.reason) ? { retryable: EXIT_RETRYABLE[stop.reason] } : {}),
      };
    }
    default:
      return { cause: 'unknown_interruption' };
  }
}

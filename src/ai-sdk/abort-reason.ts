/**
 * Why an AI SDK request was aborted. The SDK aborts one merged signal for
 * the caller's stop and for its own `timeout` watchdogs, so its spans cannot
 * tell them apart; the abort reason and who owns which signal can.
 */
import type { CancelOrigin, WatchdogPhase } from '../model/enums.js';

/** What an abort means for the run. */
export type AbortMeaning =
  | { readonly kind: 'user_cancel'; readonly origin: CancelOrigin }
  | { readonly kind: 'watchdog'; readonly phase: WatchdogPhase; readonly budgetMillis?: number };

/**
 * The AI SDK's `timeout` option: total milliseconds, or per part. `firstChunkMs`
 * and `toolMs` are AI SDK 7's (ignored by 6).
 */
export type TimeoutSetting =
  | number
  | {
      readonly totalMs?: number;
      readonly stepMs?: number;
      readonly firstChunkMs?: number;
      readonly chunkMs?: number;
      readonly toolMs?: number;
    }
  | undefined;

// The SDK's own watchdogs abort with DOMException("<Chunk|Step|First chunk> timeout of <n>ms exceeded", "TimeoutError")
// (`First chunk` is AI SDK 7's `firstChunkMs`); its total timeout is AbortSignal.timeout(), whose reason is a bare TimeoutError.
const SDK_WATCHDOG = /^(Chunk|Step|First chunk) timeout of (\d+)ms exceeded$/;

function totalMillis(timeout: TimeoutSetting): number | undefined {
  return typeof timeout === 'number' ? timeout : timeout?.totalMs;
}

/**
 * Reads an abort. `ownAborted` is true when the run's own signal (the
 * caller's stop, or `cancel()`) fired, which always wins: a stop that raced a
 * watchdog was still the user's choice. `progressSeen` tells a chunk watchdog
 * before the first output (`connect`) from one on a silent stream.
 */
export function abortMeaning(options: {
  readonly reason: unknown;
  readonly ownAborted: boolean;
  readonly ownOrigin: CancelOrigin;
  readonly progressSeen: boolean;
  readonly timeout: TimeoutSetting;
}): AbortMeaning {
  if (options.ownAborted) return { kind: 'user_cancel', origin: options.ownOrigin };
  const reason = options.reason as { readonly name?: unknown; readonly message?: unknown } | undefined;
  if (reason?.name === 'TimeoutError') {
    const match = typeof reason.message === 'string' ? SDK_WATCHDOG.exec(reason.message) : null;
    if (match?.[1] === 'Chunk') {
      return {
        kind: 'watchdog',
        phase: options.progressSeen ? 'silent_stream' : 'connect',
        budgetMillis: Number(match[2]),
      };
    }
    // Nothing arrived yet by definition: a connect stall.
    if (match?.[1] === 'First chunk') return { kind: 'watchdog', phase: 'connect', budgetMillis: Number(match[2]) };
    if (match?.[1] === 'Step') return { kind: 'watchdog', phase: 'total', budgetMillis: Number(match[2]) };
    return { kind: 'watchdog', phase: 'total', budgetMillis: totalMillis(options.timeout) };
  }
  // Aborted by a signal the run does not own and for no known reason.
  return { kind: 'user_cancel', origin: 'unknown' };
}

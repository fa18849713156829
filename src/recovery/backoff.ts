/**
 * Backoff arithmetic, pure: the delay before retry number `n`, and a wait
 * that a stop signal cuts short.
 */
import { MAX_WAIT_MILLIS } from './options.js';

/** Options of {@link backoffDelay}. */
export interface BackoffOptions {
  /** Delay before the first retry, before jitter. @default 1000 */
  readonly baseDelayMillis: number;
  /** Upper bound of any computed delay. @default 30000 */
  readonly maxDelayMillis: number;
}

/**
 * Exponential backoff with equal jitter: `base · 2^(n-1)`, capped, then a
 * uniform value in its upper half. Half the delay is kept so retries never
 * bunch up at zero; the random half spreads clients that failed together.
 * @param retry 1-based retry number
 * @param random a value in [0, 1) @default Math.random
 */
export function backoffDelay(retry: number, options: BackoffOptions, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.min(30, Math.floor(retry) - 1));
  const ceiling = Math.min(options.maxDelayMillis, options.baseDelayMillis * 2 ** exponent);
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(ceiling / 2 + (ceiling / 2) * r);
}

/**
 * Waits `millis` (at most 2³¹−1), or less when `signal` aborts. Resolves true when the full
 * wait passed and false when it was cut short (never rejects).
 */
export function waitUnlessAborted(millis: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      },
      Math.min(Math.max(0, millis), MAX_WAIT_MILLIS),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

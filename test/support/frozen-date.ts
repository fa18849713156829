/**
 * A clock that stands still until the test moves it, for code that reads `Date.now()` for its
 * hold times (the gateway) while running on real timers and real sockets.
 */
import { vi } from 'vitest';

/** The frozen clock: moved on by the test, and counting who looked at it. */
export interface FrozenDate {
  /** Moves `Date.now()` on by `ms` milliseconds (and nothing else: no timer fires for it). */
  advance(ms: number): void;
  /**
   * How many times `Date.now()` was read since the clock froze. The gateway reads it once per
   * release pass, so reads going up after {@link advance} show passes ran at the new time.
   */
  reads(): number;
}

/**
 * Fakes `Date` only (not timers), frozen at the current time: intervals such as the gateway's
 * release tick keep running for real and see exactly the time the test gives them. Undo it
 * with `vi.useRealTimers()` (in an `afterEach`).
 */
export function freezeDate(): FrozenDate {
  vi.useFakeTimers({ toFake: ['Date'] });
  const now = vi.spyOn(Date, 'now');
  return { advance: (ms) => vi.setSystemTime(Date.now() + ms), reads: () => now.mock.calls.length };
}

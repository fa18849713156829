/**
 * Which timers the code under test armed, for how long, and which it cleared: a wait checked by
 * its duration and its fate, not by how long the test took (which a busy machine stretches).
 */
import { vi } from 'vitest';

/** One timer armed through the global `setTimeout`. */
export interface ArmedTimer {
  /** The delay it was armed with, in milliseconds. */
  readonly ms: number;
  /** Whether `clearTimeout` was called with it (by the time of the call, or of `restore()` once restored). */
  cleared(): boolean;
}

/** The timers armed while watching; `restore` puts the real functions back. */
export interface WatchedTimers {
  /** Every timer armed since {@link watchTimers}, in order. */
  armed(): ArmedTimer[];
  restore(): void;
}

/**
 * Watches the global `setTimeout` and `clearTimeout` (calls pass through to the real ones, so
 * nothing runs sooner or later): each timer armed is recorded with its delay and whether it was
 * cleared. Call `restore()` when done (in a `finally`).
 */
export function watchTimers(): WatchedTimers {
  const set = vi.spyOn(globalThis, 'setTimeout');
  const clear = vi.spyOn(globalThis, 'clearTimeout');
  const record = (): ArmedTimer[] => {
    const cleared = new Set(clear.mock.calls.map(([handle]) => handle as unknown));
    return set.mock.calls.map(([, ms], i) => {
      const handle = set.mock.results[i]?.value as unknown;
      const wasCleared = cleared.has(handle);
      return { ms: Number(ms ?? 0), cleared: () => wasCleared };
    });
  };
  // Restoring a spy forgets its calls: what was recorded until then is kept.
  let restored: ArmedTimer[] | undefined;
  return {
    armed: () => restored ?? record(),
    restore: () => {
      restored = record();
      set.mockRestore();
      clear.mockRestore();
    },
  };
}

/**
 * Waiting for a condition instead of sleeping: a test that sleeps a fixed time is slow when the
 * machine is fast and flaky when it is slow; one that polls for what it means is neither.
 */

// Taken at load, before any test fakes timers or the clock.
const realSetTimeout = globalThis.setTimeout;
const realNow = performance.now.bind(performance);

/** How to wait: what for (the failure message names it), and how long at most. */
export interface WaitForOptions {
  /** What the condition means, in words: the error says "not within … ms: <what>". */
  readonly what: string;
  /** How long to poll before failing; default 5,000 ms. */
  readonly timeoutMs?: number;
  /** Pause between two checks; default 10 ms. */
  readonly intervalMs?: number;
}

/**
 * Polls `condition` until it returns true, then resolves; rejects with a message naming
 * `options.what` once `options.timeoutMs` (default 5,000 ms) has passed. Polls on real timers
 * (the global `setTimeout` and `performance.now` as they were when this module loaded), so it
 * also works while a test fakes the clock.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  { what, timeoutMs = 5_000, intervalMs = 10 }: WaitForOptions,
): Promise<void> {
  const started = realNow();
  while (!(await condition())) {
    if (realNow() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => realSetTimeout(resolve, intervalMs));
  }
}

/**
 * How loaded the gateway's process is right now: the event-loop lag of the
 * last few ticks and the resident memory. Intake reads it before it reads a
 * request body, so a saturated or memory-tight gateway answers 503 at once
 * (cheap) instead of decoding more work it cannot keep up with.
 */

/** Ticks of the lag timer. */
const TICK_MILLIS = 10;
/** Lag is the worst of this many recent ticks: one slow task is enough to count. */
const WINDOW = 10;

/** Event-loop lag and RSS, sampled on a timer that never keeps the process alive. */
export class LoadGauge {
  readonly #lags = new Float64Array(WINDOW);
  #next = 0;
  #expected = performance.now() + TICK_MILLIS;
  #timer: NodeJS.Timeout | undefined;

  start(): void {
    this.#expected = performance.now() + TICK_MILLIS;
    this.#timer = setInterval(() => {
      const now = performance.now();
      // A tick that fires late measures how long the loop was blocked.
      this.#lags[this.#next] = Math.max(0, now - this.#expected);
      this.#next = (this.#next + 1) % WINDOW;
      this.#expected = now + TICK_MILLIS;
    }, TICK_MILLIS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** The worst event-loop lag of the last ~100 ms, in milliseconds (a tick still pending counts as lag so far). */
  lagMillis(): number {
    let worst = Math.max(0, performance.now() - this.#expected);
    for (const lag of this.#lags) worst = Math.max(worst, lag);
    return worst;
  }

  /** Resident memory of the process, in bytes. */
  rssBytes(): number {
    return process.memoryUsage.rss();
  }
}

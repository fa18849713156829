/**
 * A one-line progress bar for a terminal: `[#####-----]  42% 4,200/10,000 runs`,
 * redrawn in place at most every 100 ms and erased when done. Only for a TTY:
 * the caller decides (piped output must get no control characters).
 * Written here rather than taken from cli-progress: its latest release
 * (3.12.0) is over two years old, and it would be a runtime dependency of
 * every user of the library for one line of the demo.
 */

/** Where the bar is drawn: a TTY write stream (process.stderr). */
export interface ProgressTarget {
  write(text: string): unknown;
  readonly columns?: number;
}

/** A progress bar over `total` steps. */
export class ProgressLine {
  #last = 0;
  #drawn = false;

  /**
   * @param target a terminal stream
   * @param total steps to 100 %
   * @param unit what a step is, e.g. `runs`
   * @param intervalMillis least time between redraws @default 100
   */
  constructor(
    private readonly target: ProgressTarget,
    private readonly total: number,
    private readonly unit: string,
    private readonly intervalMillis = 100,
    private readonly now: () => number = Date.now,
  ) {}

  /** Shows `done` steps done (throttled; the last step is always drawn). */
  update(done: number): void {
    const time = this.now();
    if (done < this.total && this.#drawn && time - this.#last < this.intervalMillis) return;
    this.#last = time;
    this.#drawn = true;
    const fraction = this.total > 0 ? Math.min(1, done / this.total) : 1;
    const width = Math.max(10, Math.min(30, (this.target.columns ?? 80) - 40));
    const filled = Math.round(fraction * width);
    const percent = `${Math.floor(fraction * 100)}%`.padStart(4);
    // \r returns to the line's start; ESC[K erases what a longer earlier line left.
    this.target.write(
      `\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent} ${done.toLocaleString('en-US')}/${this.total.toLocaleString('en-US')} ${this.unit}\u001b[K`,
    );
  }

  /** Erases the bar, so what follows starts on a clean line. */
  done(): void {
    if (this.#drawn) this.target.write('\r\u001b[K');
    this.#drawn = false;
  }
}

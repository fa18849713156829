/**
 * Synchronous work taken in turns, one per turn of the event loop: requests
 * whose bodies arrive together are decoded one after another with the loop
 * free in between, so timers (and the event-loop delay) wait for one body's
 * work, never for all of them.
 */

/** A FIFO of callers waiting for their turn. */
export class Turns {
  readonly #waiting: (() => void)[] = [];
  #busy = false;

  /** Resolves when it is the caller's turn; the caller calls the returned `done` (once or more) when its synchronous work is over. */
  take(): Promise<() => void> {
    return new Promise((resolve) => {
      const start = (): void => {
        this.#busy = true;
        let ended = false;
        // Idempotent: a caller may end its turn early and again in a `finally`.
        resolve(() => {
          if (ended) return;
          ended = true;
          this.#done();
        });
      };
      if (!this.#busy && this.#waiting.length === 0) start();
      else this.#waiting.push(start);
    });
  }

  #done(): void {
    this.#busy = false;
    const next = this.#waiting.shift();
    // The next turn starts in a later turn of the loop: timers and I/O run first.
    if (next) {
      this.#busy = true;
      setImmediate(() => {
        this.#busy = false;
        next();
      });
    }
  }
}

/**
 * What the gateway remembers of the runs it already judged, so a span that
 * arrives after its trace was folded is not judged again as if it were new:
 * a late span under a judged run gets no second verdict, and a late run span
 * whose parts were judged under a stand-in is judged fail-closed (its facts
 * left with the earlier fold). Bounded in count and in time.
 */

/** A bounded, expiring set of span ids. */
class ExpiringIds {
  readonly #expiry = new Map<string, number>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#expiry.size;
  }

  has(id: string): boolean {
    return this.#expiry.has(id);
  }

  add(id: string, expiresAt: number): void {
    this.#expiry.delete(id);
    this.#expiry.set(id, expiresAt);
    // Insertion order is expiry order: drop the oldest past the bound.
    while (this.#expiry.size > this.#max) this.#expiry.delete(this.#expiry.keys().next().value as string);
  }

  prune(now: number): void {
    for (const [id, expiresAt] of this.#expiry) {
      if (expiresAt > now) return;
      this.#expiry.delete(id);
    }
  }
}

/** Run span ids judged recently, and missing run span ids judged under stand-ins. */
export class ReleasedRuns {
  /** Runs judged (stand-ins included, by their missing id). */
  readonly runs: ExpiringIds;
  /** Missing run span ids judged under a stand-in. */
  readonly standIns: ExpiringIds;
  readonly #keepMillis: number;

  /**
   * @param keepMillis how long a judged run is remembered (the gateway uses its longest hold)
   * @param maxIds how many ids each set keeps at most (the oldest go first); 100,000 ids are a few MB
   */
  constructor(keepMillis: number, maxIds = 100_000) {
    this.runs = new ExpiringIds(maxIds);
    this.standIns = new ExpiringIds(maxIds);
    this.#keepMillis = keepMillis;
  }

  /** Remembers what one fold judged at `now`. */
  remember(runs: readonly string[], standIns: readonly string[], now: number): void {
    this.runs.prune(now);
    this.standIns.prune(now);
    const until = now + this.#keepMillis;
    for (const id of runs) this.runs.add(id, until);
    for (const id of standIns) this.standIns.add(id, until);
  }
}

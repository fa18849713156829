/**
 * What the gateway remembers of the runs it already judged, so a span that
 * arrives after its trace was folded is not judged again as if it were new:
 * a late span under a judged run gets no second verdict; a late run span
 * whose parts were judged under a stand-in is judged fail-closed (its facts
 * left with the earlier fold); a run whose nested run was judged before the
 * parent span came still counts that nested run's side effects. Bounded in
 * count and in time.
 */

/** What a nested run judged before its parent span came passes up to it. */
export interface NestedEffects {
  readonly sideEffects: 'read_only' | 'unsafe' | 'unknown';
  readonly evidenceTruncated: boolean;
}

const RANK = { read_only: 1, unknown: 2, unsafe: 3 } as const;

/** A bounded map of span ids whose entries expire, oldest first. */
class ExpiringMap<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#entries.size;
  }

  has(id: string): boolean {
    return this.#entries.has(id);
  }

  get(id: string): V | undefined {
    return this.#entries.get(id)?.value;
  }

  set(id: string, value: V, expiresAt: number): void {
    this.#entries.delete(id);
    this.#entries.set(id, { value, expiresAt });
    // Insertion order is expiry order: drop the oldest past the bound.
    while (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value as string);
  }

  prune(now: number): void {
    for (const [id, entry] of this.#entries) {
      if (entry.expiresAt > now) return;
      this.#entries.delete(id);
    }
  }
}

/** Run span ids judged recently, missing run span ids judged under stand-ins, and nested runs judged before their parent came. */
export class ReleasedRuns {
  /** Runs judged (stand-ins included, by their missing id). */
  readonly runs: ExpiringMap<true>;
  /** Missing run span ids judged under a stand-in. */
  readonly standIns: ExpiringMap<true>;
  /** By the missing parent span's id: what nested runs judged before it came pass up. */
  readonly nested: ExpiringMap<NestedEffects>;
  readonly #keepMillis: number;

  /**
   * @param keepMillis how long a judged run is remembered (the gateway uses its longest hold)
   * @param maxIds how many ids each memory keeps at most (the oldest go first); 100,000 ids are a few MB
   */
  constructor(keepMillis: number, maxIds = 100_000) {
    this.runs = new ExpiringMap(maxIds);
    this.standIns = new ExpiringMap(maxIds);
    this.nested = new ExpiringMap(maxIds);
    this.#keepMillis = keepMillis;
  }

  /** Remembers what one fold judged at `now`. */
  remember(
    runs: readonly string[],
    standIns: readonly string[],
    nested: ReadonlyMap<string, NestedEffects>,
    now: number,
  ): void {
    this.runs.prune(now);
    this.standIns.prune(now);
    this.nested.prune(now);
    const until = now + this.#keepMillis;
    for (const id of runs) this.runs.set(id, true, until);
    for (const id of standIns) this.standIns.set(id, true, until);
    for (const [parent, effects] of nested) {
      const known = this.nested.get(parent);
      // Several sub-agents under one span: the worst of them, and any loss.
      const worst =
        known && RANK[known.sideEffects] > RANK[effects.sideEffects] ? known.sideEffects : effects.sideEffects;
      this.nested.set(
        parent,
        { sideEffects: worst, evidenceTruncated: effects.evidenceTruncated || known?.evidenceTruncated === true },
        until,
      );
    }
  }
}

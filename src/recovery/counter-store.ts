/**
 * Where recovery keeps its counters (retries used, resumes used) so they
 * survive a restart. The interface is small on purpose: a row in the
 * runtime's own database, a Redis key or a file implements it in a few lines.
 */

/** A persistent map of counters. Methods may be synchronous or return promises. */
export interface CounterStore {
  /** The counter under `key`; undefined when it was never set. */
  get(key: string): number | undefined | Promise<number | undefined>;
  set(key: string, value: number): void | Promise<void>;
  delete(key: string): void | Promise<void>;
}

/** Options of {@link InMemoryCounterStore}. */
export interface InMemoryCounterStoreOptions {
  /** Counters kept; the oldest is dropped first beyond it. @default 10000 */
  readonly maxKeys?: number;
}

/**
 * The default store: a bounded in-process map. Counters are lost when the
 * process exits; pass a persistent {@link CounterStore} to keep budgets
 * across restarts.
 */
export class InMemoryCounterStore implements CounterStore {
  readonly #values = new Map<string, number>();
  readonly #maxKeys: number;

  constructor(options: InMemoryCounterStoreOptions = {}) {
    const maxKeys = options.maxKeys ?? 10_000;
    if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError(`maxKeys must be a positive integer, got ${maxKeys}`);
    this.#maxKeys = maxKeys;
  }

  get(key: string): number | undefined {
    return this.#values.get(key);
  }

  set(key: string, value: number): void {
    // Re-inserting moves the key to the back, so eviction drops the least recently set.
    this.#values.delete(key);
    this.#values.set(key, value);
    if (this.#values.size > this.#maxKeys) this.#values.delete(this.#values.keys().next().value!);
  }

  delete(key: string): void {
    this.#values.delete(key);
  }

  /** Counters held now. */
  get size(): number {
    return this.#values.size;
  }
}

/**
 * Where recovery keeps its counters (retries used, resumes used) so they
 * survive a restart. The interface is small on purpose: a row in the
 * runtime's own database, a Redis key or a file implements it in a few lines.
 */

/**
 * A persistent map of counters. Methods may be synchronous or return
 * promises. `increment` must be atomic when workers share the store (Redis
 * `INCR`, SQL `UPDATE … RETURNING`): two workers then never both spend the
 * last retry.
 */
export interface CounterStore {
  /** The counter under `key`; undefined when it was never set. */
  get(key: string): number | undefined | Promise<number | undefined>;
  /** Adds one to the counter under `key` (from 0 when unset) and returns the new value. */
  increment(key: string): number | Promise<number>;
  /** Forgets the counter under `key`. */
  delete(key: string): void | Promise<void>;
}

/** Options of {@link InMemoryCounterStore}. */
export interface InMemoryCounterStoreOptions {
  /** Counters kept; the least recently changed is dropped first beyond it. @default 10000 */
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

  /** @throws RangeError when `maxKeys` is not a positive integer */
  constructor(options: InMemoryCounterStoreOptions = {}) {
    const maxKeys = options.maxKeys ?? 10_000;
    if (!Number.isInteger(maxKeys) || maxKeys < 1)
      throw new RangeError(`maxKeys must be a positive integer, got ${maxKeys}`);
    this.#maxKeys = maxKeys;
  }

  /** The counter under `key`, if kept. */
  get(key: string): number | undefined {
    return this.#values.get(key);
  }

  /** Adds one under `key` and returns the new value. */
  increment(key: string): number {
    const value = (this.#values.get(key) ?? 0) + 1;
    // Re-inserting moves the key to the back, so eviction drops the least recently changed.
    this.#values.delete(key);
    this.#values.set(key, value);
    if (this.#values.size > this.#maxKeys) this.#values.delete(this.#values.keys().next().value!);
    return value;
  }

  /** Forgets the counter under `key`. */
  delete(key: string): void {
    this.#values.delete(key);
  }

  /** Counters held now. */
  get size(): number {
    return this.#values.size;
  }
}

/**
 * What each worker of a gateway holds, in memory shared by every thread (a `SharedArrayBuffer`): each worker
 * writes its own slot after every change it makes, with `Atomics`, and the intake reads them all when it admits a
 * request, without a message. A slot of a worker that exited is cleared by the intake once it has counted what the
 * worker held.
 */

/** One worker's load, as admission and `/metrics` read it. */
export interface ShardLoad {
  /** Traces held, waiting to be judged. */
  readonly traces: number;
  /** Spans held. */
  readonly spans: number;
  /** Estimated bytes of the spans held (`decoded-size.ts`). */
  readonly storeBytes: number;
  /** Spans waiting to go upstream. */
  readonly backlogSpans: number;
  /** Bytes of the encoded requests waiting upstream. */
  readonly backlogBytes: number;
  /** Estimated bytes of the traces kept for a correction. */
  readonly keptBytes: number;
  /** Upstream attempts failed in a row. */
  readonly failures: number;
}

const FIELDS = ['traces', 'spans', 'storeBytes', 'backlogSpans', 'backlogBytes', 'keptBytes', 'failures'] as const;
const SLOT = FIELDS.length;

/** The empty load. */
export const NO_LOAD: ShardLoad = {
  traces: 0,
  spans: 0,
  storeBytes: 0,
  backlogSpans: 0,
  backlogBytes: 0,
  keptBytes: 0,
  failures: 0,
};

/** The loads of `shards` workers over one `SharedArrayBuffer`. */
export class ShardCounters {
  readonly #cells: BigInt64Array;

  /** Over `buffer` (from {@link ShardCounters.create} in another thread), or a new buffer for `shards` workers. */
  constructor(
    readonly shards: number,
    readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(shards * SLOT * BigInt64Array.BYTES_PER_ELEMENT),
  ) {
    this.#cells = new BigInt64Array(buffer);
  }

  /** Writes worker `shard`'s load. */
  publish(shard: number, load: ShardLoad): void {
    const base = shard * SLOT;
    FIELDS.forEach((field, i) => Atomics.store(this.#cells, base + i, BigInt(Math.round(load[field]))));
  }

  /** Worker `shard`'s load as last written. */
  read(shard: number): ShardLoad {
    const base = shard * SLOT;
    const load: Record<string, number> = {};
    FIELDS.forEach((field, i) => (load[field] = Number(Atomics.load(this.#cells, base + i))));
    return load as unknown as ShardLoad;
  }

  /** Empties worker `shard`'s slot (it exited, and what it held was counted). */
  clear(shard: number): void {
    this.publish(shard, NO_LOAD);
  }

  /** Every worker's load summed; `failures` is the most of any worker (each retries its own requests). */
  total(): ShardLoad {
    const sum = { ...NO_LOAD };
    for (let shard = 0; shard < this.shards; shard += 1) {
      const load = this.read(shard);
      for (const field of FIELDS)
        if (field === 'failures') sum.failures = Math.max(sum.failures, load.failures);
        else sum[field] += load[field];
    }
    return sum;
  }
}

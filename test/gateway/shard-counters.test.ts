/**
 * The workers' loads in shared memory: what one thread writes another reads, over the same SharedArrayBuffer;
 * totals add the loads up (upstream failures are the most of any worker); a cleared slot adds nothing.
 */
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { NO_LOAD, ShardCounters } from '../../src/gateway/shard-counters.js';

const load = (n: number) => ({
  traces: n,
  spans: 10 * n,
  storeBytes: 2 ** 33 + n,
  backlogSpans: n + 1,
  backlogBytes: 100 * n,
  keptBytes: n,
  failures: n,
});

describe('ShardCounters', () => {
  it('reads back what each worker wrote, bytes past 2^32 included', () => {
    const counters = new ShardCounters(3);
    counters.publish(1, load(2));
    expect(counters.read(1)).toEqual(load(2));
    expect(counters.read(0)).toEqual(NO_LOAD);
  });

  it('sums the loads, and takes the most upstream failures of any worker', () => {
    const counters = new ShardCounters(3);
    [1, 2, 3].forEach((n, shard) => counters.publish(shard, load(n)));
    expect(counters.total()).toEqual({
      traces: 6,
      spans: 60,
      storeBytes: 3 * 2 ** 33 + 6,
      backlogSpans: 9,
      backlogBytes: 600,
      keptBytes: 6,
      failures: 3,
    });
    counters.clear(2);
    expect(counters.total()).toMatchObject({ traces: 3, failures: 2 });
  });

  it('shares the loads with another thread over the same buffer', async () => {
    const counters = new ShardCounters(2);
    // A worker writes slot 1 through its own view of the buffer, as a gateway's worker does.
    const worker = new Worker(
      `const { workerData } = require('node:worker_threads');
       const cells = new BigInt64Array(workerData);
       Atomics.store(cells, 7, 42n);`,
      { eval: true, workerData: counters.buffer },
    );
    await new Promise((resolve) => worker.once('exit', resolve));
    expect(counters.read(1).traces).toBe(42);
  });
});

/**
 * What the intake and its workers agree on besides the messages: each worker's heap limit follows its share of
 * limits.maxHeldBytes, and its code is the build beside the intake's module (from dist/ under vitest).
 */
import { describe, expect, it } from 'vitest';
import { workerEntry, workerHeapMib } from '../../src/gateway/shard-protocol.js';

describe('workerHeapMib', () => {
  const MIB = 1024 * 1024;
  it.each([
    [256 * MIB, 524_288, 1, 512 + 192 + 64],
    [256 * MIB, 524_288, 4, 128 + 192 + 64],
    [256 * MIB, 1_024, 8, 64 + 1 + 64],
    [1, 1, 8, 65],
  ])(
    'gives a worker of %i held bytes and %i request items over %i workers %i MiB of old generation',
    (maxHeldBytes, maxRequestItems, workers, mib) => {
      expect(workerHeapMib({ maxHeldBytes, maxRequestItems }, workers)).toBe(mib);
    },
  );
});

describe('workerEntry', () => {
  it.each([
    ['file:///app/dist/gateway/shard-pool.js', 'file:///app/dist/gateway/shard-worker.js'],
    ['file:///repo/src/gateway/shard-pool.ts', 'file:///repo/dist/gateway/shard-worker.js'],
  ])('runs the worker of %s from %s', (from, entry) => {
    expect(workerEntry(from).href).toBe(entry);
  });
});

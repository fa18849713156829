/**
 * InMemoryCounterStore's promises (src/recovery/counter-store.ts): counters
 * start from 0, are forgotten on delete, and past `maxKeys` the least
 * recently changed one is dropped first; `maxKeys` is checked.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryCounterStore } from '../../src/recovery/counter-store.js';

describe('InMemoryCounterStore', () => {
  it('counts from 0 and forgets on delete', () => {
    const store = new InMemoryCounterStore();
    expect(store.get('a')).toBeUndefined();
    expect([store.increment('a'), store.increment('a'), store.get('a')]).toEqual([1, 2, 2]);
    store.delete('a');
    expect([store.get('a'), store.size]).toEqual([undefined, 0]);
  });

  it('drops the least recently changed counter past maxKeys', () => {
    const store = new InMemoryCounterStore({ maxKeys: 2 });
    store.increment('a');
    store.increment('b');
    store.increment('a');
    store.increment('c');
    expect([store.get('a'), store.get('b'), store.get('c'), store.size]).toEqual([2, undefined, 1, 2]);
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects maxKeys %d', (maxKeys) => {
    expect(() => new InMemoryCounterStore({ maxKeys })).toThrow(
      new RangeError(`maxKeys must be a positive integer, got ${maxKeys}`),
    );
  });
});

/**
 * The acknowledged requests of a gateway with workers: a request's stored record is released only once every
 * worker that got part of it delivered that part; a part sent again is awaited until its worker says its size; a
 * worker that exits gives back the parts it had not delivered, to read again from the queue, or, without a
 * record, as spans lost.
 */
import { describe, expect, it } from 'vitest';
import { HeldRequests } from '../../src/gateway/held-requests.js';
import type { SpillRecord } from '../../src/gateway/spill-log.js';

/** A stored record that counts its releases. */
function record(): SpillRecord & { released: boolean } {
  const fake = {
    pending: 1,
    released: false,
    release(spans = 1) {
      fake.pending -= spans;
      if (fake.pending <= 0) fake.released = true;
    },
  };
  return fake as unknown as SpillRecord & { released: boolean };
}

describe('HeldRequests', () => {
  it('releases a record only once every worker delivered its part', () => {
    const held = new HeldRequests();
    const stored = record();
    held.add(1, 'protobuf', stored, [2, 0, 3]);
    held.released(0, 1, 2);
    expect([stored.released, held.size]).toEqual([false, 1]);
    held.released(2, 1, 1);
    held.released(2, 1, 2);
    expect([stored.released, held.size]).toEqual([true, 0]);
  });

  it('settles a request with no usable span at once', () => {
    const held = new HeldRequests();
    const stored = record();
    held.add(1, 'json', stored, [0, 0]);
    expect([stored.released, held.size]).toEqual([true, 0]);
  });

  it('waits for the size of a part sent again before it can settle', () => {
    const held = new HeldRequests();
    const stored = record();
    held.add(1, 'json', stored, [undefined, 0]);
    expect(held.size).toBe(1);
    held.sized(0, 1, 2);
    held.released(0, 1, 2);
    expect(stored.released).toBe(true);
  });

  it.each([
    ['with a record: to read back and send again', true, 0],
    ['without one: lost, its spans counted', false, 3],
  ])('gives back what a worker that exited had not delivered, %s', (_name, stored, lost) => {
    const held = new HeldRequests();
    const first = stored ? record() : undefined;
    held.add(1, 'json', first, [3, 1]);
    held.add(2, 'json', stored ? record() : undefined, [0, 1]);
    held.released(0, 1, 0);
    const exited = held.exited(0);
    expect(exited.lost).toBe(lost);
    expect(exited.again.map(({ request }) => request)).toEqual(stored ? [1] : []);
    if (stored) {
      // Sent again: its size is awaited, then its delivery.
      expect(held.get(1)?.given).toEqual([undefined, 1]);
      held.sized(0, 1, 3);
      held.released(0, 1, 3);
    }
    held.released(1, 1, 1);
    held.released(1, 2, 1);
    expect(held.size).toBe(0);
    if (first) expect(first.released).toBe(true);
  });
});

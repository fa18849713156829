/**
 * Turns' promises (src/gateway/turns.ts): callers get their turn one at a
 * time, first come first served, the next one only on a later turn of the
 * event loop, and calling `done` twice ends a turn once.
 */
import { describe, expect, it } from 'vitest';
import { Turns } from '../../src/gateway/turns.js';

describe('Turns', () => {
  it('gives the first caller its turn at once, and the others in order, each after the previous is done', async () => {
    const turns = new Turns();
    const order: string[] = [];
    const first = await turns.take();
    const second = turns.take().then((done) => {
      order.push('second');
      return done;
    });
    const third = turns.take().then((done) => {
      order.push('third');
      return done;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]);
    first();
    first();
    (await second)();
    (await third)();
    expect(order).toEqual(['second', 'third']);
  });

  it('hands the next turn over on a later turn of the event loop, not synchronously', async () => {
    const turns = new Turns();
    const done = await turns.take();
    let started = false;
    const next = turns.take().then((d) => {
      started = true;
      return d;
    });
    done();
    await Promise.resolve();
    expect(started).toBe(false);
    (await next)();
    expect(started).toBe(true);
  });

  it('is free again once every turn is done', async () => {
    const turns = new Turns();
    (await turns.take())();
    const again = await Promise.race([
      turns.take(),
      new Promise((resolve) => setTimeout(() => resolve('blocked'), 50)),
    ]);
    expect(typeof again).toBe('function');
  });
});

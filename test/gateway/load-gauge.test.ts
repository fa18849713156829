/**
 * LoadGauge's promises (src/gateway/load-gauge.ts): event-loop lag is the
 * worst of the last ticks, a loop blocked now counts as lag so far, and the
 * resident memory is the process's.
 */
import { describe, expect, it } from 'vitest';
import { LoadGauge } from '../../src/gateway/load-gauge.js';

/** Keeps the event loop busy for `millis`. */
function block(millis: number): void {
  const until = performance.now() + millis;
  while (performance.now() < until) {
    // busy: the lag being measured
  }
}

describe('LoadGauge', () => {
  it('reads a blocked event loop as lag, and keeps the worst of the recent ticks', async () => {
    const gauge = new LoadGauge();
    gauge.start();
    try {
      block(80);
      // A tick still pending counts as lag so far.
      expect(gauge.lagMillis()).toBeGreaterThanOrEqual(60);
      await new Promise((resolve) => setTimeout(resolve, 15));
      // The blocked tick is now one of the window's.
      expect(gauge.lagMillis()).toBeGreaterThanOrEqual(60);
    } finally {
      gauge.stop();
    }
  });

  it('reads the resident memory of the process', () => {
    const rss = new LoadGauge().rssBytes();
    expect(rss).toBeGreaterThan(0);
    expect(Math.abs(rss - process.memoryUsage.rss())).toBeLessThan(64 * 1024 * 1024);
  });
});

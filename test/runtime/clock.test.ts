/**
 * The recorder's clock: epoch milliseconds to OpenTelemetry `HrTime`, and a wall-anchored
 * clock advanced by the monotonic one.
 */
import type { HrTime } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { anchoredClock, toHrTime } from '../../src/runtime/clock.js';

describe('toHrTime', () => {
  it.each<[number, HrTime]>([
    [0, [0, 0]],
    [1, [0, 1_000_000]],
    [999, [0, 999_000_000]],
    [1000, [1, 0]],
    [1_700_000_000_123, [1_700_000_000, 123_000_000]],
    [1500.5, [1, 500_500_000]],
    [2000.000_25, [2, 250]],
  ])('%d ms is %j', (millis, expected) => {
    expect(toHrTime(millis)).toEqual(expected);
  });

  it('keeps sub-millisecond precision of a present-day epoch time within a microsecond', () => {
    const [seconds, nanos] = toHrTime(1_700_000_000_123.456);
    expect(seconds).toBe(1_700_000_000);
    expect(Math.abs(nanos - 123_456_000)).toBeLessThan(1_000);
  });
});

describe('anchoredClock', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('starts at the wall clock and advances by the monotonic clock, not the wall clock', () => {
    const now = vi.spyOn(Date, 'now').mockReturnValue(1_000_000);
    const perf = vi.spyOn(performance, 'now').mockReturnValue(200);
    const clock = anchoredClock();
    expect(clock()).toBe(1_000_000);
    perf.mockReturnValue(250.5);
    now.mockReturnValue(5_000_000); // the wall clock jumps; the anchored clock does not
    expect(clock()).toBe(1_000_050.5);
  });

  it('each clock keeps its own anchor', () => {
    vi.spyOn(performance, 'now').mockReturnValue(0);
    const now = vi.spyOn(Date, 'now').mockReturnValue(10);
    const first = anchoredClock();
    now.mockReturnValue(20);
    const second = anchoredClock();
    expect([first(), second()]).toEqual([10, 20]);
  });
});

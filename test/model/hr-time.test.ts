/** hrTimeToMillis's promise (src/model/hr-time.ts): an OpenTelemetry [seconds, nanoseconds] pair in ms, NaN for anything else. */
import { describe, expect, it } from 'vitest';
import { hrTimeToMillis } from '../../src/model/hr-time.js';

describe('hrTimeToMillis', () => {
  it.each([
    [[1_700_000_000, 500_000_000], 1_700_000_000_500],
    [[0, 1_000], 0.001],
    [[2, 0], 2_000],
  ])('%j → %d ms', (time, millis) => {
    expect(hrTimeToMillis(time)).toBe(millis);
  });

  it.each([[undefined], [1_700_000_000], [['1', 0]], [[1]], [{ 0: 1, 1: 2 }]])('%j → NaN', (time) => {
    expect(hrTimeToMillis(time)).toBeNaN();
  });
});

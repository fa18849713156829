/**
 * Backoff's promises (src/recovery/backoff.ts): exponential delays with equal
 * jitter, capped, and a wait that a stop signal cuts short, never rejecting.
 */
import { describe, expect, it } from 'vitest';
import { backoffDelay, waitUnlessAborted } from '../../src/recovery/backoff.js';

const OPTIONS = { baseDelayMillis: 1_000, maxDelayMillis: 30_000 };

describe('backoffDelay', () => {
  it.each([
    ['retry 1, no jitter: half the base', 1, 0, 500],
    ['retry 1, most jitter: the base', 1, 0.999_999, 1_000],
    ['retry 3: four times the base, halved', 3, 0, 2_000],
    ['retry 10: capped at the maximum, halved', 10, 0, 15_000],
    ['retry 0 counts as the first', 0, 0.5, 750],
    ['a fractional retry counts by its whole part', 2.9, 0, 1_000],
    ['a random value out of range is clamped', 1, 7, 1_000],
    ['a huge retry number stays capped', 1e9, 1, 30_000],
  ])('%s', (_case, retry, random, delay) => {
    expect(backoffDelay(retry, OPTIONS, () => random)).toBe(delay);
  });
});

describe('waitUnlessAborted', () => {
  it.each([
    ['resolves true when the whole wait passed', undefined, true],
    ['resolves false at once for a signal already aborted', AbortSignal.abort(), false],
  ])('%s', async (_case, signal, passed) => {
    await expect(waitUnlessAborted(5, signal)).resolves.toBe(passed);
  });

  it('resolves false when the signal aborts during the wait', async () => {
    const controller = new AbortController();
    const waited = waitUnlessAborted(60_000, controller.signal);
    controller.abort();
    await expect(waited).resolves.toBe(false);
  });

  it('treats a negative wait as none', async () => {
    await expect(waitUnlessAborted(-10)).resolves.toBe(true);
  });
});

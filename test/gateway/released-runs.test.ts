/**
 * ReleasedRuns (src/gateway/released-runs.ts): the run ids, stand-in ids and
 * nested runs' effects the gateway already judged, each remembered for
 * `keepMillis`, bounded in count (oldest first), nested effects merged to the
 * worst side effects and any truncation.
 */
import { describe, expect, it } from 'vitest';
import type { NestedEffects } from '../../src/gateway/released-runs.js';
import { ReleasedRuns } from '../../src/gateway/released-runs.js';

const NONE = new Map<string, NestedEffects>();
const effects = (sideEffects: NestedEffects['sideEffects'], evidenceTruncated = false): NestedEffects => ({
  sideEffects,
  evidenceTruncated,
});

describe('ReleasedRuns', () => {
  it('remembers runs and stand-ins separately', () => {
    const released = new ReleasedRuns(1_000);
    released.remember(['r1', 'r2'], ['s1'], NONE, 0);
    expect([released.runs.has('r1'), released.runs.has('r2'), released.runs.has('s1')]).toEqual([true, true, false]);
    expect([released.standIns.has('s1'), released.standIns.has('r1')]).toEqual([true, false]);
    expect([released.runs.size, released.standIns.size, released.nested.size]).toEqual([2, 1, 0]);
  });

  it('forgets what expired by the next remember, keeping what has not', () => {
    const released = new ReleasedRuns(1_000);
    released.remember(['old'], ['old-s'], new Map([['p', effects('unsafe')]]), 0);
    released.remember(['mid'], [], NONE, 500);
    released.remember(['new'], [], NONE, 999);
    expect(released.runs.has('old')).toBe(true);
    released.remember([], [], NONE, 1_000);
    expect([released.runs.has('old'), released.runs.has('mid'), released.runs.has('new')]).toEqual([false, true, true]);
    expect([released.standIns.size, released.nested.size]).toEqual([0, 0]);
  });

  it('keeps at most maxIds in each memory, dropping the oldest', () => {
    const released = new ReleasedRuns(1_000, 2);
    released.remember(['a', 'b', 'c'], ['x', 'y', 'z'], NONE, 0);
    expect(['a', 'b', 'c'].map((id) => released.runs.has(id))).toEqual([false, true, true]);
    expect(['x', 'y', 'z'].map((id) => released.standIns.has(id))).toEqual([false, true, true]);
  });

  it('a run remembered again moves to the newest place and gets a new deadline', () => {
    const released = new ReleasedRuns(1_000, 2);
    released.remember(['a', 'b'], [], NONE, 0);
    released.remember(['a'], [], NONE, 600);
    released.remember(['c'], [], NONE, 700);
    expect(['a', 'b', 'c'].map((id) => released.runs.has(id))).toEqual([true, false, true]);
    released.remember([], [], NONE, 1_500);
    expect(released.runs.has('a')).toBe(true);
    released.remember([], [], NONE, 1_600);
    expect(released.runs.has('a')).toBe(false);
  });

  it.each([
    ['read_only', 'unsafe', 'unsafe'],
    ['unsafe', 'read_only', 'unsafe'],
    ['read_only', 'unknown', 'unknown'],
    ['unknown', 'read_only', 'unknown'],
    ['unknown', 'unsafe', 'unsafe'],
    ['read_only', 'read_only', 'read_only'],
  ] as const)('nested effects %s then %s under one parent pass up %s', (first, second, worst) => {
    const released = new ReleasedRuns(1_000);
    released.remember([], [], new Map([['parent', effects(first)]]), 0);
    released.remember([], [], new Map([['parent', effects(second)]]), 1);
    expect(released.nested.get('parent')).toEqual(effects(worst));
  });

  it.each([
    [true, false, true],
    [false, true, true],
    [false, false, false],
  ])('evidence truncated %s then %s is %s', (first, second, merged) => {
    const released = new ReleasedRuns(1_000);
    released.remember([], [], new Map([['p', effects('read_only', first)]]), 0);
    released.remember([], [], new Map([['p', effects('read_only', second)]]), 1);
    expect(released.nested.get('p')?.evidenceTruncated).toBe(merged);
  });

  it('knows nothing of a parent never remembered', () => {
    expect(new ReleasedRuns(1_000).nested.get('p')).toBeUndefined();
  });
});

/**
 * snapshotOf's promise (src/recovery/snapshot.ts): an in-process run's own
 * snapshot, or, for a run judged from exported spans, one built from its
 * verdict and attempts: turns, durations and the cause, never content.
 */
import { describe, expect, it } from 'vitest';
import type { Incident } from '../../src/model/incident.js';
import type { AttemptHistoryEntry, RecoverableRun, RunSnapshot } from '../../src/model/recovery.js';
import { snapshotOf } from '../../src/recovery/snapshot.js';
import { createTask } from '../../src/recovery/task.js';

const FAILED: Incident = {
  outcome: 'failed',
  cause: 'provider_transport_disconnect',
  causeDetail: 'connection_reset',
  phase: 'text_generation',
  sideEffects: 'none',
  factsComplete: true,
  missingFacts: [],
  attempts: 3,
  recoveredAttempts: 1,
};
const verdict = { number: 1 } as AttemptHistoryEntry['verdict'];

describe('snapshotOf', () => {
  it("returns an in-process run's own snapshot", () => {
    const own = { turns: 9 } as RunSnapshot;
    const run = { snapshot: () => own } as unknown as RecoverableRun;
    expect(snapshotOf({ task: createTask('t'), incident: FAILED, attempts: [], run })).toBe(own);
  });

  it('builds one from the verdict and attempts of a run judged from its spans', () => {
    const attempts: AttemptHistoryEntry[] = [
      { number: 1, startMillis: 100, endMillis: 150, retried: true, verdict },
      { number: 2, startMillis: 200, endMillis: 260, retried: false },
      { number: 3, startMillis: 300, retried: false },
    ];
    expect(snapshotOf({ task: createTask('t'), incident: FAILED, attempts })).toEqual({
      turns: 1,
      attempts: 3,
      recoveredAttempts: 1,
      durationMillis: 200,
      attemptDurationsMillis: [50, 60],
      outcome: 'failed',
      cause: 'provider_transport_disconnect',
      causeDetail: 'connection_reset',
      phase: 'text_generation',
    });
  });

  it('a success with no attempts: zero duration and no cause keys', () => {
    const success: Incident = {
      ...FAILED,
      outcome: 'success',
      cause: undefined,
      causeDetail: undefined,
      phase: undefined,
    };
    expect(snapshotOf({ task: createTask('t'), incident: success, attempts: [] })).toEqual({
      turns: 0,
      attempts: 3,
      recoveredAttempts: 1,
      durationMillis: 0,
      attemptDurationsMillis: [],
      outcome: 'success',
    });
  });

  it('never counts a negative attempt duration', () => {
    const attempts: AttemptHistoryEntry[] = [{ number: 1, startMillis: 100, endMillis: 90, retried: false }];
    expect(snapshotOf({ task: createTask('t'), incident: FAILED, attempts }).attemptDurationsMillis).toEqual([0]);
  });
});

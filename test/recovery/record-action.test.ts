/**
 * recorded's promise (src/recovery/record-action.ts): a strategy's action is
 * recorded on an in-process run with the fields of its kind, `none` is never
 * recorded, and the action is returned as it was.
 */
import { describe, expect, it } from 'vitest';
import type { Incident } from '../../src/model/incident.js';
import type { RecoverableRun, RunSnapshot } from '../../src/model/recovery.js';
import { recorded } from '../../src/recovery/record-action.js';
import type { RecoveryAction } from '../../src/recovery/strategy.js';
import { createTask } from '../../src/recovery/task.js';

const task = { ...createTask('t', 'ASSIGNED'), retryCount: 2 };
const incident = { outcome: 'failed' } as Incident;
const snapshot = { turns: 1 } as RunSnapshot;
const base = { reason: 'auto_retry_allowed', strategy: 'safeRetry', task } as const;

describe('recorded', () => {
  it.each([
    [
      'a retry, with its delay',
      { ...base, kind: 'retry', attempt: 1, delayMillis: 500 },
      { action: 'retry', reason: 'auto_retry_allowed', strategy: 'safeRetry', taskRetryCount: 2, delayMillis: 500 },
    ],
    [
      'a resume, with its number',
      { ...base, kind: 'resume', checkpoint: { id: 'c', data: {} }, resumeAttempt: 2 },
      { action: 'resume', reason: 'auto_retry_allowed', strategy: 'safeRetry', taskRetryCount: 2, resumeAttempt: 2 },
    ],
    [
      'a reassignment, with its snapshot',
      { ...base, kind: 'reassign', snapshot, canReassign: true },
      { action: 'reassign', reason: 'auto_retry_allowed', strategy: 'safeRetry', taskRetryCount: 2, snapshot },
    ],
    [
      'a failure, with its snapshot',
      { ...base, kind: 'fail', snapshot, canReassign: false },
      { action: 'fail', reason: 'auto_retry_allowed', strategy: 'safeRetry', taskRetryCount: 2, snapshot },
    ],
    [
      'a deferral, with no more',
      { ...base, kind: 'ask_user' },
      { action: 'ask_user', reason: 'auto_retry_allowed', strategy: 'safeRetry', taskRetryCount: 2 },
    ],
  ] as [string, RecoveryAction, unknown][])('records %s on the run', (_case, action, record) => {
    const records: unknown[] = [];
    const run = { recoveryAction: (r: unknown) => records.push(r) } as unknown as RecoverableRun;
    expect(recorded({ task, incident, attempts: [], run }, action)).toBe(action);
    expect(records).toEqual([record]);
  });

  it('never records none, and records nothing without a run', () => {
    const records: unknown[] = [];
    const run = { recoveryAction: (r: unknown) => records.push(r) } as unknown as RecoverableRun;
    const none: RecoveryAction = { ...base, kind: 'none' };
    expect(recorded({ task, incident, attempts: [], run }, none)).toBe(none);
    const retry: RecoveryAction = { ...base, kind: 'retry', attempt: 1, delayMillis: 0 };
    expect(recorded({ task, incident, attempts: [] }, retry)).toBe(retry);
    expect(records).toEqual([]);
  });
});

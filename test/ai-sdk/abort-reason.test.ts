/**
 * Why an AI SDK call was aborted, from the reason the SDK aborts with and
 * whether the run's own signal fired.
 */
import { describe, expect, it } from 'vitest';
import { abortMeaning } from '../../src/ai-sdk/index.js';

const timeoutError = (message: string) => new DOMException(message, 'TimeoutError');

describe('abortMeaning', () => {
  const rows = [
    {
      name: "the run's own stop is a user cancel whatever the reason",
      reason: timeoutError('Chunk timeout of 50ms exceeded'),
      ownAborted: true,
      progressSeen: false,
      want: { kind: 'user_cancel', origin: 'user_stop' },
    },
    {
      name: 'a chunk timeout before any output is a connect watchdog',
      reason: timeoutError('Chunk timeout of 50ms exceeded'),
      ownAborted: false,
      progressSeen: false,
      want: { kind: 'watchdog', phase: 'connect', budgetMillis: 50 },
    },
    {
      name: 'a chunk timeout after output is a silent-stream watchdog',
      reason: timeoutError('Chunk timeout of 50ms exceeded'),
      ownAborted: false,
      progressSeen: true,
      want: { kind: 'watchdog', phase: 'silent_stream', budgetMillis: 50 },
    },
    {
      name: "AI SDK 7's first-chunk timeout is a connect watchdog",
      reason: timeoutError('First chunk timeout of 150ms exceeded'),
      ownAborted: false,
      progressSeen: false,
      want: { kind: 'watchdog', phase: 'connect', budgetMillis: 150 },
    },
    {
      name: 'a step timeout is a total watchdog',
      reason: timeoutError('Step timeout of 900ms exceeded'),
      ownAborted: false,
      progressSeen: true,
      want: { kind: 'watchdog', phase: 'total', budgetMillis: 900 },
    },
    {
      name: "AbortSignal.timeout's reason is the total timeout",
      reason: timeoutError('The operation was aborted due to timeout'),
      ownAborted: false,
      progressSeen: false,
      want: { kind: 'watchdog', phase: 'total', budgetMillis: 2000 },
    },
    {
      name: 'an abort from a signal the run does not own is a cancel of unknown origin',
      reason: new DOMException('aborted', 'AbortError'),
      ownAborted: false,
      progressSeen: false,
      want: { kind: 'user_cancel', origin: 'unknown' },
    },
    {
      name: 'a reason that is not an error at all is a cancel of unknown origin',
      reason: 'stop',
      ownAborted: false,
      progressSeen: false,
      want: { kind: 'user_cancel', origin: 'unknown' },
    },
  ];
  it.each(rows)('$name', ({ reason, ownAborted, progressSeen, want }) => {
    expect(
      abortMeaning({ reason, ownAborted, ownOrigin: 'user_stop', progressSeen, timeout: { totalMs: 2000 } }),
    ).toEqual(want);
  });
});

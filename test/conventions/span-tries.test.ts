/**
 * earlierTriesOf, lastTryEvents and statedTriesOf: the tries one attempt
 * span shows by its exception events (duplicates within a millisecond counted
 * once, events outside the span ignored), the events of its last try, and
 * the number of tries an AI_RetryError states.
 */
import { describe, expect, it } from 'vitest';
import type { EventView, SpanView } from '../../src/conventions/span-view.js';
import { earlierTriesOf, lastTryEvents, statedTriesOf } from '../../src/conventions/span-tries.js';

const exception = (timeMillis: number, type = 'Error', message = 'read ECONNRESET'): EventView => ({
  name: 'exception',
  timeMillis,
  attributes: { 'exception.type': type, 'exception.message': message },
});
const view = (events: EventView[], fields: Partial<SpanView> = {}): SpanView => ({
  spanId: 's',
  name: 'chat',
  startMillis: 100,
  endMillis: 500,
  attributes: {},
  events,
  links: [],
  statusCode: 0,
  ...fields,
});
const RESET = { kind: 'transport', detail: 'connection_reset', code: 'ECONNRESET', retryable: true };

describe('earlierTriesOf', () => {
  const events = [exception(300), exception(200), { name: 'other', timeMillis: 250 }];

  it.each([
    [
      'finished: every exception before the end',
      'finished' as const,
      [
        [100, 200],
        [200, 300],
      ],
    ],
    [
      'open: every exception so far',
      'open' as const,
      [
        [100, 200],
        [200, 300],
      ],
    ],
    ['ended otherwise: the last exception is its own', 'ended' as const, [[100, 200]]],
  ])('%s', (_what, last, expected) => {
    const tries = earlierTriesOf(view(events), last);
    expect(tries.map((t) => [t.startMillis, t.failedMillis])).toEqual(expected);
    expect(tries.every((t) => JSON.stringify(t.error) === JSON.stringify(RESET))).toBe(true);
  });

  it('leaves an exception at the very end of a finished span to its end', () => {
    expect(earlierTriesOf(view([exception(200), exception(500)]), 'finished').map((t) => t.failedMillis)).toEqual([
      200,
    ]);
  });

  it('counts the same error recorded twice within a millisecond once, a different one apart', () => {
    const tries = earlierTriesOf(
      view([exception(200), exception(200.5), exception(200.7, 'Error', 'other'), exception(260)]),
      'open',
    );
    expect(tries.map((t) => t.failedMillis)).toEqual([200, 200.7, 260]);
  });

  it('ignores exceptions before the start, after the end, or at no finite time', () => {
    expect(
      earlierTriesOf(view([exception(50), exception(600), exception(Number.NaN), exception(150)]), 'open').map(
        (t) => t.failedMillis,
      ),
    ).toEqual([150]);
  });

  it('classifies each try by its own exception', () => {
    const [first] = earlierTriesOf(view([exception(200, 'AI_APICallError', 'bad')]), 'open');
    expect(first!.error).toEqual({ kind: 'api', detail: 'unknown', code: undefined, retryable: undefined });
  });

  it('keeps at most the last 64 tries', () => {
    const many = Array.from({ length: 70 }, (_, i) => exception(101 + i * 2));
    const tries = earlierTriesOf(view(many), 'open');
    expect(tries).toHaveLength(64);
    expect(tries[0]!.failedMillis).toBe(101 + 6 * 2);
  });

  it('finds no tries in a span without exceptions', () => {
    expect(earlierTriesOf(view([]), 'ended')).toEqual([]);
  });
});

describe('lastTryEvents', () => {
  it('keeps the non-exception events and the exceptions after the last earlier try', () => {
    const other = { name: 'gen_ai.choice', timeMillis: 150 };
    const events = [exception(200), other, exception(300)];
    const earlier = earlierTriesOf(view(events), 'ended');
    expect(lastTryEvents(view(events), earlier)).toEqual([other, events[2]]);
  });

  it('keeps every event without earlier tries', () => {
    const events = [exception(200)];
    expect(lastTryEvents(view(events), [])).toBe(events);
  });
});

describe('statedTriesOf', () => {
  const failed = (events: EventView[], statusMessage?: string) => view(events, { statusCode: 2, statusMessage });

  it.each([
    [
      'an AI_RetryError message',
      failed([exception(400, 'AI_RetryError', 'Failed after 3 attempts. Last error: x')]),
      3,
    ],
    [
      'a non-retryable RetryError',
      failed([exception(400, 'RetryError', 'Failed after 2 attempts with non-retryable error: x')]),
      2,
    ],
    ['the status message', failed([], 'Failed after 5 attempts. Last error: overloaded'), 5],
    ['more than 64 tries, capped', failed([], 'Failed after 999 attempts. Last error'), 64],
    ['0 attempts', failed([], 'Failed after 0 attempts.'), undefined],
    ['the text not at the start', failed([], 'Error: Failed after 3 attempts'), undefined],
    ['another exception type', failed([exception(400, 'Error', 'Failed after 3 attempts.')]), undefined],
    ['a span not failed', view([exception(400, 'AI_RetryError', 'Failed after 3 attempts.')]), undefined],
  ])('reads %s', (_what, span, expected) => {
    expect(statedTriesOf(span)).toBe(expected);
  });
});

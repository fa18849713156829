/**
 * DropLog (src/gateway/drop-log.ts): one structured diag error line per drop,
 * at most ten a ten-second window, trace ids deduplicated and capped at
 * twenty, and the first line after a full window saying how many were left out.
 */
import { diag, DiagLogLevel } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DropRecord } from '../../src/gateway/drop-log.js';
import { DropLog } from '../../src/gateway/drop-log.js';

const PREFIX = 'agent-incidents gateway: ';
let lines: string[] = [];
beforeEach(() => {
  lines = [];
  const ignore = () => undefined;
  diag.setLogger(
    { error: (m: string) => lines.push(m), warn: ignore, info: ignore, debug: ignore, verbose: ignore },
    { logLevel: DiagLogLevel.ERROR, suppressOverrideMessage: true },
  );
});
afterEach(() => {
  diag.disable();
});

/** The JSON objects written so far. */
const written = () => lines.map((line) => JSON.parse(line.slice(PREFIX.length)) as Record<string, unknown>);

const drop = (fields: Partial<DropRecord> = {}): DropRecord => ({
  reason: 'upstream_refused',
  spans: 3,
  traceIds: ['t1'],
  detail: 'HTTP 400',
  ...fields,
});

describe('DropLog', () => {
  it('writes one prefixed JSON line naming the reason, spans, traces and detail', () => {
    new DropLog(() => 0).write(drop());
    expect(lines).toHaveLength(1);
    expect(lines[0]!.startsWith(PREFIX)).toBe(true);
    expect(written()).toEqual([
      { event: 'spans_dropped', reason: 'upstream_refused', spans: 3, trace_ids: ['t1'], detail: 'HTTP 400' },
    ]);
  });

  it.each([
    ['duplicates written once', ['a', 'b', 'a', 'b'], ['a', 'b'], undefined],
    ['exactly twenty kept whole', ids(20), ids(20), undefined],
    ['past twenty: the first twenty, the rest counted', ids(25), ids(20), 5],
    ['duplicates do not count toward the rest', [...ids(21), ...ids(21)], ids(20), 1],
  ])('trace ids: %s', (_case, traceIds, shown, more) => {
    new DropLog(() => 0).write(drop({ traceIds }));
    const [line] = written();
    expect(line!.trace_ids).toEqual(shown);
    expect(line!.more_trace_ids).toBe(more);
  });

  it('writes ten lines a window, then counts the rest into the first line of the next window', () => {
    let now = 10_000;
    const log = new DropLog(() => now);
    for (let i = 0; i < 13; i++) log.write(drop({ spans: i }));
    expect(written().map((l) => l.spans)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    now += 9_999;
    log.write(drop({ spans: 99 }));
    expect(lines).toHaveLength(10);
    now += 1;
    log.write(drop({ spans: 100 }));
    log.write(drop({ spans: 101 }));
    const tail = written().slice(10);
    expect(tail).toEqual([
      expect.objectContaining({ spans: 100, lines_suppressed_before: 4 }),
      expect.not.objectContaining({ lines_suppressed_before: expect.anything() as unknown }),
    ]);
    expect(tail[1]!.spans).toBe(101);
  });
});

function ids(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `trace-${i}`);
}

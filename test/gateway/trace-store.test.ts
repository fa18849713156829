/**
 * TraceStore's promises (src/gateway/trace-store.ts): spans are held by trace
 * in arrival order, a sender's retry is not held twice, a request is checked
 * against the trace and span bounds before it is held, and a trace is taken
 * after the decision wait once no part of a run waits for its run span, or
 * after the longest hold whatever waits, within a span budget, never early
 * while a refused sender is on its way back.
 */
import { describe, expect, it, vi } from 'vitest';
import { decodedSpanBytes } from '../../src/gateway/decoded-size.js';
import type { SpillRecord } from '../../src/gateway/spill-log.js';
import type { TraceStoreLimits } from '../../src/gateway/trace-store.js';
import { TraceStore } from '../../src/gateway/trace-store.js';
import type { DecodedSpan } from '../../src/otlp/otlp-json-spans.js';
import { CALL_ATTRIBUTES, decodedSpan, RUN_ATTRIBUTES } from '../support/decoded-span.js';

const TIMING = { decisionWaitMillis: 100, maxHoldMillis: 1_000 };
const ROOMY: TraceStoreLimits = { maxTraces: 100, maxSpans: 1_000 };
/** OTLP span flags: the sender says whether the parent is remote, and it is. */
const PARENT_IS_REMOTE = 0x100 | 0x200;

function store(limits: TraceStoreLimits = ROOMY, judged?: ReadonlySet<string>): TraceStore {
  return new TraceStore(limits, TIMING, judged ? { judged } : {});
}

/** The trace ids and span ids taken, trace by trace. */
function ids(taken: readonly { spans: readonly DecodedSpan[] }[]): string[][] {
  return taken.map((t) => t.spans.map((s) => `${s.traceId}/${s.spanId}`));
}

describe('holds spans by trace', () => {
  it('counts traces, spans and estimated bytes, and says which traces it holds', () => {
    const s = store();
    const spans = [decodedSpan('t1', 'a'), decodedSpan('t1', 'b'), decodedSpan('t2', 'c')];
    expect(s.add(spans, 0)).toEqual({ added: 3, duplicates: 0 });
    expect([s.traces, s.spans, s.bytes]).toEqual([2, 3, spans.reduce((n, span) => n + decodedSpanBytes(span), 0)]);
    expect([s.holds('t1'), s.holds('t2'), s.holds('t3')]).toEqual([true, true, false]);
  });

  it("holds a sender's retry once and releases the duplicate's share of its stored request", () => {
    const s = store();
    const first = { release: vi.fn() } as unknown as SpillRecord;
    const retry = { release: vi.fn() } as unknown as SpillRecord;
    s.add([decodedSpan('t1', 'a')], 0, first);
    expect(s.add([decodedSpan('t1', 'a'), decodedSpan('t1', 'b')], 1, retry)).toEqual({ added: 1, duplicates: 1 });
    expect(s.spans).toBe(2);
    expect(retry.release).toHaveBeenCalledTimes(1);
    expect(first.release).not.toHaveBeenCalled();
    expect(s.takeReady(1, true)[0]?.records).toEqual([first, retry]);
  });

  it.each([
    ['a request within both bounds', [decodedSpan('t2', 'x')], 0, true],
    ['one trace too many', [decodedSpan('t3', 'x'), decodedSpan('t4', 'y')], 2, false],
    ['one span too many', [decodedSpan('t1', 'x'), decodedSpan('t1', 'y')], 0, false],
    ['new spans of a held trace', [decodedSpan('t1', 'x')], 0, true],
  ])('fits: %s (%i new traces) → %s, holding nothing', (_case, spans, newTraces, fits) => {
    const s = store({ maxTraces: 3, maxSpans: 4 });
    s.add([decodedSpan('t1', 'a'), decodedSpan('t2', 'b'), decodedSpan('t2', 'c')], 0);
    expect(s.newTraces(spans)).toBe(newTraces);
    expect(s.fits(spans)).toBe(fits);
    expect(s.spans).toBe(3);
  });
});

describe('takes a trace when it is ready', () => {
  it.each([
    ['before the decision wait since its last span: held', 99, []],
    ['after the decision wait: taken', 100, [['t1/run', 't1/call']]],
  ])('a whole run %s', (_case, now, expected) => {
    const s = store();
    s.add(
      [
        decodedSpan('t1', 'run', { attributes: RUN_ATTRIBUTES }),
        decodedSpan('t1', 'call', { parentSpanId: 'run', attributes: CALL_ATTRIBUTES }),
      ],
      0,
    );
    expect(ids(s.takeReady(now))).toEqual(expected);
  });

  it('measures the wait from the last span of the trace, not its first', () => {
    const s = store();
    s.add([decodedSpan('t1', 'a')], 0);
    s.add([decodedSpan('t1', 'b')], 50);
    expect(ids(s.takeReady(149))).toEqual([]);
    expect(ids(s.takeReady(150))).toEqual([['t1/a', 't1/b']]);
  });

  it.each([
    ['whose run span has not come', {}, undefined, [], [['t1/call']]],
    ['whose run was judged already', {}, new Set(['run']), [['t1/call']], []],
    ['whose parent the sender puts in another process', { flags: PARENT_IS_REMOTE }, undefined, [['t1/call']], []],
  ])(
    'a run part %s: after the decision wait %j, after the longest hold the rest',
    (_c, fields, judged, quiet, late) => {
      const s = store(ROOMY, judged);
      s.add([decodedSpan('t1', 'call', { parentSpanId: 'run', attributes: CALL_ATTRIBUTES, ...fields })], 0);
      expect(ids(s.takeReady(100))).toEqual(quiet);
      expect(ids(s.takeReady(1_000))).toEqual(late);
    },
  );

  it('a span with no role under a missing parent waits for nothing', () => {
    const s = store();
    s.add([decodedSpan('t1', 'http', { parentSpanId: 'elsewhere' })], 0);
    expect(ids(s.takeReady(100))).toEqual([['t1/http']]);
  });

  it('takes every trace with `all`, ready or not, and forgets what it took', () => {
    const s = store();
    s.add([decodedSpan('t1', 'a'), decodedSpan('t2', 'b')], 0);
    expect(ids(s.takeReady(0, true))).toEqual([['t1/a'], ['t2/b']]);
    expect([s.traces, s.spans, s.bytes]).toEqual([0, 0, 0]);
  });

  it.each([
    ['takes whole traces in arrival order up to the budget', 3, [['t1/a', 't1/b'], ['t3/d']]],
    ['takes one trace larger than the whole budget alone', 1, [['t1/a', 't1/b']]],
  ])('%s', (_case, budget, expected) => {
    const s = store();
    s.add([decodedSpan('t1', 'a'), decodedSpan('t1', 'b'), decodedSpan('t2', 'c'), decodedSpan('t2', 'x')], 0);
    s.add([decodedSpan('t3', 'd')], 0);
    expect(ids(s.takeReady(100, false, false, budget))).toEqual(expected);
  });
});

describe('a refused sender on its way back', () => {
  it('holdUntil keeps every trace until then, unless the bounds press', () => {
    const s = store();
    s.add([decodedSpan('t1', 'a')], 0);
    s.holdUntil(500);
    expect([s.partsUntil, ids(s.takeReady(100)).length]).toEqual([500, 0]);
    expect(ids(s.takeReady(100, false, true))).toEqual([['t1/a']]);
  });

  it('holdUntil does not hold past the longest hold since the last span', () => {
    const s = store();
    s.add([decodedSpan('t1', 'a')], 0);
    s.holdUntil(5_000);
    expect(ids(s.takeReady(1_000))).toEqual([['t1/a']]);
  });

  it.each([
    ['before partsUntil: parts may still come', 499, true],
    ['from partsUntil on: none may', 500, false],
  ])('expectPartsUntil marks a trace taken %s, without holding it', (_case, now, mayStillCome) => {
    const s = store();
    s.add([decodedSpan('t1', 'a')], 0);
    s.expectPartsUntil(500);
    s.expectPartsUntil(200);
    expect(s.partsUntil).toBe(500);
    expect(s.takeReady(now).map((t) => t.partsMayStillCome)).toEqual([mayStillCome]);
  });

  it('partsUntil is 0 when no sender was refused', () => {
    expect(store().partsUntil).toBe(0);
  });
});

/**
 * GatewayState (src/gateway/gateway-state.ts) over a gateway's real parts:
 * what is held (store, upstream backlog, bodies being read, kept traces), the
 * memory admission weighs, when memory is tight (80% of a bound, kept traces
 * aside), letting kept traces go, and how long traces wait for a refused
 * sender to be back.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GatewayConfigInput } from '../../src/gateway/config.js';
import { resolveGatewayConfig } from '../../src/gateway/config.js';
import { decodedSpanBytes } from '../../src/gateway/decoded-size.js';
import { Forwarder } from '../../src/gateway/forwarder.js';
import { GatewayMetrics } from '../../src/gateway/gateway-metrics.js';
import { GatewayState } from '../../src/gateway/gateway-state.js';
import { LoadGauge } from '../../src/gateway/load-gauge.js';
import { RevisableTraces } from '../../src/gateway/revisable-traces.js';
import { TraceStore } from '../../src/gateway/trace-store.js';
import { decodedSpan } from '../support/decoded-span.js';

const SPAN_BYTES = decodedSpanBytes(decodedSpan('t', 's'));

function state(overrides: Omit<GatewayConfigInput, 'upstream'> = {}): GatewayState {
  const config = resolveGatewayConfig({ upstream: { endpoint: 'http://127.0.0.1:1/v1/traces' }, ...overrides });
  const metrics = new GatewayMetrics();
  return new GatewayState({
    config,
    metrics,
    store: new TraceStore(config.limits, config.hold),
    forwarder: new Forwarder(config.upstream, metrics),
    revisable: new RevisableTraces(),
    gauge: new LoadGauge(),
    spill: undefined,
    window: undefined,
  });
}

/** `n` spans of trace `traceId`. */
const spans = (traceId: string, n: number) =>
  Array.from({ length: n }, (_, i) => decodedSpan(traceId, `${traceId}-${i}`));

const kept = (traceId: string, n: number) => ({
  spans: spans(traceId, n),
  verdicts: new Map(),
  runIds: [],
  revisions: new Map(),
});

afterEach(() => {
  vi.useRealTimers();
});

describe('GatewayState', () => {
  it('holds the store, bodies being read and traces kept; admission sees them with the bound', () => {
    const s = state({ limits: { maxHeldBytes: 1_000_000 } });
    s.parts.store.add(spans('a', 2), 0);
    s.parts.revisable.keep('k', kept('k', 1), 1_000);
    s.readingBytes = 500;
    expect(s.heldBytes()).toBe(3 * SPAN_BYTES + 500);
    expect(s.memory()).toEqual({ heldBytes: 3 * SPAN_BYTES + 500, keptBytes: SPAN_BYTES, maxHeldBytes: 1_000_000 });
  });

  it.each([
    ['well under every bound', {}, 1, 1, false],
    ['spans past 80% of maxSpans', { maxSpans: 10 }, 1, 9, true],
    ['spans at 80% of maxSpans', { maxSpans: 10 }, 1, 8, false],
    ['traces past 80% of maxTraces', { maxTraces: 5 }, 5, 1, true],
    ['held bytes past 80% of maxHeldBytes', { maxHeldBytes: Math.floor(SPAN_BYTES * 1.2) }, 1, 1, true],
    ['the process past 80% of maxRssBytes', { maxRssBytes: 1 }, 1, 1, true],
  ])('memoryTight: %s → %s', (_case, limits, traces, perTrace, tight) => {
    const s = state({ limits });
    for (let t = 0; t < traces; t++) s.parts.store.add(spans(`t${t}`, perTrace), 0);
    expect(s.memoryTight()).toBe(tight);
  });

  it('memoryTight leaves out traces kept for a correction', () => {
    const s = state({ limits: { maxHeldBytes: SPAN_BYTES * 10 } });
    s.parts.revisable.keep('k', kept('k', 20), 1_000);
    expect(s.memoryTight()).toBe(false);
    s.readingBytes = SPAN_BYTES * 9;
    expect(s.memoryTight()).toBe(true);
  });

  it('shrinkKept lets the oldest kept traces go and publishes the count; undefined does nothing', () => {
    const s = state();
    s.parts.revisable.keep('a', kept('a', 1), 1_000);
    s.parts.revisable.keep('b', kept('b', 1), 1_000);
    s.shrinkKept(undefined);
    expect([s.parts.revisable.size, s.parts.metrics.revisableEvicted]).toEqual([2, 0]);
    s.shrinkKept(SPAN_BYTES);
    expect([s.parts.revisable.size, s.parts.metrics.revisableEvicted]).toEqual([1, 1]);
    expect(s.parts.revisable.take('b')).toBeDefined();
  });

  it.each([
    ['twice Retry-After when longer', { retryAfterSeconds: 10 }, { refusedSenderBackoffMillis: 5_000 }, 20_000 + 2_000],
    [
      'the sender backoff when longer',
      { retryAfterSeconds: 1 },
      { refusedSenderBackoffMillis: 15_000 },
      15_000 + 2_000,
    ],
  ])('expectSenderBack expects parts until %s, plus the decision wait', (_case, limits, hold, wait) => {
    vi.useFakeTimers({ now: 1_000_000 });
    const s = state({ limits, hold: { ...hold, decisionWaitMillis: 2_000 } });
    s.expectSenderBack(false);
    expect(s.parts.store.partsUntil).toBe(1_000_000 + wait);
  });

  it('expectSenderBack holds the traces only when asked, open and not short of memory', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const held = (configure: (s: GatewayState) => void, holdTraces: boolean) => {
      const s = state({ limits: { maxSpans: 10 } });
      s.parts.store.add(spans('a', 1), 1_000_000);
      configure(s);
      s.expectSenderBack(holdTraces);
      // A held trace is not ready after its decision wait; one not held is.
      return s.parts.store.takeReady(1_000_000 + 3_000).length === 0;
    };
    expect(held(() => undefined, true)).toBe(true);
    expect(held(() => undefined, false)).toBe(false);
    expect(
      held((s) => {
        s.closing = true;
      }, true),
    ).toBe(false);
    expect(held((s) => s.parts.store.add(spans('b', 8), 1_000_000), true)).toBe(false);
  });
});

/**
 * The intake of a gateway with workers: its views of the workers' stores, backlogs and kept traces read the shared
 * loads (a backlog is the sum, failing upstream the most failures of any worker), and a refusal's hold window or a
 * shrink of the kept traces reaches every worker; on real threads, limits.maxRequestItems bounds a whole request
 * however its parts are cut among the workers.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Gateway } from '../../src/gateway/gateway.js';
import { startGateway } from '../../src/gateway/gateway.js';
import { GatewayMetrics } from '../../src/gateway/gateway-metrics.js';
import { ShardCounters } from '../../src/gateway/shard-counters.js';
import { ShardedKept, ShardedStore, ShardedUpstream } from '../../src/gateway/shard-intake.js';
import type { ShardPool } from '../../src/gateway/shard-pool.js';
import { encodableSpansOf } from '../../src/otlp/encodable-of-decoded.js';
import { encodeTraceRequestProtobuf } from '../../src/otlp/otlp-encode.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { startUpstream } from '../support/upstream.js';

function fakePool() {
  const counters = new ShardCounters(2);
  const load = { traces: 1, spans: 2, storeBytes: 30, backlogSpans: 4, backlogBytes: 50, keptBytes: 6, failures: 1 };
  counters.publish(0, load);
  counters.publish(1, { ...load, failures: 3 });
  const pool = { counters, size: 2, window: vi.fn(), shrinkKept: vi.fn() };
  return { pool, shards: pool as unknown as ShardPool };
}

describe('the views of the workers', () => {
  it('read the shared loads: sums, and the most upstream failures of any worker', () => {
    const { shards } = fakePool();
    const store = new ShardedStore(shards);
    const upstream = new ShardedUpstream(shards);
    const kept = new ShardedKept(shards, new GatewayMetrics());
    expect([store.traces, store.spans, store.bytes]).toEqual([2, 4, 60]);
    expect([upstream.backlogSpans, upstream.backlogBytes, upstream.consecutiveFailures]).toEqual([8, 100, 3]);
    expect(kept.bytes).toBe(12);
  });

  it('send a refusal window to every worker, never shorter than one sent before', () => {
    const { pool, shards } = fakePool();
    const store = new ShardedStore(shards);
    store.holdUntil(2_000);
    store.expectPartsUntil(5_000);
    store.holdUntil(1_000);
    expect(pool.window.mock.calls).toEqual([
      [2_000, 2_000],
      [2_000, 5_000],
      [2_000, 5_000],
    ]);
    expect(store.partsUntil).toBe(5_000);
  });

  it('shrink the kept traces in every worker, and count what the workers evicted', () => {
    const { pool, shards } = fakePool();
    const metrics = new GatewayMetrics();
    metrics.revisableEvicted = 4;
    const kept = new ShardedKept(shards, metrics);
    kept.shrinkTo(100);
    expect(pool.shrinkKept).toHaveBeenCalledWith(100);
    expect(kept.evicted).toBe(4);
  });
});

let open: { gateway: Gateway; close(): Promise<void> } | undefined;
afterEach(async () => {
  await open?.gateway.close();
  await open?.close();
  open = undefined;
});

describe('a gateway with workers', () => {
  it('refuses with 413 a protobuf request whose parts together hold more than limits.maxRequestItems', async () => {
    const upstream = await startUpstream();
    const { gateway } = await startGateway({
      listen: { port: 0 },
      workers: 3,
      limits: { maxRequestItems: 60 },
      upstream: { endpoint: upstream.endpoint },
    });
    open = { gateway, close: upstream.close };
    const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');
    // 40 spans of 40 traces with one attribute each: 80 items, fewer than 60 in any worker's part.
    const spans = Array.from({ length: 40 }, (_, i) => ({
      traceId: hex(i * 2654435761 + 1, 32),
      spanId: hex(i + 1, 16),
      name: 'chat',
      startTimeUnixNano: '1700000000000000000',
      attributes: [{ key: 'a', value: { stringValue: 'b' } }],
    }));
    const body = encodeTraceRequestProtobuf(
      encodableSpansOf(decodeOtlpJsonSpans({ resourceSpans: [{ scopeSpans: [{ spans }] }] })),
    );
    const post = (bytes: Uint8Array) =>
      fetch(`${gateway.url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf' },
        body: bytes,
      });
    const response = await post(body);
    expect(response.status).toBe(413);
    expect(await response.text()).toContain('more than 60 spans, events, links and attributes');
    const half = encodeTraceRequestProtobuf(
      encodableSpansOf(decodeOtlpJsonSpans({ resourceSpans: [{ scopeSpans: [{ spans: spans.slice(0, 20) }] }] })),
    );
    expect((await post(half)).status).toBe(200);
  });
});

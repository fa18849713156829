/**
 * A worker's shard, run on a MessageChannel in this thread: it decodes a part and answers with what admission
 * weighs, holds it once committed (and forgets it once discarded), judges and delivers it upstream, tells which
 * request's spans it delivered, holds a part read back from the persistent queue without asking, posts its metrics
 * and load, and answers a stop with what is left. Its bounds are its share of the gateway's.
 */
import { MessageChannel } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveGatewayConfig } from '../../src/gateway/config.js';
import type { GatewayConfig } from '../../src/gateway/config.js';
import { ShardCounters } from '../../src/gateway/shard-counters.js';
import type { FromShard, ToShard } from '../../src/gateway/shard-protocol.js';
import type { Shard } from '../../src/gateway/shard-worker.js';
import { serveShard, shardConfig } from '../../src/gateway/shard-worker.js';
import { startUpstream } from '../support/upstream.js';
import { waitFor } from '../support/wait-for.js';

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');
const NOW = BigInt(Date.now()) * 1_000_000n;

/** One run (a run span and its chat attempt) of trace `i`, as OTLP/JSON bytes. */
function run(i: number, extra: object[] = []): Uint8Array {
  const traceId = hex(i + 1, 32);
  const spans = [
    {
      traceId,
      spanId: hex(2 * i + 1, 16),
      name: 'invoke_agent helper',
      startTimeUnixNano: String(NOW - 10_000_000n),
      endTimeUnixNano: String(NOW),
      attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } }],
    },
    {
      traceId,
      spanId: hex(2 * i + 2, 16),
      parentSpanId: hex(2 * i + 1, 16),
      name: 'chat model',
      startTimeUnixNano: String(NOW - 9_000_000n),
      endTimeUnixNano: String(NOW - 1_000n),
      attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }],
    },
    ...extra,
  ];
  return new TextEncoder().encode(JSON.stringify({ resourceSpans: [{ resource: {}, scopeSpans: [{ spans }] }] }));
}

type Upstream = Awaited<ReturnType<typeof startUpstream>>;
let open: { shard: Shard; port: MessagePort; other: MessagePort; upstream: Upstream } | undefined;
afterEach(async () => {
  open?.shard.stop();
  open?.port.close();
  open?.other.close();
  await open?.upstream.close();
  open = undefined;
});

async function startShard() {
  const upstream = await startUpstream();
  const config = resolveGatewayConfig({
    upstream: { endpoint: upstream.endpoint },
    hold: { decisionWaitMillis: 0, tickMillis: 10, refusedSenderBackoffMillis: 0 },
  });
  const { port1, port2 } = new MessageChannel();
  const counters = new ShardCounters(1);
  const shard = serveShard(port1, {
    config,
    shard: 0,
    shards: 1,
    counters: counters.buffer,
    holdUntil: 0,
    partsUntil: 0,
    closing: false,
  });
  open = { shard, port: port1, other: port2, upstream };
  const heard: FromShard[] = [];
  port2.on('message', (message: FromShard) => heard.push(message));
  const send = (message: ToShard): void => port2.postMessage(message);
  const answer = async <T extends FromShard['type']>(type: T, match: (m: FromShard) => boolean = () => true) => {
    await waitFor(() => heard.some((m) => m.type === type && match(m)), { what: `a ${type} answer` });
    return heard.find((m) => m.type === type && match(m)) as Extract<FromShard, { type: T }>;
  };
  const released = (request: number): number =>
    heard
      .filter((m): m is Extract<FromShard, { type: 'released' }> => m.type === 'released')
      .flatMap((m) => m.releases.flatMap((id, i) => (i % 2 === 0 && id === request ? [m.releases[i + 1]!] : [])))
      .reduce((a, b) => a + b, 0);
  return { upstream, counters, send, answer, heard, released };
}

describe('shardConfig', () => {
  const config = resolveGatewayConfig({
    upstream: { endpoint: 'http://127.0.0.1:1/v1/traces' },
    limits: { maxTraces: 10, maxSpans: 100, maxHeldBytes: 1_000, maxForwardBacklogSpans: 3 },
  });
  it.each<[number, Partial<GatewayConfig['limits']>]>([
    [1, { maxTraces: 10, maxSpans: 100, maxHeldBytes: 1_000, maxForwardBacklogSpans: 3 }],
    [3, { maxTraces: 3, maxSpans: 33, maxHeldBytes: 333, maxForwardBacklogSpans: 1 }],
    [4, { maxTraces: 2, maxSpans: 25, maxHeldBytes: 250, maxForwardBacklogSpans: 1 }],
  ])('gives each of %i workers its share of the bounds, never more than the whole together', (workers, limits) => {
    expect(shardConfig(config, workers).limits).toMatchObject(limits);
    expect(shardConfig(config, workers).limits.maxBodyBytes).toBe(config.limits.maxBodyBytes);
  });
});

describe('a shard', () => {
  it('decodes a part, holds it once committed, delivers it judged, and tells which request it delivered', async () => {
    const { upstream, counters, send, answer, released } = await startShard();
    const body = run(1, [{ traceId: 'abc', spanId: '', name: 'bad' }]);
    send({ type: 'stage', id: 1, encoding: 'json', body, maxItems: 1000 });
    const { part } = await answer('staged');
    expect(part).toMatchObject({ ok: true, spans: 2, rejected: 1, newTraces: 1, items: 0 });
    expect(part.ok && part.decodedBytes).toBeGreaterThan(0);
    send({ type: 'commit', id: 1, request: 77 });
    await waitFor(() => upstream.received.length === 2, { what: 'the run delivered' });
    expect(upstream.received.find((s) => s.name.startsWith('invoke_agent'))?.attributes['incident.outcome']).toBe(
      'success',
    );
    await waitFor(() => released(77) === 2, { what: 'request 77 released' });
    await waitFor(() => counters.read(0).spans === 0, { what: 'the load written' });
    const metrics = await answer('metrics', (m) => m.type === 'metrics' && m.snapshot.counters[1] === 2);
    expect(metrics.snapshot.counters[0]).toBe(2);
  });

  it.each([
    ['malformed JSON', 'json', new TextEncoder().encode('{oops'), 400],
    ['too many items', 'protobuf', Uint8Array.from([0x0a, 0x04, 0x12, 0x02, 0x12, 0x00]), 413],
  ] as const)('answers %s with the status that refuses it', async (_name, encoding, body, status) => {
    const { send, answer } = await startShard();
    send({ type: 'stage', id: 5, encoding, body, maxItems: 0 });
    expect((await answer('staged')).part).toMatchObject({ ok: false, status });
  });

  it('forgets a discarded part', async () => {
    const { upstream, send, answer } = await startShard();
    send({ type: 'stage', id: 2, encoding: 'json', body: run(2), maxItems: 1000 });
    await answer('staged');
    send({ type: 'discard', id: 2 });
    send({ type: 'commit', id: 2, request: 1 });
    send({ type: 'drain', id: 3, until: null, all: true });
    await answer('drained');
    expect(upstream.received).toHaveLength(0);
  });

  it('holds a part read back from the persistent queue without asking, and counts it recovered', async () => {
    const { upstream, send, answer, released } = await startShard();
    send({ type: 'resend', request: 9, encoding: 'json', body: run(3), maxItems: 1000 });
    expect(await answer('resent')).toMatchObject({ request: 9, spans: 2 });
    send({ type: 'drain', id: 4, until: null, all: true });
    await answer('drained');
    expect(upstream.received).toHaveLength(2);
    expect(released(9)).toBe(2);
    const metrics = await answer('metrics', (m) => m.type === 'metrics' && m.snapshot.counters[3] === 2);
    expect(metrics.snapshot.counters[3]).toBe(2);
  });

  it('answers a stop with the spans it still holds', async () => {
    const { send, answer } = await startShard();
    send({ type: 'window', holdUntil: Date.now() + 60_000, partsUntil: Date.now() + 60_000 });
    send({ type: 'stage', id: 1, encoding: 'json', body: run(4), maxItems: 1000 });
    await answer('staged');
    send({ type: 'commit', id: 1, request: 1 });
    send({ type: 'stop', id: 2 });
    expect(await answer('stopped')).toMatchObject({ left: 2 });
  });
});

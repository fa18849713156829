// Over 300 lines: one table per path of the delivery loop (deliver, retry, give up, split, repair, stop), over one
// scripted upstream, so that every path is checked for what it does with the stored requests of its batch.
/**
 * The Forwarder (src/gateway/forwarder.ts), over real HTTP on 127.0.0.1 and a real persistent queue in a temp
 * dir: the promises of docs/gateway.md, "Delivery guarantee" (accepted means delivered). Spans go upstream one
 * request at a time, in order; 408, 429, 502, 503, 504, network errors and timeouts are retried with doubling
 * backoff capped at `upstream.maxBackoffMillis` (a `Retry-After` wins) until delivered, or until
 * `upstream.maxAttempts` is spent (dropped as `retries_exhausted`); any other status splits the batch down to
 * the spans upstream refuses (`upstream_rejected`); a value the encoder cannot write is repaired, a span it
 * cannot write at all is left out (`unencodable`). A stored request is released only once every span of it was
 * delivered or dropped; `stop()` keeps what it did not deliver for the next start.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createServer as createTcpServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diag, DiagLogLevel } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GatewayConfigInput } from '../../src/gateway/config.js';
import { resolveGatewayConfig } from '../../src/gateway/config.js';
import { Forwarder } from '../../src/gateway/forwarder.js';
import { GatewayMetrics } from '../../src/gateway/gateway-metrics.js';
import { SpillLog } from '../../src/gateway/spill-log.js';
import { encodableSpansOf } from '../../src/otlp/encodable-of-decoded.js';
import type { EncodableSpan } from '../../src/otlp/otlp-encode.js';
import type { DecodedSpan } from '../../src/otlp/otlp-json-spans.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { decodeExportTraceRequest } from '../../src/otlp/otlp-protobuf.js';
import { UNENCODABLE_VALUE } from '../../src/otlp/repair-span.js';
import { watchTimers } from '../support/armed-timers.js';
import { decodedSpan } from '../support/decoded-span.js';
import { waitFor } from '../support/wait-for.js';

const cleanups: (() => unknown)[] = [];
let errors: string[] = [];
beforeEach(() => {
  errors = [];
  const ignore = () => undefined;
  diag.setLogger(
    { error: (m: string) => errors.push(m), warn: ignore, info: ignore, debug: ignore, verbose: ignore },
    { logLevel: DiagLogLevel.ERROR, suppressOverrideMessage: true },
  );
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  diag.disable();
});

/** The drop lines written (docs/gateway.md: one JSON object per drop, with its trace ids). */
const drops = () =>
  errors
    .filter((m) => m.includes('"spans_dropped"'))
    .map((m) => JSON.parse(m.slice(m.indexOf('{'))) as Record<string, unknown>);

type Answer = number | { readonly status: number; readonly retryAfter?: string };
interface Seen {
  readonly headers: IncomingHttpHeaders;
  readonly spans: DecodedSpan[];
  status?: number;
}

/** An OTLP/HTTP upstream answering each request as `answer` says (it may wait), keeping what it saw. */
async function upstream(answer: (spans: DecodedSpan[]) => Answer | Promise<Answer> = () => 200) {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const json = request.headers['content-type'] === 'application/json';
      const decoded: unknown = json ? JSON.parse(body.toString('utf8')) : decodeExportTraceRequest(body);
      const spans = decodeOtlpJsonSpans(decoded);
      const entry: Seen = { headers: request.headers, spans };
      seen.push(entry);
      void Promise.resolve(answer(spans)).then((a) => {
        const { status, retryAfter } = typeof a === 'number' ? { status: a, retryAfter: undefined } : a;
        entry.status = status;
        response.writeHead(status, retryAfter === undefined ? {} : { 'retry-after': retryAfter });
        response.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}/v1/traces`,
    seen,
    /** Span ids upstream accepted, in the order it accepted them. */
    delivered: () => seen.filter((s) => s.status === 200).flatMap((s) => s.spans.map((span) => span.spanId)),
  };
}

/** Answers that wait until the test gives them, one per request, in order. */
function gate() {
  const waiting: ((answer: Answer) => void)[] = [];
  return {
    answer: () => new Promise<Answer>((resolve) => waiting.push(resolve)),
    open: (answer: Answer) => waiting.shift()!(answer),
  };
}

/** Answers `first` to the first `times` requests, then 200. */
function failing(times: number, first: Answer): () => Answer {
  let n = 0;
  return () => (n++ < times ? first : 200);
}

function forwarderTo(endpoint: string, options: Partial<GatewayConfigInput['upstream']> = {}) {
  const config = resolveGatewayConfig({
    upstream: { initialBackoffMillis: 1, maxBackoffMillis: 5, ...options, endpoint },
  }).upstream;
  const metrics = new GatewayMetrics();
  const forwarder = new Forwarder(config, metrics);
  cleanups.push(() => forwarder.stop());
  return { forwarder, metrics };
}

/**
 * Delivers span 1 with a 10 ms backoff doubled up to 40 ms, and gives the waits it slept between attempts: the
 * timers armed under a second (each attempt's deadline, upstream.timeoutMillis, and undici's own are longer).
 */
async function backoffsDelivering(endpoint: string) {
  const { forwarder } = forwarderTo(endpoint, { initialBackoffMillis: 10, maxBackoffMillis: 40 });
  const timers = watchTimers();
  try {
    forwarder.send(spans([1]));
    await forwarder.idle();
  } finally {
    timers.restore();
  }
  return { forwarder, backoffs: timers.armed().flatMap((t) => (t.ms < 1_000 ? [t.ms] : [])) };
}

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');
/** Span id of span `n` (its trace id is `n` on 32 digits). */
const id = (n: number): string => hex(n, 16);

/** Spans numbered `ns`, each in its own trace, with `attributes` on each. */
function spans(ns: readonly number[], attributes: Record<string, unknown> = {}): EncodableSpan[] {
  return encodableSpansOf(ns.map((n) => decodedSpan(hex(n, 32), id(n), { attributes: { n, ...attributes } })));
}

/** `span` with a start time that is not a bigint: no encoder can write it, repaired or not. */
const unwritable = (span: EncodableSpan): EncodableSpan => ({ ...span, startTimeUnixNano: 1.5 as unknown as bigint });

/** A persistent queue in a temp dir: `record(spans)` is a stored request of that many spans. */
function queue() {
  const directory = mkdtempSync(join(tmpdir(), 'forwarder-'));
  const spill = SpillLog.open({ directory });
  cleanups.push(async () => {
    await spill.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return { record: (n: number) => spill.append('json', new Uint8Array([123, 125]), n) };
}

describe('delivery', () => {
  it('sends one request at a time, in order, and releases a stored request only once its spans are delivered', async () => {
    const g = gate();
    const up = await upstream(g.answer);
    const { forwarder, metrics } = forwarderTo(up.endpoint, { headers: { authorization: 'Bearer t' } });
    const { record } = queue();
    const [a, b] = [await record(2), await record(1)];
    forwarder.send(spans([1, 2]), [a, a]);
    forwarder.send(spans([3]), [b]);
    await waitFor(() => up.seen.length === 1, { what: 'the first request' });
    expect([forwarder.backlogSpans, a.pending, b.pending]).toEqual([3, 2, 1]);
    expect(up.seen[0]!.headers).toMatchObject({ 'content-type': 'application/x-protobuf', authorization: 'Bearer t' });
    g.open(200);
    await waitFor(() => up.seen.length === 2, { what: 'the second request, after the first was answered' });
    expect([forwarder.backlogSpans, a.pending, b.pending]).toEqual([1, 0, 1]);
    g.open(200);
    await forwarder.idle();
    expect(up.delivered()).toEqual([id(1), id(2), id(3)]);
    expect([forwarder.backlogSpans, forwarder.backlogBytes, b.pending, metrics.spansForwarded]).toEqual([0, 0, 0, 3]);
  });

  it.each([
    ['protobuf', 'application/x-protobuf'],
    ['json', 'application/json'],
  ] as const)('upstream.encoding %s is sent as %s', async (encoding, type) => {
    const up = await upstream();
    const { forwarder } = forwarderTo(up.endpoint, { encoding });
    forwarder.send(spans([7]));
    await forwarder.idle();
    expect(up.seen.map((s) => s.headers['content-type'])).toEqual([type]);
    expect(up.seen[0]!.spans[0]).toMatchObject({ traceId: hex(7, 32), spanId: id(7), attributes: { n: 7 } });
  });

  it('sending no spans queues nothing', async () => {
    const up = await upstream();
    const { forwarder } = forwarderTo(up.endpoint);
    forwarder.send([]);
    await forwarder.idle();
    expect([forwarder.backlogSpans, up.seen.length]).toEqual([0, 0]);
  });
});

describe('retrying what upstream may take later', () => {
  it.each([408, 429, 502, 503, 504])(
    'HTTP %i is retried until delivered, the stored request kept until then',
    async (status) => {
      const g = gate();
      const up = await upstream(g.answer);
      const { forwarder, metrics } = forwarderTo(up.endpoint);
      const r = await queue().record(1);
      forwarder.send(spans([1]), [r]);
      await waitFor(() => up.seen.length === 1, { what: 'the first attempt' });
      g.open(status);
      await waitFor(() => up.seen.length === 2, { what: 'the retry' });
      expect([forwarder.consecutiveFailures, r.pending, forwarder.backlogSpans]).toEqual([1, 1, 1]);
      g.open(200);
      await forwarder.idle();
      expect([forwarder.consecutiveFailures, r.pending, metrics.forwardRetries, metrics.spansDropped]).toEqual([
        0, 0, 1, 0,
      ]);
      expect(up.delivered()).toEqual([id(1)]);
    },
  );

  it('backs off 10, 20, 40, 40 ms (doubling, capped at maxBackoffMillis), the failures counted until a delivery', async () => {
    const up = await upstream(failing(4, 503));
    const { forwarder, backoffs } = await backoffsDelivering(up.endpoint);
    expect([backoffs, up.seen.length, forwarder.consecutiveFailures]).toEqual([[10, 20, 40, 40], 5, 0]);
  });

  it.each([
    ['0', 0],
    ['3600', 40],
    ['2.5', 40],
    ['Wed, 21 Oct 2015 07:28:00 GMT', 10],
    ['-1', 10],
  ])('Retry-After %j waits %i ms (it wins over the backoff; only delta seconds count, capped)', async (value, ms) => {
    const up = await upstream(failing(1, { status: 503, retryAfter: value }));
    expect((await backoffsDelivering(up.endpoint)).backoffs).toEqual([ms]);
    expect(up.delivered()).toEqual([id(1)]);
  });
});

describe('giving up after upstream.maxAttempts', () => {
  it('drops the batch as retries_exhausted, logs its trace ids, releases its stored request and goes on', async () => {
    let down = true;
    const up = await upstream(() => (down ? 503 : 200));
    const { forwarder, metrics } = forwarderTo(up.endpoint, { maxAttempts: 3 });
    const r = await queue().record(2);
    forwarder.send(spans([1, 2]), [r, r]);
    await forwarder.idle();
    expect([up.seen.length, r.pending, forwarder.consecutiveFailures, forwarder.backlogSpans]).toEqual([3, 0, 0, 0]);
    expect(metrics.droppedSpans.get('retries_exhausted')).toBe(2);
    const detail = '3 attempts (upstream.maxAttempts), last: HTTP 503';
    expect(drops()).toMatchObject([
      { reason: 'retries_exhausted', spans: 2, trace_ids: [hex(1, 32), hex(2, 32)], detail },
    ]);
    down = false;
    forwarder.send(spans([3]));
    await forwarder.idle();
    expect(up.delivered()).toEqual([id(3)]);
  });

  it('an upstream that never answers costs each attempt upstream.timeoutMillis, then the batch is given up', async () => {
    const sockets = new Set<Socket>();
    const hole = createTcpServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => hole.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => hole.close(resolve));
    });
    const endpoint = `http://127.0.0.1:${(hole.address() as AddressInfo).port}/v1/traces`;
    const { forwarder, metrics } = forwarderTo(endpoint, { timeoutMillis: 100, maxAttempts: 1 });
    forwarder.send(spans([1]));
    await forwarder.idle();
    expect(metrics.droppedSpans.get('retries_exhausted')).toBe(1);
    expect(drops()[0]!['detail']).toBe(
      '1 attempt (upstream.maxAttempts), last: upstream did not answer within 100 ms (upstream.timeoutMillis)',
    );
  });
});

describe('what upstream refuses for good', () => {
  it('a single span refused with 400 is dropped as upstream_rejected at once, not retried', async () => {
    const up = await upstream(() => 400);
    const { forwarder, metrics } = forwarderTo(up.endpoint);
    const r = await queue().record(1);
    forwarder.send(spans([9]), [r]);
    await forwarder.idle();
    expect([up.seen.length, metrics.forwardRetries, metrics.forwardSplits, r.pending]).toEqual([1, 0, 0, 0]);
    expect(metrics.droppedSpans.get('upstream_rejected')).toBe(1);
    expect(drops()).toMatchObject([
      { reason: 'upstream_rejected', spans: 1, trace_ids: [hex(9, 32)], detail: 'HTTP 400' },
    ]);
  });

  it.each(['protobuf', 'json'] as const)(
    'a refused batch (%s) is split down to the span upstream refuses: only it is dropped, the rest delivered in order',
    async (encoding) => {
      const up = await upstream((sent) => (sent.some((s) => s.spanId === id(2)) ? 400 : 200));
      const { forwarder, metrics } = forwarderTo(up.endpoint, { encoding });
      const { record } = queue();
      const records = [await record(1), await record(1), await record(1), await record(1), await record(1)];
      forwarder.send(spans([1, 2, 3, 4, 5]), records);
      await forwarder.idle();
      // [1..5] → [1,2,3] [4,5]; [1,2,3] → [1,2] [3]; [1,2] → [1] [2].
      expect(up.seen.map((s) => s.spans.length)).toEqual([5, 3, 2, 1, 1, 1, 2]);
      expect(up.delivered()).toEqual([id(1), id(3), id(4), id(5)]);
      expect([metrics.forwardSplits, metrics.spansForwarded, metrics.droppedSpans.get('upstream_rejected')]).toEqual([
        3, 4, 1,
      ]);
      expect(records.map((r) => r.pending)).toEqual([0, 0, 0, 0, 0]);
      expect(drops()).toMatchObject([{ reason: 'upstream_rejected', spans: 1, trace_ids: [hex(2, 32)] }]);
    },
  );

  it('the halves of a split batch keep its stored requests until both are done', async () => {
    const g = gate();
    const up = await upstream(g.answer);
    const { forwarder } = forwarderTo(up.endpoint);
    const { record } = queue();
    const [a, b] = [await record(1), await record(1)];
    forwarder.send(spans([1, 2]), [a, b]);
    await waitFor(() => up.seen.length === 1, { what: 'the whole batch' });
    g.open(400);
    await waitFor(() => up.seen.length === 2, { what: 'the first half' });
    g.open(200);
    await waitFor(() => up.seen.length === 3, { what: 'the second half' });
    // The first half is delivered, but its span's stored request goes with the batch: not released yet.
    expect([a.pending, b.pending, forwarder.backlogSpans]).toEqual([1, 1, 1]);
    g.open(200);
    await forwarder.idle();
    expect([a.pending, b.pending, up.delivered()]).toEqual([0, 0, [id(1), id(2)]]);
  });
});

describe('spans the encoder cannot write', () => {
  it('a value that cannot be written is replaced by the marker and counted; its span and batch-mates go on', async () => {
    const up = await upstream();
    const { forwarder, metrics } = forwarderTo(up.endpoint);
    const [bad] = spans([1], { fn: () => 1, kept: 'yes' });
    forwarder.send([bad!, ...spans([2])]);
    await forwarder.idle();
    expect(metrics.valuesRepaired).toBe(1);
    expect(up.delivered()).toEqual([id(1), id(2)]);
    expect(up.seen[0]!.spans[0]!.attributes).toEqual({ n: 1, fn: UNENCODABLE_VALUE, kept: 'yes' });
  });

  it('a span that cannot be written even repaired is left out, counted and logged with its own trace id only', async () => {
    const up = await upstream();
    const { forwarder, metrics } = forwarderTo(up.endpoint);
    const r = await queue().record(2);
    const [good, broken] = spans([1, 2]);
    forwarder.send([good!, unwritable(broken!)], [r, r]);
    await forwarder.idle();
    expect(up.delivered()).toEqual([id(1)]);
    expect([metrics.droppedSpans.get('unencodable'), metrics.spansForwarded, r.pending]).toEqual([1, 1, 0]);
    expect(drops()).toMatchObject([{ reason: 'unencodable', spans: 1, trace_ids: [hex(2, 32)] }]);
  });

  it('a batch none of whose spans can be written sends nothing and releases its stored request at once', async () => {
    const up = await upstream();
    const { forwarder, metrics } = forwarderTo(up.endpoint);
    const r = await queue().record(1);
    forwarder.send(spans([1]).map(unwritable), [r]);
    expect([r.pending, forwarder.backlogSpans, metrics.droppedSpans.get('unencodable')]).toEqual([0, 0, 1]);
    await forwarder.idle();
    expect(up.seen).toEqual([]);
  });
});

describe('stop', () => {
  it('aborts the request in flight, returns the spans left, and keeps their stored requests for the next start', async () => {
    const up = await upstream(gate().answer);
    const { forwarder, metrics } = forwarderTo(up.endpoint);
    const r = await queue().record(2);
    forwarder.send(spans([1, 2]), [r, r]);
    await waitFor(() => up.seen.length === 1, { what: 'the request in flight' });
    expect(await forwarder.stop()).toBe(2);
    expect([r.pending, metrics.spansForwarded, metrics.spansDropped]).toEqual([2, 0, 0]);
    // Nothing more is sent after a stop: what is queued stays queued.
    forwarder.send(spans([3]));
    await forwarder.idle();
    expect([forwarder.backlogSpans, up.seen.length]).toEqual([3, 1]);
  });

  it('wakes a backoff at once instead of sleeping it out', async () => {
    const up = await upstream(() => 503);
    const { forwarder } = forwarderTo(up.endpoint, { initialBackoffMillis: 600_000, maxBackoffMillis: 600_000 });
    forwarder.send(spans([1]));
    await waitFor(() => forwarder.consecutiveFailures === 1, { what: 'the first failure' });
    // A backoff slept out would outlast the test's timeout.
    expect(await forwarder.stop()).toBe(1);
    expect(up.seen.length).toBe(1);
  });
});

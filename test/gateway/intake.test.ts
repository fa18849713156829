// Over 300 lines: one table of every refusal the intake answers, each case checked for all that goes with its answer.
/**
 * The intake of `POST /v1/traces` (src/gateway/intake.ts) over real HTTP on 127.0.0.1, on a gateway state of
 * real parts (trace store, forwarder, persistent queue in a temp dir): docs/gateway.md, "What it answers" and
 * "Delivery guarantee". What it accepts is written to the persistent queue before the 200 and held in the store,
 * duplicates once; partial success names the spans it could not use; each refusal that admission decides is
 * answered with its status, message and metric, `Retry-After` on a 429 or 503 (whose sender is then expected
 * back, and for busy, backlog or upstream failing every trace waits for it), `connection: close` for a body too
 * large and while closing; nothing refused is held; a request refused before its body is read leaves the
 * connection usable; the requests in hand and bytes being read go back to 0 after every answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { Agent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayConfigInput } from '../../src/gateway/config.js';
import { resolveGatewayConfig } from '../../src/gateway/config.js';
import { Forwarder } from '../../src/gateway/forwarder.js';
import { GatewayMetrics } from '../../src/gateway/gateway-metrics.js';
import { GatewayState } from '../../src/gateway/gateway-state.js';
import { Intake, LocalHolder, Responder } from '../../src/gateway/intake.js';
import { LoadGauge } from '../../src/gateway/load-gauge.js';
import { RevisableTraces } from '../../src/gateway/revisable-traces.js';
import type { SpillRecord } from '../../src/gateway/spill-log.js';
import { SpillLog } from '../../src/gateway/spill-log.js';
import { TraceStore } from '../../src/gateway/trace-store.js';
import { encodableSpansOf } from '../../src/otlp/encodable-of-decoded.js';
import { encodeTraceRequestJson, encodeTraceRequestProtobuf } from '../../src/otlp/otlp-encode.js';
import { encodeExportTraceResponse } from '../../src/otlp/otlp-protobuf-response.js';
import { decodedSpan } from '../support/decoded-span.js';
import { waitFor } from '../support/wait-for.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Config = Omit<GatewayConfigInput, 'upstream'> & { upstream?: Partial<GatewayConfigInput['upstream']> };

/** An intake behind a real HTTP server, on a state of real parts; upstream is a port nothing listens on. */
async function intakeOn(config: Config = {}, persistent = false) {
  const directory = mkdtempSync(join(tmpdir(), 'intake-'));
  const resolved = resolveGatewayConfig({
    ...config,
    persistence: persistent ? { directory, ...config.persistence } : undefined,
    upstream: { endpoint: 'http://127.0.0.1:1/v1/traces', initialBackoffMillis: 600_000, ...config.upstream },
  });
  const metrics = new GatewayMetrics();
  const forwarder = new Forwarder(resolved.upstream, metrics);
  const spill = persistent ? SpillLog.open({ ...resolved.persistence, directory }) : undefined;
  const state = new GatewayState({
    config: resolved,
    metrics,
    store: new TraceStore(resolved.limits, resolved.hold),
    forwarder,
    revisable: new RevisableTraces(),
    gauge: new LoadGauge(),
    spill,
    window: undefined,
  });
  const responder = new Responder(state);
  // One thread (workers: 0): this intake holds what it accepts itself.
  const intake = new Intake(state, responder, new LocalHolder(state, responder));
  const server = createServer((request, response) => void intake.receive(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await forwarder.stop();
    await spill?.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`, state, spill };
}

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly reusedSocket: boolean;
}

/** POSTs `body` with `headers` (content-length set), over `agent` when given. */
function post(url: string, body: Buffer, headers: Record<string, string>, agent?: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: 'POST', agent, headers: { 'content-length': String(body.length), ...headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
            reusedSocket: request.reusedSocket,
          }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');
/** Spans `[trace, span]` numbered, encoded as a request. */
const spans = (...ids: [number, number][]) =>
  encodableSpansOf(ids.map(([t, s]) => decodedSpan(hex(t, 32), hex(s, 16))));
const json = (...ids: [number, number][]) => Buffer.from(encodeTraceRequestJson(spans(...ids)));
const protobuf = (...ids: [number, number][]) => Buffer.from(encodeTraceRequestProtobuf(spans(...ids)));
const JSON_TYPE = { 'content-type': 'application/json' };

describe('what the intake accepts', () => {
  it.each([
    ['protobuf', protobuf, 'application/x-protobuf', ''],
    ['json', json, 'application/json', '{}'],
  ] as const)('a %s request is answered 200 in its encoding and held', async (_name, encode, type, answer) => {
    const { url, state } = await intakeOn();
    const reply = await post(url, encode([1, 1], [1, 2]), { 'content-type': type });
    expect([reply.status, reply.headers['content-type'], reply.body.toString()]).toEqual([200, type, answer]);
    const { store, metrics } = state.parts;
    expect([store.spans, store.traces, metrics.spansReceived, metrics.requests.get('200')]).toEqual([2, 1, 2, 1]);
    expect([state.inHand, state.readingBytes]).toEqual([0, 0]);
  });

  it('spans without ids are left out and named in partial success; the others are held', async () => {
    const { url, state } = await intakeOn();
    const request = JSON.parse(json([1, 1]).toString()) as {
      resourceSpans: { scopeSpans: { spans: object[] }[] }[];
    };
    request.resourceSpans[0]!.scopeSpans[0]!.spans.push({ name: 'no ids', startTimeUnixNano: '1' });
    const reply = await post(url, Buffer.from(JSON.stringify(request)), JSON_TYPE);
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body.toString())).toEqual({
      partialSuccess: { rejectedSpans: 1, errorMessage: '1 span(s) without ids or start time were rejected' },
    });
    expect([state.parts.store.spans, state.parts.metrics.refusedSpans.get('malformed')]).toEqual([1, 1]);
  });

  it('a protobuf answer carries the same partial success', async () => {
    const { url } = await intakeOn();
    const body = Buffer.from(encodeTraceRequestProtobuf([...spans([1, 1]), { ...spans([2, 2])[0]!, spanId: '' }]));
    const reply = await post(url, body, { 'content-type': 'application/x-protobuf' });
    expect(reply.status).toBe(200);
    const expected = { rejectedSpans: 1, errorMessage: '1 span(s) without ids or start time were rejected' };
    expect(reply.body).toEqual(Buffer.from(encodeExportTraceResponse(expected)));
  });

  it('a request sent again (a retry) is acknowledged and its spans held once', async () => {
    const { url, state } = await intakeOn();
    const body = json([1, 1], [1, 2]);
    expect((await post(url, body, JSON_TYPE)).status).toBe(200);
    expect((await post(url, body, JSON_TYPE)).status).toBe(200);
    expect([state.parts.store.spans, state.parts.metrics.spansReceived, state.parts.metrics.spansDuplicate]).toEqual([
      2, 2, 2,
    ]);
  });

  it('with a persistent queue, the request is on disk before it is acknowledged, and held with its record', async () => {
    const { url, state, spill } = await intakeOn({}, true);
    const body = json([1, 1], [1, 2]);
    expect((await post(url, body, JSON_TYPE)).status).toBe(200);
    // One record: a 13-byte header and the body.
    expect(spill!.bytes).toBe(13 + body.length);
    const [trace] = state.parts.store.takeReady(Date.now(), true);
    expect(trace!.records.map((r) => (r as SpillRecord | undefined)?.pending)).toEqual([2, 2]);
    expect(trace!.records[0]).toBe(trace!.records[1]);
  });
});

interface RefusalCase {
  readonly name: string;
  readonly config?: Config;
  readonly persistent?: boolean;
  readonly prepare?: (state: GatewayState) => Promise<void> | void;
  readonly headers?: Record<string, string>;
  readonly body?: Buffer;
  readonly status: number;
  readonly message: string;
  readonly reason: string;
  readonly spans: number;
  /** `Retry-After` sent, and the sender expected back (`store.partsUntil`). */
  readonly retried?: boolean;
  /** Every trace waits for the refused sender. */
  readonly holds?: boolean;
  /** `connection: close`. */
  readonly close?: boolean;
}

/** Starts a delivery that fails at once (nothing listens upstream) and then backs off for ten minutes. */
const upstreamDown = async (state: GatewayState) => {
  state.parts.forwarder.send(spans([50, 50]));
  await waitFor(() => state.parts.forwarder.consecutiveFailures === 1, { what: 'the upstream attempt to fail' });
};

const refusals: RefusalCase[] = [
  {
    name: 'a content type OTLP/HTTP does not use: 415',
    headers: { 'content-type': 'text/plain' },
    status: 415,
    message: 'content-type must be application/x-protobuf or application/json',
    reason: 'unsupported',
    spans: 0,
  },
  {
    name: 'a content encoding other than gzip: 415',
    headers: { ...JSON_TYPE, 'content-encoding': 'br' },
    status: 415,
    message: 'unsupported content-encoding br',
    reason: 'unsupported',
    spans: 0,
  },
  {
    name: 'a body over limits.maxBodyBytes: 413, the connection closed',
    config: { limits: { maxBodyBytes: 64 } },
    body: json([1, 1], [1, 2], [1, 3]),
    status: 413,
    message: `body of ${json([1, 1], [1, 2], [1, 3]).length} bytes exceeds 64`,
    reason: 'too_large',
    spans: 0,
    close: true,
  },
  {
    name: 'a declared length that does not fit limits.maxHeldBytes: 429 before it is read',
    config: { limits: { maxHeldBytes: 100 } },
    status: 429,
    message: 'gateway is holding as much as it may',
    reason: 'capacity',
    spans: 0,
    retried: true,
  },
  {
    name: 'a body that is not JSON: 400',
    body: Buffer.from('{"resourceSpans": ['),
    status: 400,
    message: 'malformed OTLP JSON: body is not valid JSON',
    reason: 'malformed',
    spans: 0,
  },
  {
    name: 'a request that could never fit: 413',
    config: { limits: { maxSpans: 1 } },
    body: json([1, 1], [1, 2]),
    status: 413,
    message: 'request too large: 2 spans exceed limits.maxSpans (1)',
    reason: 'too_large',
    spans: 2,
  },
  {
    name: 'a gateway shutting down: 503, the connection closed',
    prepare: (state) => {
      state.closing = true;
    },
    status: 503,
    message: 'gateway is shutting down',
    reason: 'closing',
    spans: 1,
    retried: true,
    close: true,
  },
  {
    name: 'upstream failing: 503, every trace held for the sender',
    config: { limits: { upstreamFailingAttempts: 1 } },
    prepare: upstreamDown,
    status: 503,
    message: 'upstream is failing (1 attempt in a row)',
    reason: 'upstream_failing',
    spans: 1,
    retried: true,
    holds: true,
  },
  {
    name: 'the forward backlog full: 503, every trace held for the sender',
    config: { limits: { maxForwardBacklogSpans: 1 } },
    prepare: upstreamDown,
    status: 503,
    message: 'upstream backlog is full',
    reason: 'backlog',
    spans: 1,
    retried: true,
    holds: true,
  },
  {
    name: 'the store full (limits.maxTraces): 429, traces not held',
    config: { limits: { maxTraces: 1 } },
    status: 429,
    message: 'gateway is holding as much as it may',
    reason: 'capacity',
    spans: 1,
    retried: true,
  },
  {
    name: 'the persistent queue full: 503, nothing acknowledged or held',
    config: { persistence: { maxBytes: 16 } },
    persistent: true,
    status: 503,
    message: 'persistent queue is full',
    reason: 'persistence',
    spans: 1,
    retried: true,
  },
];

describe('what the intake refuses', () => {
  it.each(refusals)('$name', async (c) => {
    const { url, state } = await intakeOn(c.config, c.persistent);
    const { store, metrics } = state.parts;
    // A trace already held: whether it waits for the refused sender shows whether traces are held for it.
    store.add([decodedSpan(hex(99, 32), hex(99, 16))], Date.now());
    await c.prepare?.(state);
    const reply = await post(url, c.body ?? json([1, 1]), c.headers ?? JSON_TYPE);
    expect([reply.status, reply.headers['content-type']]).toEqual([c.status, 'application/json']);
    expect(JSON.parse(reply.body.toString())).toEqual({ code: c.status, message: c.message });
    expect(reply.headers['retry-after']).toBe(c.retried ? '5' : undefined);
    expect(reply.headers.connection === 'close').toBe(c.close ?? false);
    expect([metrics.refusedSpans.get(c.reason), metrics.refusedRequests.get(c.reason)]).toEqual([c.spans, 1]);
    expect([metrics.requests.get(String(c.status)), metrics.spansReceived, store.spans]).toEqual([1, 0, 1]);
    expect(store.partsUntil > Date.now()).toBe(c.retried ?? false);
    // Past the decision wait (2 s) and short of the sender's way back (15 s + 2 s).
    expect(store.takeReady(Date.now() + 3_000).length === 0).toBe(c.holds ?? false);
    expect([state.inHand, state.readingBytes]).toEqual([0, 0]);
  });

  it('a request refused before its body is read leaves the connection usable for the next one', async () => {
    const { url } = await intakeOn();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    cleanups.push(() => agent.destroy());
    const refused = await post(url, json([1, 1]), { 'content-type': 'text/plain' }, agent);
    const next = await post(url, json([1, 1]), JSON_TYPE, agent);
    expect([refused.status, next.status, next.reusedSocket]).toEqual([415, 200, true]);
  });
});

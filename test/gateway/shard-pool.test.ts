/**
 * A gateway with worker threads, on real threads, real HTTP on 127.0.0.1 and a real counting upstream: every span of
 * a trace reaches the same worker, across requests and encodings, so runs are judged as a gateway without workers
 * judges them; a worker ended mid-hold is started again, counted and logged, and every acknowledged span is
 * delivered as its trace would have been (from the persistent queue), or, without one, counted as dropped; a request
 * refused is refused whole.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiagLogLevel, diag } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayConfigInput } from '../../src/gateway/config.js';
import type { Gateway } from '../../src/gateway/gateway.js';
import { startGateway } from '../../src/gateway/gateway.js';
import { resolveGatewayConfig } from '../../src/gateway/config.js';
import { GatewayMetrics } from '../../src/gateway/gateway-metrics.js';
import { ShardPool } from '../../src/gateway/shard-pool.js';
import { partOfTraceIdHex } from '../../src/gateway/trace-router.js';
import { encodableSpansOf } from '../../src/otlp/encodable-of-decoded.js';
import { encodeTraceRequestProtobuf } from '../../src/otlp/otlp-encode.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { startUpstream } from '../support/upstream.js';
import { waitFor } from '../support/wait-for.js';

type Upstream = Awaited<ReturnType<typeof startUpstream>>;
const open: { gateways: Gateway[]; upstreams: Upstream[]; dirs: string[] } = { gateways: [], upstreams: [], dirs: [] };
afterEach(async () => {
  diag.disable();
  for (const gateway of open.gateways) await gateway.close();
  for (const upstream of open.upstreams) await upstream.close();
  for (const dir of open.dirs) rmSync(dir, { recursive: true, force: true });
  open.gateways = [];
  open.upstreams = [];
  open.dirs = [];
});

const WORKERS = 3;
const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');
const NOW = BigInt(Date.now()) * 1_000_000n;

/** Trace `i`: a run span, and two chat attempts of which the first failed, as OTLP/JSON spans. */
function trace(i: number): { run: object; attempts: object[] } {
  const traceId = hex(i * 2654435761 + 1, 32);
  const runId = hex(10 * i + 1, 16);
  const span = (n: number, name: string, operation: string, extra: object = {}) => ({
    traceId,
    spanId: hex(10 * i + n, 16),
    parentSpanId: n === 1 ? undefined : runId,
    name,
    kind: 1,
    startTimeUnixNano: String(NOW - 10_000_000n + BigInt(n) * 1000n),
    endTimeUnixNano: String(NOW - BigInt(10 - n) * 1000n),
    attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: operation } }],
    status: {},
    ...extra,
  });
  return {
    run: span(1, 'invoke_agent helper', 'invoke_agent'),
    attempts: [
      span(2, 'chat model', 'chat', {
        status: { code: 2, message: 'overloaded' },
        attributes: [
          { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
          { key: 'error.type', value: { stringValue: '529' } },
        ],
      }),
      span(3, 'chat model', 'chat'),
    ],
  };
}

const request = (spans: object[]) => ({
  resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'pool-test' }, spans }] }],
});

/** The traces' runs in one JSON request and their attempts in one protobuf request: each trace crosses both. */
function bodies(traces: number[]): { json: string; protobuf: Uint8Array } {
  const all = traces.map(trace);
  return {
    json: JSON.stringify(request(all.map((t) => t.run))),
    protobuf: encodeTraceRequestProtobuf(
      encodableSpansOf(decodeOtlpJsonSpans(request(all.flatMap((t) => t.attempts)))),
    ),
  };
}

type Config = Partial<Omit<GatewayConfigInput, 'upstream'>>;

/** A gateway with WORKERS workers (unless `config` says otherwise) that holds traces a minute (unless …). */
async function start(config: Config = {}): Promise<{ gateway: Gateway; pool: ShardPool; upstream: Upstream }> {
  const upstream = await startUpstream();
  open.upstreams.push(upstream);
  const { gateway, pool } = await startGateway({
    listen: { host: '127.0.0.1', port: 0 },
    workers: WORKERS,
    ...config,
    hold: {
      decisionWaitMillis: 60_000,
      maxHoldMillis: 120_000,
      tickMillis: 10,
      refusedSenderBackoffMillis: 0,
      ...config.hold,
    },
    upstream: { endpoint: upstream.endpoint, initialBackoffMillis: 10, maxBackoffMillis: 50 },
  });
  open.gateways.push(gateway);
  return { gateway, pool: pool!, upstream };
}

/**
 * The verdicts a gateway without workers gives the same requests, with the same configuration: flushed once they
 * are held, or left to release them itself.
 */
async function reference(config: Config, traces: number[], flush: boolean): Promise<Map<string, unknown>> {
  const directory = config.persistence?.directory === undefined ? undefined : scratch();
  const { gateway, upstream } = await start({ ...config, workers: 0, persistence: { directory } });
  await send(gateway, traces);
  if (flush) await gateway.flush();
  await waitFor(() => upstream.received.length === 3 * traces.length, {
    what: 'the reference gateway delivered every span',
    timeoutMs: 20_000,
  });
  return verdicts(upstream);
}

function scratch(): string {
  const directory = mkdtempSync(join(tmpdir(), 'gateway-pool-'));
  open.dirs.push(directory);
  return directory;
}

async function send(gateway: Gateway, traces: number[]): Promise<number[]> {
  const { json, protobuf } = bodies(traces);
  const post = (body: string | Uint8Array, type: string) =>
    fetch(`${gateway.url}/v1/traces`, { method: 'POST', headers: { 'content-type': type }, body }).then(
      (r) => r.status,
    );
  return [await post(json, 'application/json'), await post(protobuf, 'application/x-protobuf')];
}

/** The verdict each trace's run got upstream, by trace id. */
function verdicts(upstream: Upstream): Map<string, unknown> {
  return new Map(
    upstream.received
      .filter((span) => span.name.startsWith('invoke_agent'))
      .map((span) => [span.traceId, [span.attributes['incident.outcome'], span.attributes['incident.attempts']]]),
  );
}

const TRACES = Array.from({ length: 12 }, (_, i) => i + 1);
const distinct = (upstream: Upstream): number => new Set(upstream.received.map((s) => s.spanId)).size;

describe('a gateway with workers', () => {
  it('holds every span of a trace in one worker, the one its trace id names, across requests and encodings', async () => {
    const { gateway, pool, upstream } = await start();
    expect(await send(gateway, TRACES)).toEqual([200, 200]);
    await waitFor(() => pool.counters.total().spans === 3 * TRACES.length, { what: 'every span held' });
    for (let shard = 0; shard < WORKERS; shard += 1) {
      const mine = TRACES.filter((i) => partOfTraceIdHex(hex(i * 2654435761 + 1, 32), WORKERS) === shard);
      expect(pool.counters.read(shard)).toMatchObject({ traces: mine.length, spans: 3 * mine.length });
    }
    await gateway.flush();
    // Judged whole, both attempts under their run (the first failed and retried), as without workers.
    const judged = verdicts(upstream);
    expect(judged.size).toBe(TRACES.length);
    expect(judged).toEqual(await reference({}, TRACES, true));
    expect([...judged.values()][0]).toEqual(['recovered', 2]);
    const page = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(page).toContain(`agent_incidents_gateway_workers ${WORKERS}`);
    expect(page).toContain(`agent_incidents_gateway_spans_received_total ${3 * TRACES.length}`);
    expect(page).toContain(`agent_incidents_gateway_spans_forwarded_total ${3 * TRACES.length}`);
    expect(page).toContain('agent_incidents_gateway_worker_restarts_total 0');
  });

  it('refuses a request whole when one worker cannot decode its part, and holds none of it', async () => {
    const { gateway, pool } = await start();
    const { json } = bodies(TRACES);
    // One span's attribute nested deeper than any sender nests it: only its worker finds out.
    const deep = `${'{"arrayValue":{"values":['.repeat(200)}{"stringValue":"x"}${']}}'.repeat(200)}`;
    const body = json.replace('"attributes":[', `"attributes":[{"key":"deep","value":${deep}},`);
    const response = await fetch(`${gateway.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(400);
    expect(await send(gateway, [99])).toEqual([200, 200]);
    await waitFor(() => pool.counters.total().spans === 3, { what: 'the next request held' });
    expect(pool.counters.total().traces).toBe(1);
  });

  it.each([
    ['with a persistent queue: read back and sent to its successor, judged as its trace would have been', true],
    ['without one: counted as dropped and logged', false],
  ])('starts a worker ended mid-hold again, counts and logs it; what it held is %s', async (_name, persist) => {
    const logged: string[] = [];
    diag.setLogger(
      {
        error: (m: string) => logged.push(m),
        warn: () => undefined,
        info: () => undefined,
        debug: () => undefined,
        verbose: () => undefined,
      },
      DiagLogLevel.ERROR,
    );
    const directory = persist ? scratch() : undefined;
    // Held 3 s after their last span: the worker is ended well before, and the traces leave on their own after.
    const config: Config = { persistence: { directory }, hold: { decisionWaitMillis: 3_000 } };
    const { gateway, pool, upstream } = await start(config);
    expect(await send(gateway, TRACES)).toEqual([200, 200]);
    await waitFor(() => pool.counters.total().spans === 3 * TRACES.length, { what: 'every span held' });
    const victim = 1;
    const held = pool.counters.read(victim).spans;
    expect(held).toBeGreaterThan(0);
    const before = pool.worker(victim)!;
    await before.terminate();
    await waitFor(() => gateway.metrics.workerRestarts === 1 && pool.worker(victim) !== before, {
      what: 'the worker started again',
    });
    expect(logged.some((line) => line.includes(`worker ${victim} exited`))).toBe(true);
    const expected = persist ? 3 * TRACES.length : 3 * TRACES.length - held;
    await waitFor(() => distinct(upstream) === expected, { what: 'every span left delivered', timeoutMs: 20_000 });
    const page = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(page).toContain('agent_incidents_gateway_worker_restarts_total 1');
    if (persist) {
      // Every acknowledged span delivered, each run judged whole, as a gateway without workers judges it.
      const judged = verdicts(upstream);
      expect(judged).toEqual(await reference(config, TRACES, false));
      expect([...judged.values()][0]).toEqual(['recovered', 2]);
      expect(gateway.metrics.spansRecovered).toBe(held);
      await gateway.close();
      // Delivered by every worker: the queue forgot every request.
      expect(readdirSync(directory!).filter((name) => name.startsWith('segment-'))).toEqual([]);
    } else {
      expect(gateway.metrics.droppedSpans.get('worker_exited')).toBe(held);
      expect(logged.some((line) => line.includes(`${held} spans held by worker ${victim} are dropped`))).toBe(true);
    }
  });
});

describe('a worker that cannot start', () => {
  it('is started again after a doubling backoff, never in a loop, and a request meanwhile gets 503', async () => {
    const metrics = new GatewayMetrics();
    const config = resolveGatewayConfig({ upstream: { endpoint: 'http://127.0.0.1:1/v1/traces' } });
    const pool = new ShardPool({
      config,
      metrics,
      spill: undefined,
      workers: 1,
      entry: new URL('./no-such-worker.mjs', import.meta.url),
    });
    diag.setLogger(
      {
        error: () => undefined,
        warn: () => undefined,
        info: () => undefined,
        debug: () => undefined,
        verbose: () => undefined,
      },
      DiagLogLevel.ERROR,
    );
    pool.start();
    const started = performance.now();
    await waitFor(() => metrics.workerRestarts >= 4, { what: 'four restarts', timeoutMs: 10_000 });
    // 50, 100 and 200 ms of backoff at least between the first four exits.
    expect(performance.now() - started).toBeGreaterThanOrEqual(350);
    const [staged] = await pool.stage([{ body: new Uint8Array([0]), spans: 1 }], 'protobuf', 10);
    expect(staged?.part).toMatchObject({ ok: false, status: 503 });
    await pool.terminate();
  });
});

/**
 * Scale-out end to end, all on 127.0.0.1: agent-run traces → tier 1
 * (deploy/collector/scale-out.yaml as shipped, on otelcol-lb: `load_balancing`
 * by trace ID) → tier 2 (two deploy/collector/scale-out-sidecar.yaml, set by
 * their environment variables only) → two gateways → one OTLP sink per
 * gateway. The same requests also go straight to a third, reference gateway.
 *
 * Checks that every span reaches exactly one gateway, that all spans of a
 * trace reach the same one although they were sent in different requests,
 * that both gateways get traces, and that the verdicts (incident.* on every
 * span) are those the reference gateway gives alone.
 *
 * Runs only under `npm run test:e2e`; needs scripts/ci/install-otelcol-lb.sh
 * first. Uses the fixed ports of the two files (4317, 4318, 8888; sidecars
 * 4417, 4427; gateways 4319, 4329) and fails at once if one is taken.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { playFleet } from '../../src/demo/fleet.js';
import { KeepingExporter } from '../support/keeping-exporter.js';
import type { DecodedSpan, DecodedValue } from '../../src/otlp/otlp-json-spans.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { decodeExportTraceRequest } from '../../src/otlp/otlp-protobuf.js';
import { RunRecorder } from '../../src/runtime/run-recorder.js';
import {
  freePort,
  getJson,
  listening,
  OTELCOL_LB_PATH,
  otelcolLbBinary,
  ROOT,
  Service,
  sleep,
  tails,
  waitFor,
} from './support.js';

const E2E = process.env.AGENT_INCIDENTS_E2E === '1';
const TIER1_CONFIG = 'deploy/collector/scale-out.yaml';
const SIDECAR_CONFIG = 'deploy/collector/scale-out-sidecar.yaml';
const GATEWAY_CONFIG = join(ROOT, 'deploy/collector/gateway.yaml');
/** The gateways' listen ports, as scale-out.yaml's comments name them (sidecar N → gateway N). */
const GATEWAY_PORTS = [4319, 4329];
const RUNS = 200;
const SEED = 14;
/** Traces starting in each export request; span k of a trace goes k requests later, so traces straddle requests. */
const TRACES_PER_REQUEST = 20;
/** Pause between requests, past tier 1's batch timeout (200ms), so consecutive requests leave in different batches. */
const PAUSE_MILLIS = 250;
/** The gateways fold a trace whose run span never comes (a crashed agent) this long after its first span. */
const MAX_HOLD_MILLIS = 3000;

type Doc = Record<string, unknown>;

/** Tier 1's backends: the sidecars' OTLP/gRPC addresses, from the shipped file. */
function sidecarAddresses(): string[] {
  const doc = parse(readFileSync(join(ROOT, TIER1_CONFIG), 'utf8')) as {
    exporters: { load_balancing: { resolver: { static: { hostnames: string[] } } } };
  };
  return doc.exporters.load_balancing.resolver.static.hostnames;
}

/** deploy/collector/gateway.yaml with its own listen port and upstream (and queue directory, when it has one). */
function gatewayConfig(dir: string, name: string, port: number, upstream: string): string {
  const doc = parse(readFileSync(GATEWAY_CONFIG, 'utf8')) as Doc;
  doc.listen = { ...(doc.listen as Doc), host: '127.0.0.1', port };
  doc.upstream = { ...(doc.upstream as Doc), endpoint: upstream };
  doc.hold = { ...(doc.hold as Doc), maxHoldMillis: MAX_HOLD_MILLIS };
  if (doc.persistence && typeof doc.persistence === 'object')
    doc.persistence = { ...(doc.persistence as Doc), directory: join(dir, `${name}-queue`) };
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, JSON.stringify(doc, null, 1)); // JSON is YAML
  return file;
}

/** An OTLP/HTTP traces receiver on 127.0.0.1 that keeps every span it is sent (protobuf or JSON, gzip or not). */
async function startSink(name: string) {
  const spans: DecodedSpan[] = [];
  const failures: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      try {
        let body = Buffer.concat(chunks);
        if (request.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        const json = String(request.headers['content-type'] ?? '').includes('json');
        spans.push(...decodeOtlpJsonSpans(json ? JSON.parse(body.toString('utf8')) : decodeExportTraceRequest(body)));
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    name,
    endpoint: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    failures,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
type Sink = Awaited<ReturnType<typeof startSink>>;

/**
 * The demo fleet's runs (every cause and phase, crashed agents included)
 * recorded with RunRecorder but without the SDK processor: plain spans, for
 * the gateways to judge.
 */
async function agentRunSpans(): Promise<ReadableSpan[]> {
  const keeping = new KeepingExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'agent-incidents-scale-out' }),
    spanProcessors: [new SimpleSpanProcessor(keeping)],
  });
  const tracer = provider.getTracer('agent-incidents-scale-out');
  let index = 0;
  playFleet({
    runs: RUNS,
    seed: SEED,
    startRun: () =>
      RunRecorder.start({
        tracer,
        agentName: 'scale-out-agent',
        providerName: index++ % 2 === 0 ? 'openai' : 'anthropic',
        model: 'gpt-5-mini',
      }),
  });
  await provider.shutdown();
  return keeping.spans;
}

/**
 * Export requests in which every trace of more than one span is spread over
 * consecutive requests: trace t starts in request ⌊t / TRACES_PER_REQUEST⌋ and
 * its k-th span (in end order, so the run span comes last) goes k requests later.
 */
function exportRequests(spans: readonly ReadableSpan[]): ReadableSpan[][] {
  const byTrace = new Map<string, ReadableSpan[]>();
  for (const span of spans) {
    const id = span.spanContext().traceId;
    byTrace.set(id, [...(byTrace.get(id) ?? []), span]);
  }
  const requests: ReadableSpan[][] = [];
  [...byTrace.values()].forEach((trace, t) =>
    trace.forEach((span, k) => {
      (requests[Math.floor(t / TRACES_PER_REQUEST) + k] ??= []).push(span);
    }),
  );
  return requests;
}

/** Posts as an OTLP exporter does: a 429 or 503 (the gateway shedding load) is sent again after its Retry-After. */
async function post(url: string, body: Uint8Array): Promise<void> {
  if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(url)) throw new Error(`refusing non-loopback URL ${url}`);
  for (let attempt = 1; ; attempt += 1) {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    await response.arrayBuffer();
    if (response.status === 200) return;
    if ((response.status !== 429 && response.status !== 503) || attempt === 10)
      throw new Error(`${url} answered ${response.status} (attempt ${attempt})`);
    await new Promise((resolve) =>
      setTimeout(resolve, 1000 * Math.min(5, Number(response.headers.get('retry-after') ?? 1))),
    );
  }
}

/** The verdict keys of a span (incident.*) and its status code. */
function verdictOf(span: DecodedSpan): Record<string, DecodedValue> {
  const verdict: Record<string, DecodedValue> = { 'status.code': span.statusCode };
  for (const [key, value] of Object.entries(span.attributes)) if (key.startsWith('incident.')) verdict[key] = value;
  return verdict;
}

const isRunSpan = (span: DecodedSpan): boolean => span.attributes['gen_ai.operation.name'] === 'invoke_agent';

describe.skipIf(!E2E)('scale-out: scale-out.yaml → two sidecars → two gateways (npm run test:e2e)', () => {
  const services: Service[] = [];
  const sinks: Sink[] = [];
  let reference: Sink;
  let scratch = '';
  let sent: ReadableSpan[] = [];
  let requests: ReadableSpan[][] = [];

  const start = (name: string, command: string, args: string[], env?: NodeJS.ProcessEnv): Service => {
    const service = new Service(name, command, args, { env });
    services.push(service);
    return service;
  };

  beforeEach(({ onTestFailed }) => {
    onTestFailed(() => {
      process.stderr.write(`\nOutput of the services at the failure:\n${tails(services)}\n`);
    });
  });

  beforeAll(async () => {
    const otelcol = otelcolLbBinary();
    if (!otelcol)
      throw new Error(
        `no otelcol-lb binary at ${OTELCOL_LB_PATH}: run scripts/ci/install-otelcol-lb.sh (or set AGENT_INCIDENTS_OTELCOL_LB)`,
      );
    const sidecars = sidecarAddresses();
    expect(sidecars).toHaveLength(GATEWAY_PORTS.length);
    const sidecarPorts = sidecars.map((address) => Number(address.split(':')[1]));
    const taken = [];
    for (const port of [4317, 4318, 8888, ...sidecarPorts, ...GATEWAY_PORTS])
      if (await listening(port)) taken.push(port);
    if (taken.length > 0)
      throw new Error(
        `127.0.0.1 port(s) ${taken.join(', ')} already in use: stop whatever listens there (another collector or gateway?)`,
      );
    scratch = mkdtempSync(join(tmpdir(), 'agent-incidents-scale-out-'));

    // 1. One sink per gateway, and the reference gateway with its own.
    for (let i = 0; i < GATEWAY_PORTS.length; i += 1) sinks.push(await startSink(`sink of gateway ${i + 1}`));
    reference = await startSink('sink of the reference gateway');
    // 2. The gateways.
    const referencePort = await freePort();
    const gateways: [string, number, Sink][] = [
      ...GATEWAY_PORTS.map((port, i): [string, number, Sink] => [`gateway-${i + 1}`, port, sinks[i]!]),
      ['gateway-reference', referencePort, reference],
    ];
    for (const [name, port, sink] of gateways) {
      start(`${name} (deploy/collector/gateway.yaml on :${port})`, process.execPath, [
        'dist/cli.js',
        'gateway',
        '--config',
        gatewayConfig(scratch, name, port, sink.endpoint),
      ]);
    }
    for (const [name, port] of gateways) {
      await waitFor(
        `${name} /healthz`,
        async () => ((await getJson(`http://127.0.0.1:${port}/healthz`)).status === 200 ? true : undefined),
        { timeoutMillis: 30_000, services },
      );
    }
    // 3. Tier 2: one sidecar per gateway, as shipped, set by its environment variables.
    sidecars.forEach((address, i) => {
      start(
        `sidecar ${i + 1} (${SIDECAR_CONFIG}, ${address} → :${GATEWAY_PORTS[i]})`,
        otelcol,
        [`--config=${SIDECAR_CONFIG}`],
        {
          AGENT_INCIDENTS_SIDECAR_LISTEN: address,
          AGENT_INCIDENTS_GATEWAY_ENDPOINT: `http://127.0.0.1:${GATEWAY_PORTS[i]}`,
        },
      );
    });
    for (const port of sidecarPorts)
      await waitFor(`sidecar on :${port}`, async () => ((await listening(port)) ? true : undefined), {
        timeoutMillis: 30_000,
        services,
      });
    // 4. Tier 1, as shipped: no --set, no copy.
    start(`tier 1 (${TIER1_CONFIG})`, otelcol, [`--config=${TIER1_CONFIG}`]);
    await waitFor(
      'tier 1 receivers and its own metrics',
      async () =>
        (await listening(4317)) &&
        (await listening(4318)) &&
        (await getJson('http://127.0.0.1:8888/metrics')).status === 200
          ? true
          : undefined,
      { timeoutMillis: 30_000, services },
    );

    // 5. The same requests to tier 1 and to the reference gateway.
    sent = await agentRunSpans();
    requests = exportRequests(sent);
    for (const request of requests) {
      const body = ProtobufTraceSerializer.serializeRequest(request);
      if (!body) throw new Error('could not serialize an export request');
      await Promise.all([
        post('http://127.0.0.1:4318/v1/traces', body),
        post(`http://127.0.0.1:${referencePort}/v1/traces`, body),
      ]);
      await sleep(PAUSE_MILLIS);
    }
    const count = (list: readonly Sink[]): number => list.reduce((n, s) => n + s.spans.length, 0);
    await waitFor(
      `all ${sent.length} spans at the sinks, through both paths`,
      async () => (count(sinks) >= sent.length && reference.spans.length >= sent.length ? true : undefined),
      {
        timeoutMillis: 60_000,
        services,
        describe: () =>
          `scale-out sinks ${sinks.map((s) => s.spans.length).join(' + ')}, reference ${reference.spans.length}, of ${sent.length}`,
      },
    );
    // Anything duplicated would still be on its way: give it a moment to show.
    await sleep(1000);
  }, 180_000);

  afterAll(async () => {
    for (const service of [...services].reverse()) await service.stop();
    for (const sink of [...sinks, ...(reference ? [reference] : [])]) await sink.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('sends plain agent runs, unjudged, with traces split across export requests', () => {
    expect(sent.filter((s) => s.attributes['gen_ai.operation.name'] === 'invoke_agent').length).toBeGreaterThan(
      RUNS * 0.9,
    );
    // The recorder marks spans cut off at their run's end (incident.truncated); verdicts are the gateways' to write.
    const verdictKeys = sent
      .flatMap((s) => Object.keys(s.attributes))
      .filter((k) => k.startsWith('incident.') && k !== 'incident.truncated');
    expect(verdictKeys).toEqual([]);
    const requestsOfTrace = new Map<string, Set<number>>();
    requests.forEach((request, i) => {
      for (const span of request) {
        const id = span.spanContext().traceId;
        requestsOfTrace.set(id, (requestsOfTrace.get(id) ?? new Set()).add(i));
      }
    });
    expect(requestsOfTrace.size).toBeGreaterThan(RUNS * 0.9); // a crashed run that ended no span sends nothing
    expect([...requestsOfTrace.values()].filter((r) => r.size > 1).length).toBeGreaterThan(RUNS / 2);
  });

  it('delivers every span to exactly one gateway, and every span of a trace to the same one', () => {
    for (const sink of [...sinks, reference]) expect(sink.failures, sink.name).toEqual([]);
    const sentIds = sent.map((s) => s.spanContext().spanId).sort();
    const delivered = sinks.flatMap((sink) => sink.spans.map((s) => s.spanId)).sort();
    expect(delivered).toEqual(sentIds); // none lost, none twice
    const gatewayOfTrace = new Map<string, Set<number>>();
    sinks.forEach((sink, i) => {
      for (const span of sink.spans)
        gatewayOfTrace.set(span.traceId, (gatewayOfTrace.get(span.traceId) ?? new Set()).add(i));
    });
    const split = [...gatewayOfTrace].filter(([, gateways]) => gateways.size > 1).map(([trace]) => trace);
    expect(split, 'traces whose spans reached more than one gateway').toEqual([]);
    const tracesPerGateway = sinks.map((_, i) => [...gatewayOfTrace.values()].filter((g) => g.has(i)).length);
    for (const [i, n] of tracesPerGateway.entries())
      expect(
        n,
        `traces through gateway ${i + 1} (of ${gatewayOfTrace.size}: ${tracesPerGateway.join(' / ')})`,
      ).toBeGreaterThan(RUNS / 10);
  });

  it('gives the verdicts one gateway alone gives', () => {
    expect(reference.spans.map((s) => s.spanId).sort()).toEqual(sent.map((s) => s.spanContext().spanId).sort());
    const verdicts = (spans: readonly DecodedSpan[]): Map<string, Record<string, DecodedValue>> =>
      new Map(spans.map((s) => [s.spanId, verdictOf(s)]));
    const scaledOut = verdicts(sinks.flatMap((s) => s.spans));
    const alone = verdicts(reference.spans);
    expect(scaledOut).toEqual(alone);
    // …and those are real verdicts: every run span judged, with various causes.
    const runSpans = sinks.flatMap((s) => s.spans).filter(isRunSpan);
    expect(runSpans.length).toBeGreaterThan(RUNS * 0.9);
    for (const span of runSpans) expect(typeof span.attributes['incident.outcome'], span.name).toBe('string');
    const causes = new Set(runSpans.map((s) => s.attributes['incident.cause']).filter((c) => c !== undefined));
    expect(causes.size).toBeGreaterThanOrEqual(4);
  });

  it('tier 1 reports its load balancing in its own metrics (telemetry as shipped)', async () => {
    const { status, body } = await getJson('http://127.0.0.1:8888/metrics');
    expect(status).toBe(200);
    expect(String(body)).toMatch(/otelcol_loadbalancer_/);
  });
});

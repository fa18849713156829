/**
 * Gateway throughput and added latency against the OpenTelemetry Collector
 * (the Jaeger v2 binary) as a pass-through, like for like, in one run:
 *
 *   npm run bench:gateway      (needs the Jaeger binary: scripts/ci/install-jaeger.sh)
 *
 * - The gateway runs as operators run it, in its own process, with the
 *   shipped deploy/collector/gateway.yaml: its limits and hold times as they
 *   ship (2 s decision wait); only the listen port and upstream are rewritten.
 * - The collector runs an OTLP/HTTP receiver and an otlphttp exporter, nothing else.
 * - Both get the same OTLP/protobuf requests (runs of 6 spans with fact
 *   events, 100 runs a request) from the same 4 concurrent senders, which
 *   honour 429/503 and Retry-After as OTLP exporters do, and forward to the
 *   same counting receiver.
 * - Rounds alternate (G C C G …) after a warm-up of each. Throughput is
 *   spans over the time from the first request sent to the last span
 *   received, so the gateway's hold counts against it; latency is a
 *   request's send to the arrival of its last span (the hold included).
 *
 * The last line is `gateway_vs_collector_throughput_ratio=<x>` (median over median).
 * Knobs: BENCH_RUNS (30000 per round), BENCH_ROUNDS (3 per side).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { parse, stringify } from 'yaml';
import { RunRecorder } from '../dist/index.js';
import { decodeExportTraceRequest } from '../dist/otlp/otlp-protobuf.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 30_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RUNS_PER_REQUEST = 100;
const SENDERS = 4;
const JAEGER = process.env.AGENT_INCIDENTS_JAEGER ?? join(import.meta.dirname, '..', '.cache', 'bin', 'jaeger');

/** One standard run: 2 attempts (the first drops after text), 3 tools, 6 fact events. */
function recordRun(tracer) {
  const run = RunRecorder.start({ tracer, agentName: 'bench', providerName: 'openai', model: 'gpt-bench' });
  const boundary = {
    tools: [
      { name: 'read', sideEffects: 'read_only' },
      { name: 'bash', sideEffects: 'unsafe' },
    ],
  };
  const first = run.startAttempt({ boundary });
  first.textOutput();
  first.fail(
    Object.assign(new TypeError('terminated'), {
      cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    }),
  );
  run.retryIssued(first);
  const second = run.startAttempt({ boundary });
  for (const name of ['read', 'read', 'bash'])
    run.startTool({ name, sideEffects: name === 'bash' ? 'unsafe' : 'read_only', attempt: second }).complete();
  second.finish();
  run.end();
}

function buildRequests() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('bench-agent');
  const requests = [];
  let spans = 0;
  for (let i = 0; i < RUNS; i += RUNS_PER_REQUEST) {
    exporter.reset();
    for (let j = 0; j < RUNS_PER_REQUEST; j += 1) recordRun(tracer);
    const finished = exporter.getFinishedSpans();
    spans += finished.length;
    requests.push({ body: ProtobufTraceSerializer.serializeRequest(finished), spans: finished.length });
  }
  return { requests, spans };
}

/** An OTLP/HTTP receiver counting spans, resolving when `expected` arrived. */
async function startCounter() {
  let received = 0;
  let waiting;
  const arrivals = [];
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (c) => chunks.push(c));
    request.on('end', () => {
      const decoded = decodeExportTraceRequest(Buffer.concat(chunks));
      let n = 0;
      for (const rs of decoded.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) n += (ss.spans ?? []).length;
      received += n;
      arrivals.push({ at: performance.now(), total: received });
      response.writeHead(200, { 'content-type': 'application/x-protobuf' });
      response.end();
      if (waiting && received >= waiting.expected) waiting.resolve();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${server.address().port}/v1/traces`,
    reset() {
      received = 0;
      arrivals.length = 0;
    },
    received: () => received,
    until(expected) {
      return new Promise((resolve) => {
        waiting = { expected, resolve };
        if (received >= expected) resolve();
      });
    },
    arrivals,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Sends every request from SENDERS concurrent senders; 429/503 are retried after Retry-After, as OTLP exporters do. */
async function send(endpoint, requests, stats) {
  const sentAt = [];
  let next = 0;
  const sender = async () => {
    while (next < requests.length) {
      const index = next++;
      sentAt[index] = performance.now();
      for (;;) {
        const response = await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/x-protobuf' },
          body: requests[index].body,
        });
        await response.arrayBuffer();
        if (response.ok) break;
        if (response.status !== 429 && response.status !== 503)
          throw new Error(`${endpoint} answered ${response.status}`);
        stats.retries += 1;
        const seconds = Number(response.headers.get('retry-after'));
        await new Promise((resolve) =>
          setTimeout(resolve, Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000),
        );
      }
    }
  };
  await Promise.all(Array.from({ length: SENDERS }, sender));
  return sentAt;
}

/** Sends everything through `target`, waits for every span upstream; spans/s and latency percentiles. */
async function measure(label, target, counter, input) {
  counter.reset();
  const stats = { retries: 0 };
  const start = performance.now();
  const arrived = counter.until(input.spans);
  const sentAt = await send(target, input.requests, stats);
  await arrived;
  const seconds = (performance.now() - start) / 1000;
  // Latency: request i's spans are all upstream once the running total passes their cumulative count.
  const latencies = [];
  let cumulative = 0;
  let a = 0;
  const order = sentAt.map((at, i) => ({ at, spans: input.requests[i].spans })).sort((x, y) => x.at - y.at);
  for (const request of order) {
    cumulative += request.spans;
    while (a < counter.arrivals.length - 1 && counter.arrivals[a].total < cumulative) a += 1;
    latencies.push(counter.arrivals[a].at - request.at);
  }
  latencies.sort((x, y) => x - y);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(0);
  const rate = input.spans / seconds;
  const extra = counter.received() - input.spans;
  console.log(
    `${label.padEnd(34)}: ${Math.round(rate).toLocaleString('en')} spans/s, ${(input.bytes / seconds / 1e6).toFixed(1)} MB/s in; ` +
      `latency p50 ${pct(50)} ms, p99 ${pct(99)} ms; ${stats.retries} pushed back and resent; ${extra === 0 ? 'no span lost or doubled' : `${extra} spans more than sent`}`,
  );
  return rate;
}

/** The gateway as operators run it, in its own process (as the collector is): `agent-incidents gateway`. */
async function startGateway(upstream) {
  const dir = await mkdtemp(join(tmpdir(), 'bench-gateway-'));
  const config = join(dir, 'gateway.yaml');
  // The shipped configuration, with only where it listens and where it forwards rewritten.
  const shipped = parse(await readFile(join(import.meta.dirname, '..', 'deploy', 'collector', 'gateway.yaml'), 'utf8'));
  shipped.listen = { ...shipped.listen, port: 0 };
  shipped.upstream = { ...shipped.upstream, endpoint: upstream };
  await writeFile(config, stringify(shipped));
  const child = spawn(
    process.execPath,
    [join(import.meta.dirname, '..', 'dist', 'cli.js'), 'gateway', '--config', config],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const found = /listening on (\S+\/v1\/traces)/.exec(stderr)?.[1];
      if (found) resolve(found);
    });
    child.on('exit', (code) => reject(new Error(`the gateway exited (${code}):\n${stderr}`)));
  });
  return {
    endpoint: url,
    hold: shipped.hold,
    stop: () =>
      new Promise((resolve) => {
        child.on('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

async function startCollector(upstream) {
  const dir = await mkdtemp(join(tmpdir(), 'bench-collector-'));
  const port = 14400 + Math.floor(Math.random() * 500);
  const config = join(dir, 'collector.yaml');
  // The pass-through baseline: OTLP in, OTLP/HTTP protobuf out, nothing else (no batch: the gateway does not batch either).
  await writeFile(
    config,
    `receivers:\n  otlp:\n    protocols:\n      http:\n        endpoint: 127.0.0.1:${port}\nexporters:\n  otlphttp:\n    traces_endpoint: ${upstream}\n    encoding: proto\n    compression: none\n    sending_queue:\n      enabled: false\n    retry_on_failure:\n      enabled: false\nservice:\n  telemetry:\n    metrics:\n      level: none\n  pipelines:\n    traces:\n      receivers: [otlp]\n      exporters: [otlphttp]\n`,
  );
  const child = spawn(JAEGER, ['--config', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const endpoint = `http://127.0.0.1:${port}/v1/traces`;
  for (let i = 0; i < 100; i += 1) {
    try {
      const probe = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      if (probe.ok) return { endpoint, stop: () => child.kill('SIGTERM') };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`the collector did not start:\n${stderr.slice(-2000)}`);
}

const input = buildRequests();
input.bytes = input.requests.reduce((sum, r) => sum + r.body.length, 0);
console.log(
  `input: ${RUNS.toLocaleString('en')} runs, ${input.spans.toLocaleString('en')} spans in ${input.requests.length} OTLP/protobuf requests (${(input.bytes / 1e6).toFixed(1)} MB) per round, ${SENDERS} concurrent senders, ${ROUNDS} rounds per side, alternating`,
);
console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
if (!existsSync(JAEGER)) {
  console.error(`no collector binary at ${JAEGER}: run scripts/ci/install-jaeger.sh or set AGENT_INCIDENTS_JAEGER`);
  process.exit(2);
}
const counter = await startCounter();
const gateway = await startGateway(counter.endpoint);
const collector = await startCollector(counter.endpoint);
console.log(
  `gateway: deploy/collector/gateway.yaml as shipped (decision wait ${gateway.hold.decisionWaitMillis} ms, tick ${gateway.hold.tickMillis} ms)`,
);
const rates = { gateway: [], collector: [] };
const warm = {
  ...input,
  requests: input.requests.slice(0, 30),
  spans: input.requests.slice(0, 30).reduce((s, r) => s + r.spans, 0),
};
try {
  await measure('gateway (warm-up)', gateway.endpoint, counter, warm);
  await measure('collector pass-through (warm-up)', collector.endpoint, counter, warm);
  for (let round = 0; round < ROUNDS; round += 1) {
    // G C, then C G: order effects fall on both sides.
    const order = round % 2 === 0 ? ['gateway', 'collector'] : ['collector', 'gateway'];
    for (const side of order) {
      const target = side === 'gateway' ? gateway.endpoint : collector.endpoint;
      rates[side].push(
        await measure(
          `${side === 'gateway' ? 'gateway' : 'collector pass-through'} round ${round + 1}`,
          target,
          counter,
          input,
        ),
      );
    }
  }
} finally {
  await gateway.stop();
  collector.stop();
  await counter.close();
}
const median = (list) => [...list].sort((a, b) => a - b)[list.length >> 1];
console.log(
  `median: gateway ${Math.round(median(rates.gateway)).toLocaleString('en')} spans/s, collector pass-through ${Math.round(median(rates.collector)).toLocaleString('en')} spans/s`,
);
console.log(`gateway_vs_collector_throughput_ratio=${(median(rates.gateway) / median(rates.collector)).toFixed(2)}`);

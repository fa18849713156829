// Over 300 lines: the three sides share one harness and one round schedule, so they are measured alike.
/**
 * Gateway throughput and added latency against the OpenTelemetry Collector
 * (the Jaeger v2 binary), like for like, in one run, on three sides:
 *
 *   npm run bench:gateway      (needs the Jaeger binary: scripts/ci/install-jaeger.sh)
 *
 * - gateway: the gateway as operators run it, in its own process, with the
 *   shipped deploy/collector/gateway.yaml: its limits and hold times as they
 *   ship (2 s decision wait); only the listen port and upstream are rewritten.
 * - collector pass-through: an OTLP/HTTP receiver and an otlphttp exporter,
 *   nothing else.
 * - collector tail_sampling: the same, with the work the gateway does in its
 *   place: the tail_sampling processor (always_sample, the gateway's decision
 *   wait, num_traces large enough not to bind, block_on_overflow) and a batch
 *   processor matching the gateway's upstream batches (256 spans, flushed every
 *   250-ms tick).
 * - All three get the same OTLP/protobuf requests (runs of 6 spans with fact
 *   events, 100 runs a request) from the same 4 concurrent senders, which
 *   honour 429/503 and Retry-After as OTLP exporters do, and forward to the
 *   same counting receiver.
 * - After a warm-up of each, the round order rotates (G C T, C T G, T G C, …)
 *   so order effects fall on every side. Throughput is spans over the time
 *   from the first request sent to the last span received, so a hold counts
 *   against its side; latency is a request's send to the arrival of its last
 *   span (the hold included). Each round also prints the side's process CPU
 *   seconds (utime + stime from /proc/<pid>/stat, where there is one) and the
 *   spans per CPU-second.
 *
 * The last two lines are `gateway_vs_collector_throughput_ratio=<x>` and `gateway_vs_tail_sampling_throughput_ratio=<x>`
 * (median over median). Knobs: BENCH_RUNS (30000 per round), BENCH_ROUNDS (3 per side).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { parse, stringify } from 'yaml';
import { RunRecorder } from '../dist/index.js';
import { decodeExportTraceRequest } from '../dist/otlp/otlp-protobuf.js';
import { freePort } from './gateway-harness.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 30_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RUNS_PER_REQUEST = 100;
const SENDERS = 4;
const JAEGER = process.env.AGENT_INCIDENTS_JAEGER ?? join(import.meta.dirname, '..', '.cache', 'bin', 'jaeger');
/**
 * The gateway's upstream batching, which the tail_sampling side's batch processor matches: the release loop
 * sends a request once it holds FORWARD_BATCH_SPANS (256) folded spans and the rest at the end of each pass,
 * one pass every hold.tickMillis (src/gateway/release-loop.ts, deploy/collector/gateway.yaml).
 */
const GATEWAY_FORWARD_BATCH_SPANS = 256;
const SIDES = ['gateway', 'collector', 'tail'];
const LABELS = { gateway: 'gateway', collector: 'collector pass-through', tail: 'collector tail_sampling' };

/** Clock ticks per second for /proc/<pid>/stat (100 almost everywhere). */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds (user + system) the process `pid` has used so far; undefined where there is no /proc. */
function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, hence the last ')'): utime and stime are the 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

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

/**
 * Sends everything through `side` (its endpoint and process id), waits for every span upstream; spans/s, latency
 * percentiles and the CPU seconds the side's process used meanwhile.
 */
async function measure(label, side, counter, input) {
  counter.reset();
  const stats = { retries: 0 };
  const cpuBefore = cpuSeconds(side.pid);
  const start = performance.now();
  const arrived = counter.until(input.spans);
  const sentAt = await send(side.endpoint, input.requests, stats);
  await arrived;
  const seconds = (performance.now() - start) / 1000;
  const cpuAfter = cpuSeconds(side.pid);
  const cpu = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
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
      `latency p50 ${pct(50)} ms, p99 ${pct(99)} ms; ${stats.retries} pushed back and resent; ${extra === 0 ? 'no span lost or doubled' : `${extra} spans more than sent`}` +
      (cpu === undefined
        ? ''
        : `; ${cpu.toFixed(2)} CPU s (${cpu > 0 ? Math.round(input.spans / cpu).toLocaleString('en') : '∞'} spans per CPU-second)`),
  );
  return { rate, cpu };
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
    pid: child.pid,
    hold: shipped.hold,
    stop: () =>
      new Promise((resolve) => {
        child.on('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The tail_sampling side's processors: the work the gateway does in the collector's place, made as cheap and as
 * comparable as the processor allows (bench/README.md, "The tail_sampling side").
 */
function tailSamplingProcessors(hold) {
  // Every trace of a round may be held at once (a round is sent faster than the decision wait): twice that never binds.
  const numTraces = Math.max(50_000, 2 * RUNS);
  return {
    tail_sampling: {
      // The processor decides on a 1-s tick, a trace decision_wait (whole seconds) after its first span.
      decision_wait: `${Math.max(1, Math.round(hold.decisionWaitMillis / 1000))}s`,
      num_traces: numTraces,
      // Senders wait for room (back-pressure), as the gateway's 429 makes them, rather than traces being evicted.
      block_on_overflow: true,
      // Sizing hint for the decision batches: a round's traces.
      expected_new_traces_per_sec: RUNS,
      // A decided trace leaves the processor's map (and frees its num_traces slot) only once its decision is in a
      // cache: without one, every trace ever seen stays, and block_on_overflow would stop the pipeline for good
      // after num_traces traces. One entry is enough (the decision tick puts a trace's id and reads it back at
      // once), and no more: every round resends the same traces, and a cached decision would forward them without
      // the hold (the gateway holds them again, as new traces).
      decision_cache: { sampled_cache_size: 1 },
      policies: [{ name: 'keep-all', type: 'always_sample' }],
    },
    // The gateway's upstream requests: 256 spans, the rest at the end of each pass, a pass every tick.
    batch: { send_batch_size: GATEWAY_FORWARD_BATCH_SPANS, timeout: `${hold.tickMillis}ms` },
  };
}

/** A collector (the Jaeger v2 binary) on a free port: OTLP/HTTP in, `processors` (in that order), OTLP/HTTP out. */
async function startCollector(upstream, processors = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'bench-collector-'));
  const port = await freePort();
  const config = join(dir, 'collector.yaml');
  // The pass-through baseline has no processor: each request goes upstream as it came in.
  await writeFile(
    config,
    stringify({
      receivers: { otlp: { protocols: { http: { endpoint: `127.0.0.1:${port}` } } } },
      ...(Object.keys(processors).length > 0 ? { processors } : {}),
      exporters: {
        otlphttp: {
          traces_endpoint: upstream,
          encoding: 'proto',
          compression: 'none',
          sending_queue: { enabled: false },
          retry_on_failure: { enabled: false },
        },
      },
      service: {
        telemetry: { metrics: { level: 'none' } },
        pipelines: {
          traces: {
            receivers: ['otlp'],
            ...(Object.keys(processors).length > 0 ? { processors: Object.keys(processors) } : {}),
            exporters: ['otlphttp'],
          },
        },
      },
    }),
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
      if (probe.ok) return { endpoint, pid: child.pid, stop: () => child.kill('SIGTERM') };
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
  `input: ${RUNS.toLocaleString('en')} runs, ${input.spans.toLocaleString('en')} spans in ${input.requests.length} OTLP/protobuf requests (${(input.bytes / 1e6).toFixed(1)} MB) per round, ${SENDERS} concurrent senders, ${ROUNDS} rounds per side, order rotating`,
);
console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
if (!existsSync(JAEGER)) {
  console.error(`no collector binary at ${JAEGER}: run scripts/ci/install-jaeger.sh or set AGENT_INCIDENTS_JAEGER`);
  process.exit(2);
}
const counter = await startCounter();
const started = {};
const results = { gateway: [], collector: [], tail: [] };
const warm = {
  ...input,
  requests: input.requests.slice(0, 30),
  spans: input.requests.slice(0, 30).reduce((s, r) => s + r.spans, 0),
};
try {
  started.gateway = await startGateway(counter.endpoint);
  started.collector = await startCollector(counter.endpoint);
  const processors = tailSamplingProcessors(started.gateway.hold);
  started.tail = await startCollector(counter.endpoint, processors);
  console.log(
    `gateway: deploy/collector/gateway.yaml as shipped (decision wait ${started.gateway.hold.decisionWaitMillis} ms, tick ${started.gateway.hold.tickMillis} ms)`,
  );
  console.log(`collector tail_sampling: ${JSON.stringify(processors)}`);
  if (cpuSeconds(process.pid) === undefined) console.log('no /proc here: CPU seconds are not shown');
  for (const side of SIDES) await measure(`${LABELS[side]} (warm-up)`, started[side], counter, warm);
  for (let round = 0; round < ROUNDS; round += 1) {
    // G C T, then C T G, then T G C: order effects fall on every side alike.
    const order = SIDES.map((_, i) => SIDES[(round + i) % SIDES.length]);
    for (const side of order)
      results[side].push(await measure(`${LABELS[side]} round ${round + 1}`, started[side], counter, input));
  }
} finally {
  await started.gateway?.stop();
  started.collector?.stop();
  started.tail?.stop();
  await counter.close();
}
const median = (list) => [...list].sort((a, b) => a - b)[list.length >> 1];
const rate = (side) => median(results[side].map((r) => r.rate));
console.log(
  `median: ${SIDES.map((side) => `${LABELS[side]} ${Math.round(rate(side)).toLocaleString('en')} spans/s`).join(', ')}`,
);
if (results.gateway.every((r) => r.cpu !== undefined))
  console.log(
    `median CPU per round: ${SIDES.map((side) => {
      const cpu = median(results[side].map((r) => r.cpu));
      const work = median(results[side].map((r) => (r.cpu > 0 ? input.spans / r.cpu : Number.POSITIVE_INFINITY)));
      return `${LABELS[side]} ${cpu.toFixed(2)} s (${Math.round(work).toLocaleString('en')} spans per CPU-second)`;
    }).join(', ')}`,
  );
console.log(`gateway_vs_collector_throughput_ratio=${(rate('gateway') / rate('collector')).toFixed(2)}`);
console.log(`gateway_vs_tail_sampling_throughput_ratio=${(rate('gateway') / rate('tail')).toFixed(2)}`);

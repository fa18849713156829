/**
 * Gateway soak and backpressure:
 *
 *   npm run bench:gateway-load
 *
 * 1. Steady load: OTLP/protobuf requests of 10 runs (60 spans) at a fixed
 *    rate for LOAD_SECONDS (default 60) into an in-process gateway that
 *    forwards to a counting receiver; heap and RSS are sampled every 5 s.
 *    Flat memory means the last samples stay near the first ones.
 * 2. Upstream down: the same load with an upstream that refuses connections.
 *    The gateway must answer 429/503 with Retry-After once its bounds are
 *    reached, and its memory must stop growing.
 */
import { createServer } from 'node:http';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { RunRecorder } from '../dist/index.js';
import { createGateway } from '../dist/gateway/index.js';

const LOAD_SECONDS = Number(process.env.LOAD_SECONDS ?? 60);
const DOWN_SECONDS = Number(process.env.DOWN_SECONDS ?? 20);
const SPANS_PER_SECOND = Number(process.env.SPANS_PER_SECOND ?? 3000);

/** Makes requests of 10 fresh runs each: every request has new trace ids, as real traffic does. */
function requestMaker() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('load-agent');
  return () => {
    exporter.reset();
    for (let i = 0; i < 10; i += 1) {
      const run = RunRecorder.start({ tracer, agentName: 'load' });
      const attempt = run.startAttempt({ boundary: { tools: [{ name: 'read', sideEffects: 'read_only' }] } });
      attempt.chunk('text-delta');
      attempt.fail(Object.assign(new TypeError('terminated'), { cause: { code: 'UND_ERR_SOCKET' } }));
      for (let t = 0; t < 4; t += 1) run.startTool({ name: 'read', sideEffects: 'read_only', attempt }).complete();
      run.end();
    }
    const spans = exporter.getFinishedSpans();
    return { body: ProtobufTraceSerializer.serializeRequest(spans), spans: spans.length };
  };
}

async function startReceiver() {
  let spans = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      spans += 1;
      response.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${server.address().port}/v1/traces`, get requests() { return spans; }, close: () => new Promise((r) => server.close(r)) };
}

const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1);

/** Sends at the fixed rate for `seconds`; returns status counts and memory samples. */
async function drive(url, makeRequest, seconds, gateway) {
  const statuses = new Map();
  const samples = [];
  const perRequest = makeRequest().spans;
  const interval = (1000 * perRequest) / SPANS_PER_SECOND;
  const start = performance.now();
  let next = start;
  let sent = 0;
  let lastSample = start;
  const inFlight = new Set();
  while (performance.now() - start < seconds * 1000) {
    const { body } = makeRequest();
    sent += 1;
    const request = fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body })
      .then(async (response) => {
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      })
      .catch(() => statuses.set('error', (statuses.get('error') ?? 0) + 1))
      .finally(() => inFlight.delete(request));
    inFlight.add(request);
    if (performance.now() - lastSample >= 5000) {
      lastSample = performance.now();
      const memory = process.memoryUsage();
      const m = gateway.metrics;
      samples.push({ t: Math.round((lastSample - start) / 1000), heap: memory.heapUsed, rss: memory.rss, forwarded: m.spansForwarded, received: m.spansReceived });
    }
    next += interval;
    const wait = next - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  await Promise.all(inFlight);
  return { statuses, samples, sent };
}

function report(label, result) {
  console.log(`${label}: ${result.sent} requests (${SPANS_PER_SECOND} spans/s target); answers ${JSON.stringify(Object.fromEntries(result.statuses))}`);
  for (const s of result.samples) console.log(`  t=${String(s.t).padStart(3)}s heap ${mb(s.heap)} MiB rss ${mb(s.rss)} MiB received ${s.received} forwarded ${s.forwarded}`);
}

const makeRequest = requestMaker();
global.gc?.();

// 1. Steady load.
const receiver = await startReceiver();
const steady = await createGateway({ listen: { host: '127.0.0.1', port: 0 }, upstream: { endpoint: receiver.endpoint }, hold: { decisionWaitMillis: 500, tickMillis: 100 } });
const load = await drive(`${steady.url}/v1/traces`, makeRequest, LOAD_SECONDS, steady);
await steady.flush();
report(`steady load for ${LOAD_SECONDS} s`, load);
const heaps = load.samples.map((s) => s.heap);
const firstHalf = heaps.slice(1, Math.ceil(heaps.length / 2));
const secondHalf = heaps.slice(Math.ceil(heaps.length / 2));
const avg = (xs) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
console.log(`  forwarded ${steady.metrics.spansForwarded} (dropped ${steady.metrics.spansDropped}) of ${steady.metrics.spansReceived} received spans; heap first half ${mb(avg(firstHalf))} MiB, second half ${mb(avg(secondHalf))} MiB`);
console.log(`steady_heap_growth_ratio=${(avg(secondHalf) / avg(firstHalf)).toFixed(2)}`);
await steady.close();
await receiver.close();

// 2. Upstream down: nothing listens on port 1.
global.gc?.();
const down = await createGateway({
  listen: { host: '127.0.0.1', port: 0 },
  upstream: { endpoint: 'http://127.0.0.1:1/v1/traces', maxAttempts: 1000, maxBackoffMillis: 1000 },
  hold: { decisionWaitMillis: 500, tickMillis: 100 },
  limits: { maxForwardBacklogSpans: 20_000, maxSpans: 20_000 },
});
const refused = await drive(`${down.url}/v1/traces`, makeRequest, DOWN_SECONDS, down);
report(`upstream down for ${DOWN_SECONDS} s`, refused);
const accepted = refused.statuses.get(200) ?? 0;
const pushedBack = (refused.statuses.get(429) ?? 0) + (refused.statuses.get(503) ?? 0);
console.log(`  accepted ${accepted} requests, pushed back ${pushedBack} with 429/503; held ${down.metrics.spansReceived} spans at most (bound 20000 + 20000 backlog)`);
const downHeaps = refused.samples.map((s) => s.heap);
console.log(`upstream_down_heap_last_vs_peak=${(downHeaps.at(-1) / Math.max(...downHeaps)).toFixed(2)} pushed_back_requests=${pushedBack}`);
// Do not wait for a dead upstream at exit.
process.exit(0);

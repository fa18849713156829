// Over 300 lines: three decoders checked equal, then timed and weighed on the same bodies.
/**
 * OTLP/protobuf decoding: the hand-written decoder (src/otlp/otlp-protobuf.ts)
 * against protobufjs and @bufbuild/protobuf (code generated from the
 * opentelemetry-proto files: test/support/otlp-decoders/), in one process:
 *
 *   npm run bench:otlp-decode   (builds dist/, then node --expose-gc bench/otlp-decode.mjs)
 *
 * Each library is timed twice: its decode alone (`raw`: its own message
 * objects, Long/bigint and byte arrays), and its decode turned into the
 * OTLP/JSON shape the hand-written one returns (`shape`: hex ids, decimal
 * strings, base64), which is what replacing the hand-written decoder would
 * cost. Before timing, the three `shape` outputs of every body must be equal.
 *
 * Bodies: OTLP/protobuf requests as the SDK's ProtobufTraceSerializer writes
 * them, of agent runs recorded through RunRecorder (bench/workloads.mjs: the
 * realistic mix, ~15 attributes a span, span events, links):
 *   agent-2048    2,048 spans
 *   agent-10      10 spans
 *   tiny-attrs    adversarial: 64 spans of 1,000 one-character attributes each
 *   big-strings   64 spans each holding 16 KiB of prompt text (UTF-8, some non-ASCII)
 *
 * Rounds alternate between the decoders (the order rotates every round),
 * after warm-up rounds; each round decodes one body for about ROUND_MS. The
 * figures are medians over the rounds. Allocation per span: the heap grown by
 * one decode with no GC in between (a run with a GC is retried); retained per
 * span: what the decoded result still holds after a full GC.
 *
 * The last lines are `decode_ratio_handwritten_vs_<library>=<x>` on agent-2048,
 * like for like (`shape`): the hand-written decoder's spans/s over the
 * library's (above 1: the hand-written one is faster).
 * Knobs: BENCH_ROUNDS (8), BENCH_ROUND_MS (250).
 */
import { spawnSync } from 'node:child_process';
import { PerformanceObserver } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { decodeExportTraceRequest } from '../dist/otlp/otlp-protobuf.js';
import {
  decodeBufbuildRaw,
  decodeProtobufjsRaw,
  decodeWithBufbuild,
  decodeWithProtobufjs,
} from '../test/support/otlp-decoders/adapters.mjs';
import { INPUT_MESSAGES, mixRun } from './workloads.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 250);
const WARMUP_ROUNDS = 2;

if (typeof global.gc !== 'function') {
  console.error('run with node --expose-gc (npm run bench:otlp-decode does)');
  process.exit(2);
}

const DECODERS = [
  { name: 'handwritten', decode: (bytes) => decodeExportTraceRequest(bytes), shape: true },
  { name: 'protobufjs', decode: decodeWithProtobufjs, shape: true },
  { name: 'bufbuild', decode: decodeWithBufbuild, shape: true },
  { name: 'protobufjs-raw', decode: decodeProtobufjsRaw, shape: false },
  { name: 'bufbuild-raw', decode: decodeBufbuildRaw, shape: false },
];

// ---------------------------------------------------------------------------
// Bodies.

/**
 * What instrumentation around an agent commonly adds to every span (host,
 * tenant, session, code location): 7 attributes, bringing the recorded
 * spans to about 15.
 */
const CONTEXT_ATTRIBUTES = {
  onStart(span) {
    span.setAttribute('server.address', 'api.openai.com');
    span.setAttribute('server.port', 443);
    span.setAttribute('code.function.name', 'Agent.step');
    span.setAttribute('thread.id', 1);
    span.setAttribute('enduser.id', 'user_8f14e45fceea167a');
    span.setAttribute('session.id', 'sess_45c48cce2e2d7fbd');
    span.setAttribute('app.tenant', 'acme-corp');
  },
  onEnd() {},
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};

function provider(exporter) {
  return new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': 'coder-agent',
      'service.version': '1.4.2',
      'deployment.environment.name': 'production',
      'host.name': 'agent-worker-7',
      'process.pid': 41_234,
      'telemetry.sdk.language': 'nodejs',
    }),
    spanProcessors: [CONTEXT_ATTRIBUTES, new SimpleSpanProcessor(exporter)],
  });
}

/** The first `count` spans of the realistic mix of agent runs. */
function agentSpans(count) {
  const exporter = new InMemorySpanExporter();
  const tracer = provider(exporter).getTracer('agent-incidents-bench', '0.1.0');
  for (let i = 0; exporter.getFinishedSpans().length < count; i += 1) mixRun(tracer, i);
  return exporter.getFinishedSpans().slice(0, count);
}

function tinyAttributeSpans() {
  const exporter = new InMemorySpanExporter();
  const tracer = provider(exporter).getTracer('tiny');
  const attributes = {};
  for (let i = 0; i < 1000; i += 1)
    attributes[String.fromCharCode(0x21 + (i % 90)) + String(i)] = i % 3 === 0 ? i : i % 3 === 1 ? 'v' : true;
  for (let i = 0; i < 64; i += 1) tracer.startSpan('t', { attributes }).end();
  return exporter.getFinishedSpans();
}

function bigStringSpans() {
  const exporter = new InMemorySpanExporter();
  const tracer = provider(exporter).getTracer('big');
  let prompt = '';
  while (prompt.length < 16 * 1024) prompt += `${INPUT_MESSAGES} — réessayer après l'échec ✓ `;
  for (let i = 0; i < 64; i += 1) {
    tracer
      .startSpan('chat gpt-4.1', {
        attributes: {
          'gen_ai.input.messages': prompt.slice(0, 16 * 1024),
          'gen_ai.output.messages': prompt.slice(i, 4096 + i),
        },
      })
      .end();
  }
  return exporter.getFinishedSpans();
}

function body(name, spans) {
  return { name, bytes: ProtobufTraceSerializer.serializeRequest(spans), spans: spans.length };
}

const agent = agentSpans(2048);
const attributesPerSpan = agent.reduce((n, s) => n + Object.keys(s.attributes).length, 0) / agent.length;
const eventsPerSpan = agent.reduce((n, s) => n + s.events.length, 0) / agent.length;
const BODIES = [
  body('agent-2048', agent),
  body('agent-10', agent.slice(0, 10)),
  body('tiny-attrs', tinyAttributeSpans()),
  body('big-strings', bigStringSpans()),
];

// ---------------------------------------------------------------------------
// Checks: the three decoders that produce the OTLP/JSON shape must agree.

for (const { name, bytes } of BODIES) {
  const reference = decodeExportTraceRequest(bytes);
  for (const decoder of DECODERS.filter((d) => d.shape && d.name !== 'handwritten')) {
    if (!isDeepStrictEqual(decoder.decode(bytes), reference)) {
      console.error(`${decoder.name} and the hand-written decoder disagree on ${name}`);
      process.exit(1);
    }
  }
}

// ---------------------------------------------------------------------------
// Timing.

/** Decodes `bytes` with `decode` for about ROUND_MS; returns milliseconds per decode. */
function round(decode, bytes, iterations) {
  const start = performance.now();
  for (let i = 0; i < iterations; i += 1) decode(bytes);
  return (performance.now() - start) / iterations;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Heap bytes one decode allocates (no GC in between) and retains (after a
 * full GC), or NaN. Run in a child process whose young generation is large
 * enough (--min-semi-space-size) that a decode of the largest body fits
 * without a scavenge; the timings keep V8's defaults.
 */
async function memory(decode, bytes) {
  let gcs = 0;
  const observer = new PerformanceObserver((list) => {
    gcs += list.getEntries().length;
  });
  observer.observe({ entryTypes: ['gc'] });
  const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
  decode(bytes); // compiled and warm before measuring
  let allocated = Number.NaN;
  for (let attempt = 0; attempt < 5 && Number.isNaN(allocated); attempt += 1) {
    global.gc();
    await tick(); // lets the observer count that GC
    const before = gcs;
    const heap = process.memoryUsage().heapUsed;
    const result = decode(bytes);
    const grown = process.memoryUsage().heapUsed - heap;
    await tick();
    if (gcs === before && result) allocated = grown;
  }
  observer.disconnect();
  global.gc();
  const heap = process.memoryUsage().heapUsed;
  const result = decode(bytes);
  global.gc();
  const retained = process.memoryUsage().heapUsed - heap;
  return { allocated, retained: result ? retained : Number.NaN };
}

if (process.env.BENCH_OTLP_DECODE_MEMORY === '1') {
  const out = {};
  for (const { name, bytes } of BODIES)
    for (const d of DECODERS) out[`${name}/${d.name}`] = await memory(d.decode, bytes);
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
}

const results = new Map();
for (const { name, bytes, spans } of BODIES) {
  // Iterations per round: about ROUND_MS for the hand-written decoder.
  const probe = round(DECODERS[0].decode, bytes, 3);
  const iterations = Math.max(3, Math.round(ROUND_MS / Math.max(probe, 0.001)));
  const times = new Map(DECODERS.map((d) => [d.name, []]));
  for (let r = 0; r < WARMUP_ROUNDS + ROUNDS; r += 1) {
    // Rotate the order, so no decoder always runs first or last.
    const order = DECODERS.map((_, i) => DECODERS[(i + r) % DECODERS.length]);
    for (const decoder of order) {
      global.gc();
      const ms = round(decoder.decode, bytes, iterations);
      if (r >= WARMUP_ROUNDS) times.get(decoder.name).push(ms);
    }
  }
  for (const decoder of DECODERS) {
    const ms = median(times.get(decoder.name));
    results.set(`${name}/${decoder.name}`, {
      body: name,
      decoder: decoder.name,
      ms,
      mbPerSecond: bytes.length / 1e6 / (ms / 1000),
      spansPerSecond: spans / (ms / 1000),
      spans,
    });
  }
}

const child = spawnSync(
  process.execPath,
  ['--expose-gc', '--min-semi-space-size=256', '--max-semi-space-size=256', import.meta.filename],
  {
    env: { ...process.env, BENCH_OTLP_DECODE_MEMORY: '1' },
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  },
);
if (child.status !== 0) {
  console.error(`the memory measurement failed:\n${child.stderr}`);
  process.exit(1);
}
for (const [key, { allocated, retained }] of Object.entries(JSON.parse(child.stdout))) {
  const r = results.get(key);
  r.allocatedPerSpan = allocated / r.spans;
  r.retainedPerSpan = retained / r.spans;
}

// ---------------------------------------------------------------------------
// Report.

const fixed = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const thousands = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en') : 'n/a');

console.log(`node ${process.version}; ${ROUNDS} rounds of ~${ROUND_MS} ms per decoder and body, medians`);
console.log(
  `agent spans: ${fixed(attributesPerSpan)} attributes and ${fixed(eventsPerSpan)} events a span on average (plus 6 resource attributes)`,
);
for (const { name, bytes, spans } of BODIES) {
  console.log(`\n${name}: ${spans} spans, ${thousands(bytes.length)} bytes`);
  console.log('  decoder          ms/decode      MB/s        spans/s   alloc B/span  retained B/span');
  for (const decoder of DECODERS) {
    const r = results.get(`${name}/${decoder.name}`);
    console.log(
      `  ${decoder.name.padEnd(15)} ${fixed(r.ms, 3).padStart(10)} ${fixed(r.mbPerSecond).padStart(9)} ${thousands(r.spansPerSecond).padStart(14)} ${thousands(r.allocatedPerSpan).padStart(14)} ${thousands(r.retainedPerSpan).padStart(16)}`,
    );
  }
}

console.log('');
for (const { name } of BODIES) {
  const hand = results.get(`${name}/handwritten`);
  for (const library of ['protobufjs', 'bufbuild']) {
    const shape = results.get(`${name}/${library}`);
    const raw = results.get(`${name}/${library}-raw`);
    console.log(
      `${name}: hand-written vs ${library}: ${fixed(shape.ms / hand.ms, 2)}x like for like, ${fixed(raw.ms / hand.ms, 2)}x against its decode alone`,
    );
  }
}
const headline = (library) => {
  const hand = results.get('agent-2048/handwritten');
  return results.get(`agent-2048/${library}`).ms / hand.ms;
};
console.log(`decode_ratio_handwritten_vs_protobufjs=${fixed(headline('protobufjs'), 2)}`);
console.log(`decode_ratio_handwritten_vs_bufbuild=${fixed(headline('bufbuild'), 2)}`);

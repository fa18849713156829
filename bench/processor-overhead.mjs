// Benchmark: cost of IncidentSpanProcessor on the standard agent workload.
//
// Two pipelines, same process, measured in alternating rounds:
//   baseline: BasicTracerProvider → [BatchSpanProcessor → OTLP protobuf serialization]
//   with:     BasicTracerProvider → [IncidentSpanProcessor, BatchSpanProcessor → OTLP protobuf serialization]
// Each round runs RUNS_PER_ROUND agent runs through RunRecorder and ends with
// provider.forceFlush(), so batching and serialization are inside the timing.
//
// A second workload, the realistic mix (90% successful single-attempt runs,
// 10% the standard failing one), is measured the same way, with its own ratio.
// Then it prints where the processor's time goes on the standard workload
// (bench/processor-breakdown.mjs), and measures the processor's memory per
// open run: 10,000 runs that never end, with and without the processor, heap
// compared after global.gc().
//
// The last line is always `processor_overhead_ratio=<x.xx>` (median per-run
// time with / baseline, standard workload). Run with `npm run bench` (needs --expose-gc).
//
// Knobs (environment): BENCH_RUNS_PER_ROUND (default 2000), BENCH_ROUNDS
// (measured rounds per configuration, default 15), BENCH_WARMUP_ROUNDS
// (default 4), BENCH_OPEN_RUNS (default 10000).

import { performance } from 'node:perf_hooks';
import { ExportResultCode } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { IncidentSpanProcessor, RunRecorder } from '../dist/index.js';
import { breakdown } from './processor-breakdown.mjs';

const RUNS_PER_ROUND = intFromEnv('BENCH_RUNS_PER_ROUND', 2000);
const ROUNDS = intFromEnv('BENCH_ROUNDS', 15);
const WARMUP_ROUNDS = intFromEnv('BENCH_WARMUP_ROUNDS', 4);
const OPEN_RUNS = intFromEnv('BENCH_OPEN_RUNS', 10_000);
const MEMORY_REPEATS = 3;

/** Spans per run of the workload: run + 2 attempts + 3 tools. */
const SPANS_PER_RUN = 6;

function intFromEnv(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new TypeError(`${name} must be a positive integer, got ${raw}`);
  return value;
}

if (typeof global.gc !== 'function') {
  console.error('bench/processor-overhead.mjs needs --expose-gc (use `npm run bench`).');
  process.exit(2);
}

// ---------------------------------------------------------------------------
// Pipeline

/** Serializes each batch as an OTLP/protobuf request and discards the bytes (counting them). */
class ProtobufCountingExporter {
  bytes = 0;
  spans = 0;
  batches = 0;

  export(spans, done) {
    const body = ProtobufTraceSerializer.serializeRequest(spans);
    if (!body) {
      done({ code: ExportResultCode.FAILED, error: new Error('serialization returned nothing') });
      return;
    }
    this.bytes += body.byteLength;
    this.spans += spans.length;
    this.batches += 1;
    done({ code: ExportResultCode.SUCCESS });
  }

  shutdown() {
    return Promise.resolve();
  }

  forceFlush() {
    return Promise.resolve();
  }
}

/**
 * A provider as a user wires it. The queue holds a whole round (a synchronous
 * round fills it faster than batches can be exported), so nothing is dropped;
 * batches stay at the SDK's usual 512 spans.
 */
function createPipeline(withIncidents, { maxOpenRuns, name, sanitization } = {}) {
  const exporter = new ProtobufCountingExporter();
  const batch = new BatchSpanProcessor(exporter, {
    maxQueueSize: Math.max(RUNS_PER_ROUND, OPEN_RUNS) * SPANS_PER_RUN * 2,
    maxExportBatchSize: 512,
    scheduledDelayMillis: 60_000,
    exportTimeoutMillis: 60_000,
  });
  const incidents = withIncidents
    ? new IncidentSpanProcessor({ sweepIntervalMillis: 0, ...(maxOpenRuns ? { maxOpenRuns } : {}), ...(sanitization ? { sanitization } : {}) })
    : undefined;
  const pipeline = { name: name ?? (withIncidents ? 'with' : 'baseline'), exporter, incidents, started: 0 };
  // Counts spans started, so a round checks that each was exported exactly once.
  const counting = { onStart: () => void (pipeline.started += 1), onEnd() {}, forceFlush: () => Promise.resolve(), shutdown: () => Promise.resolve() };
  const provider = new BasicTracerProvider({ spanProcessors: incidents ? [counting, incidents, batch] : [counting, batch] });
  return Object.assign(pipeline, { provider, tracer: provider.getTracer('agent-incidents-bench') });
}

// ---------------------------------------------------------------------------
// Workload

const TOOLS = [
  { name: 'read', sideEffects: 'read_only' },
  { name: 'grep', sideEffects: 'read_only' },
  { name: 'bash', sideEffects: 'unsafe' },
];
const BOUNDARY = { tools: TOOLS };

// A realistic prompt as GenAI instrumentations record it (opt-in content): ~450 chars of JSON.
const INPUT_MESSAGES = JSON.stringify([
  {
    role: 'system',
    parts: [{ type: 'text', content: 'You are a coding agent. Use the tools to inspect the repository before editing files. Keep answers short.' }],
  },
  {
    role: 'user',
    parts: [
      {
        type: 'text',
        content:
          'The build fails on CI with "Cannot find module ./config.js" but passes locally. Find out why and fix it; run the tests afterwards and summarise what changed.',
      },
    ],
  },
]);

function socketDrop() {
  return new TypeError('terminated', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
}

let runCounter = 0;

/**
 * One run of the standard workload: 6 spans (invoke_agent, 2 × chat,
 * 3 × execute_tool). Attempt 1 streams text and drops its socket; the retry
 * streams text, calls 3 tools that run and complete, and finishes.
 */
function oneRun(tracer) {
  runCounter += 1;
  const run = RunRecorder.start({
    tracer,
    agentName: 'coder',
    providerName: 'openai',
    model: 'gpt-4.1',
    conversationId: `conv_${runCounter}`,
  });
  run.span.setAttribute('gen_ai.input.messages', INPUT_MESSAGES);
  run.span.setAttribute('gen_ai.request.max_tokens', 4096);
  run.span.setAttribute('gen_ai.request.temperature', 0.2);

  // The standard workload of the issue: 2 attempts, 3 tool calls, 6 fact events.
  const a1 = run.startAttempt({ boundary: BOUNDARY }); // fact 1: side_effect_boundary
  a1.chunk('start'); // lifecycle only: no fact
  a1.chunk('text-delta'); // fact 2: text_output_started (implies progress)
  a1.chunk('text-delta'); // recorded once: no fact
  a1.fail(socketDrop()); // fact 3: provider_error (+ the OTel `exception` event)
  run.retryIssued(a1, { delayMillis: 500 }); // fact 4: retry_issued

  const a2 = run.startAttempt({ boundary: BOUNDARY }); // fact 5: side_effect_boundary
  a2.span.setAttribute('gen_ai.response.id', `chatcmpl_${runCounter}`);
  const tools = [];
  for (let i = 0; i < TOOLS.length; i += 1) {
    const tool = TOOLS[i];
    // Three tool calls: execute_tool spans, linked to the attempt that asked for them.
    tools.push(run.startTool({ name: tool.name, callId: `call_${runCounter}_${i}`, sideEffects: tool.sideEffects, attempt: a2 }));
  }
  for (const tool of tools) tool.complete();
  a2.span.setAttribute('gen_ai.usage.input_tokens', 1834);
  a2.span.setAttribute('gen_ai.usage.output_tokens', 412);
  a2.finish({ finishReasons: ['tool-calls'] }); // fact 6: attempt_finished
  return run.end();
}

/**
 * The realistic mix: 9 runs in 10 are one successful attempt (a boundary, text,
 * a finish; every third also runs a read-only tool), the 10th is the standard
 * failing run.
 */
let mixCounter = 0;
function mixRun(tracer) {
  mixCounter += 1;
  if (mixCounter % 10 === 0) return oneRun(tracer);
  runCounter += 1;
  const run = RunRecorder.start({ tracer, agentName: 'coder', providerName: 'openai', model: 'gpt-4.1', conversationId: `conv_${runCounter}` });
  run.span.setAttribute('gen_ai.input.messages', INPUT_MESSAGES);
  const attempt = run.startAttempt({ boundary: BOUNDARY });
  attempt.chunk('text-delta');
  if (mixCounter % 3 === 0) run.startTool({ name: 'read', callId: `call_${runCounter}`, sideEffects: 'read_only', attempt }).complete();
  attempt.span.setAttribute('gen_ai.usage.input_tokens', 812);
  attempt.span.setAttribute('gen_ai.usage.output_tokens', 96);
  attempt.finish({ finishReasons: ['stop'] });
  return run.end();
}

/** Span events one run records (fact events + the exception event), counted once for the report. */
function countEvents() {
  const spans = [];
  const probe = {
    onStart() {},
    onEnding() {},
    onEnd(span) {
      spans.push(span);
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  const provider = new BasicTracerProvider({ spanProcessors: [probe] });
  oneRun(provider.getTracer('probe'));
  const events = spans.flatMap((s) => s.events);
  const facts = events.filter((e) => e.name !== 'exception').length;
  return { spans: spans.length, events: events.length, facts, other: events.length - facts };
}

// ---------------------------------------------------------------------------
// Throughput

/** One round: `runs` runs of `workload`, then forceFlush. Returns wall-clock and process CPU milliseconds. */
async function round(pipeline, runs, workload = oneRun) {
  global.gc();
  const spansBefore = pipeline.exporter.spans;
  const startedBefore = pipeline.started;
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < runs; i += 1) workload(pipeline.tracer);
  await pipeline.provider.forceFlush();
  const elapsed = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  const exported = pipeline.exporter.spans - spansBefore;
  const started = pipeline.started - startedBefore;
  if (exported !== started) {
    throw new Error(`${pipeline.name}: exported ${exported} spans, expected ${started} (spans were dropped)`);
  }
  return { wall: elapsed, cpu: (cpu.user + cpu.system) / 1000 };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function measureThroughput() {
  const baseline = createPipeline(false);
  const withProcessor = createPipeline(true);
  // The same processor with sanitization off: what sanitizing every span costs.
  const unsanitized = createPipeline(true, { name: 'unsanitized', sanitization: { mode: 'off' } });
  const times = { baseline: [], with: [], unsanitized: [] };
  const cpuTimes = { baseline: [], with: [], unsanitized: [] };

  for (let i = 0; i < WARMUP_ROUNDS; i += 1) {
    await round(baseline, RUNS_PER_ROUND);
    await round(withProcessor, RUNS_PER_ROUND);
    await round(unsanitized, RUNS_PER_ROUND);
  }
  const warmBytes = { baseline: baseline.exporter.bytes, with: withProcessor.exporter.bytes, unsanitized: unsanitized.exporter.bytes };

  // Alternate A/B, swapping which goes first in every pair (ABBA…) so drift
  // and GC carry-over fall on both sides equally.
  for (let i = 0; i < ROUNDS; i += 1) {
    const order = i % 2 === 0 ? [baseline, withProcessor, unsanitized] : [unsanitized, withProcessor, baseline];
    for (const pipeline of order) {
      const { wall, cpu } = await round(pipeline, RUNS_PER_ROUND);
      times[pipeline.name].push(wall);
      cpuTimes[pipeline.name].push(cpu);
    }
  }

  const stats = withProcessor.incidents.stats();
  const expectedRuns = (WARMUP_ROUNDS + ROUNDS) * RUNS_PER_ROUND;
  const mix = await measureMix();
  if (stats.runsFinished !== expectedRuns || stats.internalErrors !== 0 || stats.openRuns !== 0) {
    throw new Error(`IncidentSpanProcessor did not judge every run: ${JSON.stringify(stats)}, expected ${expectedRuns} finished runs`);
  }
  const measuredRuns = ROUNDS * RUNS_PER_ROUND;
  const bytesPerRun = {
    baseline: (baseline.exporter.bytes - warmBytes.baseline) / measuredRuns,
    with: (withProcessor.exporter.bytes - warmBytes.with) / measuredRuns,
    unsanitized: (unsanitized.exporter.bytes - warmBytes.unsanitized) / measuredRuns,
  };
  await baseline.provider.shutdown();
  await withProcessor.provider.shutdown();
  await unsanitized.provider.shutdown();
  return { times, cpuTimes, bytesPerRun, mix };
}

/** The realistic mix, baseline and with the processor, alternating like the standard workload. */
async function measureMix() {
  const baseline = createPipeline(false, { name: 'baseline' });
  const withProcessor = createPipeline(true, { name: 'with' });
  const times = { baseline: [], with: [] };
  for (let i = 0; i < WARMUP_ROUNDS; i += 1) {
    await round(baseline, RUNS_PER_ROUND, mixRun);
    await round(withProcessor, RUNS_PER_ROUND, mixRun);
  }
  for (let i = 0; i < ROUNDS; i += 1) {
    const order = i % 2 === 0 ? [baseline, withProcessor] : [withProcessor, baseline];
    for (const pipeline of order) times[pipeline.name].push((await round(pipeline, RUNS_PER_ROUND, mixRun)).wall);
  }
  await baseline.provider.shutdown();
  await withProcessor.provider.shutdown();
  return { baseline: (median(times.baseline) / RUNS_PER_ROUND) * 1000, with: (median(times.with) / RUNS_PER_ROUND) * 1000 };
}

// ---------------------------------------------------------------------------
// Memory per open run

function heapAfterGc() {
  global.gc();
  global.gc();
  return process.memoryUsage().heapUsed;
}

/** Heap growth (bytes) from `count` runs left open: run span + one open attempt (with its boundary) each. */
function openRunsHeapDelta(withIncidents, count) {
  const pipeline = createPipeline(withIncidents, { maxOpenRuns: count * 2 });
  const keep = new Array(count);
  // Prime the code paths so lazily compiled code and shape caches are not counted.
  for (let i = 0; i < 100; i += 1) {
    const run = RunRecorder.start({ tracer: pipeline.tracer, agentName: 'coder', providerName: 'openai', model: 'gpt-4.1' });
    run.startAttempt({ boundary: BOUNDARY }).chunk('text-delta');
    run.end();
  }
  const before = heapAfterGc();
  for (let i = 0; i < count; i += 1) {
    const run = RunRecorder.start({ tracer: pipeline.tracer, agentName: 'coder', providerName: 'openai', model: 'gpt-4.1' });
    run.span.setAttribute('gen_ai.input.messages', INPUT_MESSAGES);
    const attempt = run.startAttempt({ boundary: BOUNDARY });
    keep[i] = { run, attempt };
  }
  const after = heapAfterGc();
  if (withIncidents) {
    const stats = pipeline.incidents.stats();
    if (stats.openRuns !== count || stats.evictedRuns !== 0) throw new Error(`expected ${count} open runs, got ${JSON.stringify(stats)}`);
  }
  // Keep the runs alive until after the measurement.
  if (keep.length !== count) throw new Error('unreachable');
  return after - before;
}

function measureOpenRunState() {
  const baseline = [];
  const withProcessor = [];
  for (let i = 0; i < MEMORY_REPEATS; i += 1) {
    baseline.push(openRunsHeapDelta(false, OPEN_RUNS));
    withProcessor.push(openRunsHeapDelta(true, OPEN_RUNS));
  }
  const b = median(baseline);
  const w = median(withProcessor);
  return { baseline: b, with: w, perRun: (w - b) / OPEN_RUNS };
}

// ---------------------------------------------------------------------------

const fmt = (n, digits = 1) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

const shape = countEvents();
console.log(
  `workload: ${shape.spans} spans, ${shape.events} span events (${shape.facts} fact events + ${shape.other} exception) per run; ` +
    `${RUNS_PER_ROUND} runs per round, ${WARMUP_ROUNDS} warm-up + ${ROUNDS} measured rounds per configuration, alternating`,
);
console.log(`node ${process.version}, ${process.platform}/${process.arch}`);

const started = performance.now();
const { times, cpuTimes, bytesPerRun, mix } = await measureThroughput();
const perRun = {
  baseline: (median(times.baseline) / RUNS_PER_ROUND) * 1000,
  with: (median(times.with) / RUNS_PER_ROUND) * 1000,
  unsanitized: (median(times.unsanitized) / RUNS_PER_ROUND) * 1000,
};
const spread = (list) => {
  const us = list.map((ms) => (ms / RUNS_PER_ROUND) * 1000);
  return `${fmt(Math.min(...us))}–${fmt(Math.max(...us))}`;
};
const LABELS = {
  baseline: 'baseline    [BatchSpanProcessor]                                          ',
  unsanitized: 'unsanitized [IncidentSpanProcessor(sanitization off), BatchSpanProcessor]',
  with: 'with        [IncidentSpanProcessor, BatchSpanProcessor]                     ',
};
for (const name of ['baseline', 'unsanitized', 'with']) {
  const label = LABELS[name];
  console.log(
    `${label}: ${fmt(perRun[name])} µs/run (median; rounds ${spread(times[name])}), ` +
      `${fmt(1e6 / perRun[name], 0)} runs/s, ${fmt(bytesPerRun[name], 0)} OTLP bytes/run`,
  );
}
const ratio = perRun.with / perRun.baseline;
const cpuRatio = median(cpuTimes.with) / median(cpuTimes.baseline);
console.log(`overhead: +${fmt(perRun.with - perRun.baseline)} µs/run (${fmt((ratio - 1) * 100)}%), target ratio ≤ 1.10`);
console.log(`without sanitization: processor_overhead_ratio_unsanitized=${(perRun.unsanitized / perRun.baseline).toFixed(2)}`);
console.log(
  `cross-check, process CPU time per run (median): baseline ${fmt((median(cpuTimes.baseline) / RUNS_PER_ROUND) * 1000)} µs, ` +
    `with ${fmt((median(cpuTimes.with) / RUNS_PER_ROUND) * 1000)} µs, ratio ${cpuRatio.toFixed(2)}`,
);
console.log(`throughput phase: ${fmt((performance.now() - started) / 1000)} s`);
console.log(
  `mix workload (90% one successful attempt, 10% the standard run): baseline ${fmt(mix.baseline)} µs/run, with ${fmt(mix.with)} µs/run, ` +
    `overhead +${fmt(mix.with - mix.baseline)} µs/run`,
);
console.log(`processor_overhead_ratio_mix=${(mix.with / mix.baseline).toFixed(2)}`);

// Where the time goes: each stage alone, over the standard workload's own spans.
const stages = breakdown(oneRun);
const share = (micros) => `${fmt(micros)} µs/run (${fmt((micros / perRun.baseline) * 100)}% of the baseline)`;
console.log('where the processor\'s time goes (standard workload, each stage alone; the rest is span bookkeeping in onStart, GC and batching):');
console.log(`  facts and verdict (fold core, span views included): ${share(stages.fold)}`);
console.log(`  sanitization (every attribute, event, link, status, name): ${share(stages.sanitize)}`);
console.log(`  writing the verdict attributes: ${share(stages.attributes)}`);
console.log(`  serializing what the processor added (OTLP/protobuf): ${share(stages.serialize)}`);

const memory = measureOpenRunState();
console.log(
  `open runs: ${OPEN_RUNS} runs left open (run span + 1 open attempt each); heap growth median of ${MEMORY_REPEATS}: ` +
    `without processor ${memory.baseline} bytes, with processor ${memory.with} bytes`,
);
console.log(`state_bytes_per_open_run=${Math.round(memory.perRun)}`);
console.log(`processor_overhead_ratio=${ratio.toFixed(2)}`);

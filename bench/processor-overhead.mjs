// Over 300 lines: the pipelines, rounds and report of one comparison, kept in one place to stay alike.
// Benchmark: cost of IncidentSpanProcessor on agent workloads.
//
// Pipelines, same process, measured in alternating rounds:
//   baseline: BasicTracerProvider → [BatchSpanProcessor → OTLP protobuf serialization]
//   with:     BasicTracerProvider → [IncidentSpanProcessor, BatchSpanProcessor → OTLP protobuf serialization]
// (the standard workload also runs `unsanitized`: the processor with sanitization off).
// Each round runs RUNS_PER_ROUND agent runs through RunRecorder and ends with
// provider.forceFlush(), so batching and serialization are inside the timing.
//
// Two workloads (bench/workloads.mjs): the standard failing run, and the
// realistic mix (90% successful single-attempt runs, 10% the standard one),
// each with its own ratio. Then it prints where the processor's time goes on
// the standard workload, stage by stage (bench/processor-breakdown.mjs), and
// measures the processor's memory per open run: 10,000 runs that never end,
// with and without the processor, heap compared after global.gc().
//
// The last line is always `processor_overhead_ratio=<x.xx>` (median per-run
// time with / baseline, standard workload). Run with `npm run bench` (needs --expose-gc).
//
// Knobs (environment): BENCH_RUNS_PER_ROUND (default 2000), BENCH_ROUNDS
// (measured rounds per configuration, standard workload, default 10),
// BENCH_MIX_ROUNDS (the same for the mix, default 10), BENCH_WARMUP_ROUNDS
// (default 2, each workload), BENCH_OPEN_RUNS (default 10000),
// BENCH_BREAKDOWN=0 (skip the breakdown), BENCH_GC_EACH_ROUND=0 (no forced
// global.gc() before each round; see bench/README.md: a forced full GC throws
// away optimized code, so with it every round starts with the JIT re-warming).

import { performance, PerformanceObserver } from 'node:perf_hooks';
import { ExportResultCode } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { IncidentSpanProcessor, RunRecorder } from '../dist/index.js';
import { breakdown, breakdownLines } from './processor-breakdown.mjs';
import { BOUNDARY, INPUT_MESSAGES, mixRun, SPANS_PER_RUN, standardRun } from './workloads.mjs';

const RUNS_PER_ROUND = intFromEnv('BENCH_RUNS_PER_ROUND', 2000);
const ROUNDS = intFromEnv('BENCH_ROUNDS', 10);
const MIX_ROUNDS = intFromEnv('BENCH_MIX_ROUNDS', 10);
const WARMUP_ROUNDS = intFromEnv('BENCH_WARMUP_ROUNDS', 2);
const OPEN_RUNS = intFromEnv('BENCH_OPEN_RUNS', 10_000);
const BREAKDOWN = process.env.BENCH_BREAKDOWN !== '0';
const GC_EACH_ROUND = process.env.BENCH_GC_EACH_ROUND !== '0';
const MEMORY_REPEATS = 3;

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
    ? new IncidentSpanProcessor({
        sweepIntervalMillis: 0,
        ...(maxOpenRuns ? { maxOpenRuns } : {}),
        ...(sanitization ? { sanitization } : {}),
      })
    : undefined;
  const pipeline = { name: name ?? (withIncidents ? 'with' : 'baseline'), exporter, incidents, started: 0 };
  // Counts spans started, so a round checks that each was exported exactly once.
  const counting = {
    onStart: () => void (pipeline.started += 1),
    onEnd() {},
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  const provider = new BasicTracerProvider({
    spanProcessors: incidents ? [counting, incidents, batch] : [counting, batch],
  });
  return Object.assign(pipeline, { provider, tracer: provider.getTracer('agent-incidents-bench') });
}

/** Spans and span events per run of `workload` over `runs` runs (fact events and others), recorded once for the report. */
function shapeOf(workload, runs) {
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
  const tracer = new BasicTracerProvider({ spanProcessors: [probe] }).getTracer('probe');
  for (let i = 0; i < runs; i += 1) workload(tracer, i);
  const events = spans.flatMap((s) => s.events);
  const facts = events.filter((e) => e.name !== 'exception').length;
  return {
    spans: spans.length / runs,
    events: events.length / runs,
    facts: facts / runs,
    other: (events.length - facts) / runs,
  };
}

// ---------------------------------------------------------------------------
// Throughput

/** Main-thread GC pauses (perf_hooks 'gc' entries), to tell how much of a round's time was GC. */
const gcPauses = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcPauses.push(entry);
}).observe({ entryTypes: ['gc'] });

/** Milliseconds of GC pauses that started between `from` and `to` (performance.now() times); forgets older entries. */
async function gcMillisBetween(from, to) {
  // Entries reach the observer asynchronously.
  await new Promise((resolve) => setTimeout(resolve, 5));
  let total = 0;
  for (const entry of gcPauses) if (entry.startTime >= from && entry.startTime < to) total += entry.duration;
  gcPauses.length = 0;
  return total;
}

/** One round: `runs` runs of `workload`, then forceFlush. Returns wall-clock and process CPU milliseconds. */
async function round(pipeline, runs, workload) {
  if (GC_EACH_ROUND) global.gc();
  const spansBefore = pipeline.exporter.spans;
  const startedBefore = pipeline.started;
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < runs; i += 1) workload(pipeline.tracer, i);
  await pipeline.provider.forceFlush();
  const end = performance.now();
  const elapsed = end - start;
  const cpu = process.cpuUsage(cpuStart);
  const gc = await gcMillisBetween(start, end);
  const exported = pipeline.exporter.spans - spansBefore;
  const started = pipeline.started - startedBefore;
  if (exported !== started) {
    throw new Error(`${pipeline.name}: exported ${exported} spans, expected ${started} (spans were dropped)`);
  }
  return { wall: elapsed, cpu: (cpu.user + cpu.system) / 1000, gc };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Runs `workload` through `pipelines`: warm-up rounds, then `rounds` measured
 * rounds each, alternating, the order flipped in every other round (A B, B A, …)
 * so drift and GC carry-over fall on every side equally. Checks that every
 * processor judged every run. Returns, per pipeline name, the per-run wall and
 * CPU times of each round (µs) and the OTLP bytes per measured run.
 */
async function measure(workload, pipelines, rounds) {
  const result = {};
  for (const p of pipelines) result[p.name] = { wall: [], cpu: [], gc: [], bytesPerRun: 0 };
  for (let i = 0; i < WARMUP_ROUNDS; i += 1) {
    for (const pipeline of pipelines) await round(pipeline, RUNS_PER_ROUND, workload);
  }
  const warmBytes = new Map(pipelines.map((p) => [p, p.exporter.bytes]));
  const reversed = [...pipelines].reverse();
  for (let i = 0; i < rounds; i += 1) {
    for (const pipeline of i % 2 === 0 ? pipelines : reversed) {
      const { wall, cpu, gc } = await round(pipeline, RUNS_PER_ROUND, workload);
      result[pipeline.name].wall.push((wall / RUNS_PER_ROUND) * 1000);
      result[pipeline.name].cpu.push((cpu / RUNS_PER_ROUND) * 1000);
      result[pipeline.name].gc.push((gc / RUNS_PER_ROUND) * 1000);
    }
  }
  const expectedRuns = (WARMUP_ROUNDS + rounds) * RUNS_PER_ROUND;
  for (const pipeline of pipelines) {
    result[pipeline.name].bytesPerRun = (pipeline.exporter.bytes - warmBytes.get(pipeline)) / (rounds * RUNS_PER_ROUND);
    if (pipeline.incidents) {
      const stats = pipeline.incidents.stats();
      if (stats.runsFinished !== expectedRuns || stats.internalErrors !== 0 || stats.openRuns !== 0) {
        throw new Error(
          `${pipeline.name}: IncidentSpanProcessor did not judge every run: ${JSON.stringify(stats)}, expected ${expectedRuns} finished runs`,
        );
      }
    }
    await pipeline.provider.shutdown();
  }
  return result;
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
    const run = RunRecorder.start({
      tracer: pipeline.tracer,
      agentName: 'coder',
      providerName: 'openai',
      model: 'gpt-4.1',
    });
    run.startAttempt({ boundary: BOUNDARY }).textOutput();
    run.end();
  }
  const before = heapAfterGc();
  for (let i = 0; i < count; i += 1) {
    const run = RunRecorder.start({
      tracer: pipeline.tracer,
      agentName: 'coder',
      providerName: 'openai',
      model: 'gpt-4.1',
    });
    run.span.setAttribute('gen_ai.input.messages', INPUT_MESSAGES);
    const attempt = run.startAttempt({ boundary: BOUNDARY });
    keep[i] = { run, attempt };
  }
  const after = heapAfterGc();
  if (withIncidents) {
    const stats = pipeline.incidents.stats();
    if (stats.openRuns !== count || stats.evictedRuns !== 0)
      throw new Error(`expected ${count} open runs, got ${JSON.stringify(stats)}`);
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

const fmt = (n, digits = 1) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const seconds = (since) => `${fmt((performance.now() - since) / 1000)} s`;
const phases = [];

const LABELS = {
  baseline: 'baseline    [BatchSpanProcessor]                                          ',
  unsanitized: 'unsanitized [IncidentSpanProcessor(sanitization off), BatchSpanProcessor]',
  with: 'with        [IncidentSpanProcessor, BatchSpanProcessor]                     ',
};

/** Prints one line per configuration and the CPU cross-check; returns the median µs/run of each. */
function report(result, names) {
  const perRun = {};
  for (const name of names) {
    const { wall, bytesPerRun } = result[name];
    perRun[name] = median(wall);
    console.log(
      `${LABELS[name]}: ${fmt(perRun[name])} µs/run (median; rounds ${fmt(Math.min(...wall))}–${fmt(Math.max(...wall))}), ` +
        `${fmt(1e6 / perRun[name], 0)} runs/s, ${fmt(bytesPerRun, 0)} OTLP bytes/run`,
    );
  }
  return perRun;
}

function cpuLine(result) {
  const b = median(result.baseline.cpu);
  const w = median(result.with.cpu);
  console.log(
    `cross-check, process CPU time per run (median): baseline ${fmt(b)} µs, with ${fmt(w)} µs, ratio ${(w / b).toFixed(2)}`,
  );
  console.log(
    `GC pauses on the main thread per run (median, inside the timing): baseline ${fmt(median(result.baseline.gc))} µs, with ${fmt(median(result.with.gc))} µs`,
  );
}

const standardShape = shapeOf(standardRun, 1);
const mixShape = shapeOf(mixRun, 30);
console.log(
  `node ${process.version}, ${process.platform}/${process.arch}; ${RUNS_PER_ROUND} runs per round, alternating rounds after ${WARMUP_ROUNDS} warm-up rounds per configuration`,
);

// Standard workload.
console.log(
  `standard workload: ${standardShape.spans} spans, ${standardShape.events} span events (${standardShape.facts} fact events + ${standardShape.other} exception) per run; ` +
    `${ROUNDS} measured rounds per configuration`,
);
let since = performance.now();
const standard = await measure(
  standardRun,
  [
    createPipeline(false),
    createPipeline(true),
    createPipeline(true, { name: 'unsanitized', sanitization: { mode: 'off' } }),
  ],
  ROUNDS,
);
phases.push(`standard ${seconds(since)}`);
const perRun = report(standard, ['baseline', 'unsanitized', 'with']);
const ratio = perRun.with / perRun.baseline;
console.log(
  `overhead: +${fmt(perRun.with - perRun.baseline)} µs/run (${fmt((ratio - 1) * 100)}%), target ratio ≤ 1.10`,
);
console.log(
  `without sanitization: processor_overhead_ratio_unsanitized=${(perRun.unsanitized / perRun.baseline).toFixed(2)}`,
);
cpuLine(standard);

// Realistic mix.
console.log(
  `mix workload: 9 runs in 10 one successful attempt (a third of those with one read-only tool), the 10th the standard run; ` +
    `${fmt(mixShape.spans, 2)} spans, ${fmt(mixShape.events, 2)} span events per run on average; ${MIX_ROUNDS} measured rounds per configuration`,
);
since = performance.now();
const mix = await measure(mixRun, [createPipeline(false), createPipeline(true)], MIX_ROUNDS);
phases.push(`mix ${seconds(since)}`);
const mixPerRun = report(mix, ['baseline', 'with']);
console.log(
  `overhead: +${fmt(mixPerRun.with - mixPerRun.baseline)} µs/run (${fmt((mixPerRun.with / mixPerRun.baseline - 1) * 100)}%)`,
);
cpuLine(mix);
console.log(`processor_overhead_ratio_mix=${(mixPerRun.with / mixPerRun.baseline).toFixed(2)}`);

// Where the time goes: each stage alone, over the standard workload's own spans.
if (BREAKDOWN) {
  since = performance.now();
  const stages = breakdown(standardRun);
  phases.push(`breakdown ${seconds(since)}`);
  const gcExtra = median(standard.with.gc) - median(standard.baseline.gc);
  for (const line of breakdownLines(stages, perRun.baseline, perRun.with - perRun.baseline, gcExtra)) console.log(line);
}

since = performance.now();
const memory = measureOpenRunState();
phases.push(`memory ${seconds(since)}`);
console.log(
  `open runs: ${OPEN_RUNS} runs left open (run span + 1 open attempt each); heap growth median of ${MEMORY_REPEATS}: ` +
    `without processor ${memory.baseline} bytes, with processor ${memory.with} bytes`,
);
console.log(`phases: ${phases.join(', ')}; total ${fmt(process.uptime())} s`);
console.log(`state_bytes_per_open_run=${Math.round(memory.perRun)}`);
console.log(`processor_overhead_ratio=${ratio.toFixed(2)}`);

// A/B of two builds of IncidentSpanProcessor in one process: this tree's dist/
// against another build's (say, a worktree of an earlier commit, built with
// `npx tsc -p tsconfig.build.json`), on the same workload recorded by this
// tree's RunRecorder, alternating rounds with a baseline without any processor.
//
//   node --expose-gc bench/processor-ab.mjs /path/to/other/dist/index.js [standard|mix]
//
// Both processors run in the same process on the same machine state, so a
// change too small for processor-overhead.mjs's noise (two processes apart,
// minutes apart) shows here. Three pipelines share the SDK and serializer
// code, which makes every figure somewhat slower than in processor-overhead.mjs:
// compare the two ratios with each other, not with that bench's.
//
// Prints the median µs per run of each pipeline and ends with
//   processor_ab_ratio_other=<x.xx>  (other build / baseline)
//   processor_ab_ratio_this=<x.xx>   (this build / baseline)
// Knobs: BENCH_ROUNDS (measured rounds per pipeline, default 16),
// BENCH_RUNS_PER_ROUND (default 2000). A forced GC runs before each round,
// as in processor-overhead.mjs.

import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { ExportResultCode } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { IncidentSpanProcessor } from '../dist/index.js';
import { mixRun, SPANS_PER_RUN, standardRun } from './workloads.mjs';

const [otherPath, workloadName = 'standard'] = process.argv.slice(2);
if (!otherPath || !['standard', 'mix'].includes(workloadName) || typeof global.gc !== 'function') {
  console.error('usage: node --expose-gc bench/processor-ab.mjs <other build>/dist/index.js [standard|mix]');
  process.exit(2);
}
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 16);
const RUNS = Number(process.env.BENCH_RUNS_PER_ROUND ?? 2000);
const WARMUP_ROUNDS = 3;
const workload = workloadName === 'mix' ? mixRun : standardRun;
const { IncidentSpanProcessor: OtherProcessor } = await import(pathToFileURL(otherPath).href);

/** Serializes each batch as OTLP/protobuf and counts the spans. */
function pipeline(Processor) {
  const exporter = {
    spans: 0,
    export(spans, done) {
      ProtobufTraceSerializer.serializeRequest(spans);
      this.spans += spans.length;
      done({ code: ExportResultCode.SUCCESS });
    },
    shutdown: () => Promise.resolve(),
    forceFlush: () => Promise.resolve(),
  };
  const batch = new BatchSpanProcessor(exporter, {
    maxQueueSize: RUNS * SPANS_PER_RUN * 2,
    maxExportBatchSize: 512,
    scheduledDelayMillis: 60_000,
  });
  const spanProcessors = Processor ? [new Processor({ sweepIntervalMillis: 0 }), batch] : [batch];
  const provider = new BasicTracerProvider({ spanProcessors });
  return { provider, exporter, tracer: provider.getTracer('agent-incidents-bench'), wall: [] };
}

const pipelines = {
  baseline: pipeline(undefined),
  other: pipeline(OtherProcessor),
  this: pipeline(IncidentSpanProcessor),
};
const names = Object.keys(pipelines);
for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round += 1) {
  // The order flips every round, so drift and GC carry-over fall on each side alike.
  for (const name of round % 2 === 0 ? names : [...names].reverse()) {
    const p = pipelines[name];
    global.gc();
    const start = performance.now();
    for (let i = 0; i < RUNS; i += 1) workload(p.tracer, i);
    await p.provider.forceFlush();
    if (round >= WARMUP_ROUNDS) p.wall.push(((performance.now() - start) / RUNS) * 1000);
  }
}
const expected = pipelines.baseline.exporter.spans;
for (const name of names) {
  if (pipelines[name].exporter.spans !== expected)
    throw new Error(`${name} exported ${pipelines[name].exporter.spans} spans, baseline ${expected}`);
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const perRun = Object.fromEntries(names.map((name) => [name, median(pipelines[name].wall)]));
console.log(
  `node ${process.version}; ${workloadName} workload; ${RUNS} runs per round, ${WARMUP_ROUNDS} warm-up + ${ROUNDS} measured rounds per pipeline, alternating`,
);
console.log(`other build: ${otherPath}`);
for (const name of names) console.log(`${name.padEnd(8)} ${perRun[name].toFixed(1)} µs/run (median)`);
console.log(`processor_ab_ratio_other=${(perRun.other / perRun.baseline).toFixed(2)}`);
console.log(`processor_ab_ratio_this=${(perRun.this / perRun.baseline).toFixed(2)}`);

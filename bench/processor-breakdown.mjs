// Over 300 lines: each stage of the processor timed alone, over the same spans, in one list.
// Where IncidentSpanProcessor's time goes, stage by stage, on the spans of a workload.
//
// The input is the real SDK spans of `runs` runs recorded through a provider
// WITHOUT the processor (a probe keeps the order of the onStart and onEnding
// calls, and the span objects). Each stage the processor runs is timed alone
// over such spans: 2 untimed rounds, then the median of `rounds` rounds. A
// stage that changes spans gets freshly recorded spans every round, recorded
// (and brought to the state the processor would see) outside the timed region,
// so every stage runs on real SDK span objects, as in the processor:
//
//   (a) fold        what IncidentSpanProcessor#start / #ending do with RunFolder:
//                   the age check (oldestRun), isTracked, RunFolder.start; isRun,
//                   cutOpenSpans, spanViewOf and RunFolder.end
//   (b) sanitize    createTally + sanitizeSpanInPlace on every span, after the
//                   verdict was written (as in onEnding), + the incident.redactions count
//   (c) attributes  incidentAttributes / attemptVerdictAttributes written into the
//                   span's attributes (Object.assign, as writeAttributes), and runSpanStatus applied
//   (d) serialize   OTLP/protobuf serialization (ProtobufTraceSerializer.serializeRequest,
//                   batches of 512 like the bench's exporter) of spans a real
//                   IncidentSpanProcessor produced, minus that of the raw spans: the
//                   two are timed in pairs and the median per-pair difference is taken
//   hooks           a fresh IncidentSpanProcessor's onStart and onEnding over fresh
//                   spans: everything at once, so hooks - (a+b+c) is the processor's
//                   own glue (try/catch, the late-run check, metric calls)
//
// No forced GC between rounds: a full GC throws away optimized code (V8
// deoptimizes code whose embedded objects died, "reason: weak objects"), so
// the round after it would time the JIT warming up again, not the stage.
//
// Before timing, the stages are replayed once over raw spans and checked
// against what a real IncidentSpanProcessor made of the same workload
// (attribute keys, incident.* values and status of every span), so the stages
// are known to do what the processor does.
//
// Imported by processor-overhead.mjs, which prints the lines; or run alone
// (after `npm run build`): node bench/processor-breakdown.mjs

import { performance } from 'node:perf_hooks';
import { metrics } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { ADAPTERS } from '../dist/conventions/index.js';
import { attemptVerdictAttributes, incidentAttributes, runSpanStatus } from '../dist/derive/incident-attributes.js';
import { DEFAULT_POLICY } from '../dist/derive/policy.js';
import { RunFolder } from '../dist/fold/run-folder.js';
import { IncidentSpanProcessor } from '../dist/index.js';
import { sanitizeSpanInPlace } from '../dist/sanitize/sanitize-span.js';
import { createSanitizer } from '../dist/sanitize/sanitizer.js';
import { createTally } from '../dist/sanitize/scrubber.js';
import { hrTimeToMillis, spanViewOf } from '../dist/sdk/span-view-of.js';

const EXPORT_BATCH = 512;
/** The processor's default maxRunAgeMillis (30 minutes): compared against, never reached here. */
const MAX_RUN_AGE_MILLIS = 30 * 60 * 1000;
const REDACTIONS = 'incident.redactions';
const ERROR_TYPE = 'error.type';

/** Records `runs` runs of `oneRun` through `processors` plus a probe: the hook calls in order, and the spans in end order. */
function capture(oneRun, runs, processors = []) {
  const calls = [];
  const ended = [];
  const probe = {
    onStart(span) {
      calls.push({ hook: 'start', span });
    },
    onEnding(span) {
      calls.push({ hook: 'end', span });
      ended.push(span);
    },
    onEnd() {},
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  const tracer = new BasicTracerProvider({ spanProcessors: [...processors, probe] }).getTracer('breakdown');
  for (let i = 0; i < runs; i += 1) oneRun(tracer, i);
  return { calls, ended };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Median µs per run of `body` over `rounds` rounds, after 2 untimed ones; `prepare` (untimed) gives each round its input. */
function time(rounds, runs, prepare, body) {
  const samples = [];
  for (let r = -2; r < rounds; r += 1) {
    const input = prepare();
    const start = performance.now();
    body(input);
    if (r >= 0) samples.push(((performance.now() - start) / runs) * 1000);
  }
  return median(samples);
}

/** Median µs per run of `a`, of `b`, and of their per-round difference (b - a), timed in pairs, order flipped every round. */
function timePaired(rounds, runs, a, b) {
  const as = [];
  const bs = [];
  const differences = [];
  for (let r = -2; r < rounds; r += 1) {
    const pair = {};
    for (const [name, body] of r % 2 === 0
      ? [
          ['a', a],
          ['b', b],
        ]
      : [
          ['b', b],
          ['a', a],
        ]) {
      const start = performance.now();
      body();
      pair[name] = ((performance.now() - start) / runs) * 1000;
    }
    if (r < 0) continue;
    as.push(pair.a);
    bs.push(pair.b);
    differences.push(pair.b - pair.a);
  }
  return { a: median(as), b: median(bs), difference: median(differences) };
}

/** (a) Drives a fresh fold over recorded hook calls, as IncidentSpanProcessor#start / #ending do; returns the verdicts. */
function fold(calls) {
  const folder = new RunFolder({ policy: DEFAULT_POLICY, adapters: ADAPTERS, maxOpenRuns: 1e9 });
  const verdicts = [];
  for (let i = 0; i < calls.length; i += 1) {
    const { hook, span } = calls[i];
    if (hook === 'start') {
      const now = Date.now();
      const oldest = folder.oldestRun();
      if (oldest && now - oldest.startMillis > MAX_RUN_AGE_MILLIS)
        throw new Error('a run aged out during the breakdown');
      const parentSpanId = span.parentSpanContext?.spanId;
      // The processor would adopt an untracked parent as a late run here; the workloads have none.
      if (parentSpanId !== undefined && !folder.isTracked(parentSpanId))
        throw new Error('untracked parent in the breakdown workload');
      folder.start(
        { spanId: span.spanContext().spanId, parentSpanId, startMillis: hrTimeToMillis(span.startTime) },
        span,
      );
    } else {
      const spanId = span.spanContext().spanId;
      if (folder.isRun(spanId) && folder.cutOpenSpans(spanId, (s) => !s.ended).length > 0)
        throw new Error('open spans at a run end');
      const folded = folder.end(spanViewOf(span), span);
      if (folded) verdicts.push({ span, folded });
    }
  }
  return verdicts;
}

/** (c) Writes a verdict into `span` (attributes and status), as IncidentSpanProcessor#ending / #writeIncident do. */
function writeVerdict(span, folded) {
  if (folded.kind === 'attempt') {
    Object.assign(span.attributes, attemptVerdictAttributes(folded.verdict));
    return;
  }
  Object.assign(span.attributes, incidentAttributes(folded.incident));
  const change = runSpanStatus(folded.incident, span.status);
  if (change.status) span.status = change.status;
  if (change.errorType === null) delete span.attributes[ERROR_TYPE];
  else if (change.errorType !== undefined) Object.assign(span.attributes, { [ERROR_TYPE]: change.errorType });
}

/** (b) Sanitizes `span` as IncidentSpanProcessor#onEnding does, the redaction count and metric call included. */
function sanitize(span, sanitizer, counter) {
  const tally = createTally();
  sanitizeSpanInPlace(span, sanitizer, tally);
  if (tally.changed > 0) {
    Object.assign(span.attributes, { [REDACTIONS]: tally.changed });
    for (const [kind, n] of tally.byKind) counter.add(n, { 'agent_incidents.redaction.kind': kind });
  }
}

/** (d) Serializes `spans` in export batches; returns the bytes. */
function serialize(spans) {
  let bytes = 0;
  for (let i = 0; i < spans.length; i += EXPORT_BATCH)
    bytes += ProtobufTraceSerializer.serializeRequest(spans.slice(i, i + EXPORT_BATCH)).byteLength;
  return bytes;
}

/** Throws unless the stages, replayed over `raw` (changing it), give what the real processor gave in `processed`. */
function checkFidelity(raw, processed, sanitizer, counter) {
  if (raw.ended.length !== processed.ended.length)
    throw new Error(`breakdown: ${raw.ended.length} raw spans, ${processed.ended.length} processed`);
  const verdicts = new Map(fold(raw.calls).map((v) => [v.span, v.folded]));
  const incidentValues = (attributes) =>
    JSON.stringify(
      Object.keys(attributes)
        .filter((k) => k.startsWith('incident.'))
        .sort()
        .map((k) => [k, attributes[k]]),
    );
  for (let i = 0; i < raw.ended.length; i += 1) {
    const span = raw.ended[i];
    const folded = verdicts.get(span);
    if (folded) writeVerdict(span, folded);
    sanitize(span, sanitizer, counter);
    const real = processed.ended[i];
    const keys = Object.keys(span.attributes).sort().join(',');
    const realKeys = Object.keys(real.attributes).sort().join(',');
    if (
      keys !== realKeys ||
      incidentValues(span.attributes) !== incidentValues(real.attributes) ||
      span.status.code !== real.status.code
    ) {
      throw new Error(
        `breakdown: the stages do not reproduce the processor on span ${i} (${span.name}):\n  stages    ${keys}\n  processor ${realKeys}`,
      );
    }
  }
}

/**
 * Per-stage µs per run for `runs` runs of `oneRun(tracer, index)`, the hooks
 * altogether, and the OTLP bytes per run of the raw and processed spans.
 */
export function breakdown(oneRun, { runs = 300, rounds = 15, serializeRuns = 200 } = {}) {
  const sanitizer = createSanitizer();
  // The processor's metric calls go to the global MeterProvider; so do these (a no-op one unless the host set one).
  const counter = metrics.getMeterProvider().getMeter('agent-incidents').createCounter('agent_incidents.redactions');
  const fresh = () => capture(oneRun, runs);
  const newProcessor = () => new IncidentSpanProcessor({ sweepIntervalMillis: 0 });

  checkFidelity(fresh(), capture(oneRun, runs, [newProcessor()]), sanitizer, counter);

  // (a) The fold only reads the spans: the same recorded spans every round.
  const recorded = fresh();
  const foldMicros = time(rounds, runs, () => recorded.calls, fold);

  // (c) Fresh spans, folded outside the timing; timed: the verdicts written.
  const attributesMicros = time(
    rounds,
    runs,
    () => fold(fresh().calls),
    (verdicts) => {
      for (let i = 0; i < verdicts.length; i += 1) writeVerdict(verdicts[i].span, verdicts[i].folded);
    },
  );

  // (b) Fresh spans with their verdicts written outside the timing, as onEnding leaves them before sanitizing.
  const sanitizeMicros = time(
    rounds,
    runs,
    () => {
      const { calls, ended } = fresh();
      for (const { span, folded } of fold(calls)) writeVerdict(span, folded);
      return ended;
    },
    (spans) => {
      for (let i = 0; i < spans.length; i += 1) sanitize(spans[i], sanitizer, counter);
    },
  );

  // (d) Serialization is most of the baseline's time and the difference of two large numbers: paired rounds.
  const rawSpans = capture(oneRun, serializeRuns).ended;
  const processedSpans = capture(oneRun, serializeRuns, [newProcessor()]).ended;
  const serialized = timePaired(
    rounds,
    serializeRuns,
    () => serialize(rawSpans),
    () => serialize(processedSpans),
  );

  // Everything the hooks do, on fresh spans and a fresh processor each round.
  const hooksMicros = time(
    rounds,
    runs,
    () => ({ processor: newProcessor(), calls: fresh().calls }),
    ({ processor, calls }) => {
      for (let i = 0; i < calls.length; i += 1) {
        const { hook, span } = calls[i];
        if (hook === 'start') processor.onStart(span, undefined);
        else processor.onEnding(span);
      }
    },
  );

  return {
    fold: foldMicros,
    sanitize: sanitizeMicros,
    attributes: attributesMicros,
    hooks: hooksMicros,
    serializeRaw: serialized.a,
    serializeProcessed: serialized.b,
    serialize: serialized.difference,
    bytesRaw: serialize(rawSpans) / serializeRuns,
    bytesProcessed: serialize(processedSpans) / serializeRuns,
  };
}

/**
 * The lines processor-overhead.mjs prints. `baselineMicros`: the baseline
 * pipeline's µs per run (each stage is also given as a share of it);
 * `overheadMicros`: the measured with - baseline µs per run; `gcMicros`: the
 * measured with - baseline main-thread GC pauses per run.
 */
export function breakdownLines(stages, baselineMicros, overheadMicros, gcMicros) {
  const fmt = (n) => n.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const share = (micros) =>
    `${fmt(micros).padStart(5)} µs/run${baselineMicros ? ` = ${fmt((micros / baselineMicros) * 100).padStart(4)}% of the baseline` : ''}`;
  const abc = stages.fold + stages.sanitize + stages.attributes;
  const lines = [
    "where the processor's time goes (standard workload; each stage alone over real SDK spans, warm, median of rounds):",
    `  (a) facts and verdict: RunFolder.start/end, spanViewOf        ${share(stages.fold)}`,
    `  (b) sanitization: sanitizeSpanInPlace on every span          ${share(stages.sanitize)}`,
    `  (c) writing the verdict attributes and run status            ${share(stages.attributes)}`,
    `  (d) extra OTLP/protobuf serialization of processed spans     ${share(stages.serialize)}` +
      `  [${fmt(stages.serializeProcessed)} vs ${fmt(stages.serializeRaw)} µs/run, ${Math.round(stages.bytesProcessed)} vs ${Math.round(stages.bytesRaw)} bytes/run]`,
    `  a+b+c+d                                                      ${share(abc + stages.serialize)}`,
    `  all hooks at once (onStart+onEnding, fresh processor)        ${share(stages.hooks)}  [glue not in a+b+c: ${fmt(stages.hooks - abc)} µs/run]`,
  ];
  if (overheadMicros !== undefined) {
    const rest = overheadMicros - stages.hooks - stages.serialize;
    lines.push(
      `  measured overhead above ${fmt(overheadMicros)} µs/run = hooks + (d) ${fmt(stages.hooks + stages.serialize)} + the rest ${fmt(rest)} µs/run` +
        (gcMicros !== undefined
          ? ` (GC pauses +${fmt(gcMicros)} µs/run; the remainder is JIT re-warming, cache effects and noise)`
          : ''),
    );
  }
  return lines;
}

// Run alone, after `npm run build`: node bench/processor-breakdown.mjs
if (import.meta.url === `file://${process.argv[1]}`) {
  const { standardRun } = await import('./workloads.mjs');
  for (const line of breakdownLines(breakdown(standardRun))) console.log(line);
}

// Where the processor's time goes, stage by stage, on the spans of a workload.
//
// The spans are the real SDK spans of `runs` runs recorded without the
// processor (a probe keeps the order of onStart and onEnding calls). Each stage
// the processor runs is then timed alone over them, many times, with fresh
// copies where a stage changes the spans (copying is outside the timing):
//
//   fold         RunFolder.start/end as the processor drives them, span views included
//   sanitize     sanitizeSpanInPlace on every span
//   attributes   the verdict's attributes built and written on the run and attempt spans
//   serialize    OTLP/protobuf serialization of the processed spans minus that of the raw ones
//
// Imported by processor-overhead.mjs, which prints the lines.

import { performance } from 'node:perf_hooks';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { ADAPTERS } from '../dist/conventions/index.js';
import { attemptVerdictAttributes, incidentAttributes } from '../dist/derive/incident-attributes.js';
import { DEFAULT_POLICY } from '../dist/derive/policy.js';
import { RunFolder } from '../dist/fold/run-folder.js';
import { sanitizeSpanInPlace } from '../dist/sanitize/sanitize-span.js';
import { createSanitizer } from '../dist/sanitize/sanitizer.js';
import { createTally } from '../dist/sanitize/scrubber.js';
import { hrTimeToMillis, spanViewOf } from '../dist/sdk/span-view-of.js';

/** Records `runs` runs of `oneRun` without the processor: the spans, and the hook calls in order. */
function capture(oneRun, runs) {
  const calls = [];
  const probe = {
    onStart(span) {
      calls.push({ hook: 'start', span });
    },
    onEnding(span) {
      calls.push({ hook: 'end', span });
    },
    onEnd() {},
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  const tracer = new BasicTracerProvider({ spanProcessors: [probe] }).getTracer('breakdown');
  for (let i = 0; i < runs; i += 1) oneRun(tracer);
  return calls;
}

/** A span's mutable parts, copied, so a stage that changes them leaves the original as it was. */
function copy(span) {
  // Object.assign, not spread: a spread copy of a wide object can land in a slower object shape than the SDK's own.
  return {
    name: span.name,
    attributes: Object.assign({}, span.attributes),
    events: span.events.map((e) => Object.assign({}, e, { attributes: e.attributes ? Object.assign({}, e.attributes) : undefined })),
    links: span.links.map((l) => Object.assign({}, l, { attributes: l.attributes ? Object.assign({}, l.attributes) : undefined })),
    status: Object.assign({}, span.status),
  };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

/** Median µs per run of `body` over `rounds` rounds. */
function time(rounds, runs, prepare, body) {
  const samples = [];
  for (let r = 0; r < rounds; r += 1) {
    const input = prepare();
    const start = performance.now();
    body(input);
    samples.push(((performance.now() - start) / runs) * 1000);
  }
  return median(samples);
}

/** Drives a fresh fold over the captured hook calls, as the processor does; returns the verdicts. */
function fold(calls) {
  const folder = new RunFolder({ policy: DEFAULT_POLICY, adapters: ADAPTERS, maxOpenRuns: 1e9 });
  const verdicts = [];
  for (const { hook, span } of calls) {
    const spanId = span.spanContext().spanId;
    if (hook === 'start') {
      folder.start({ spanId, parentSpanId: span.parentSpanContext?.spanId, startMillis: hrTimeToMillis(span.startTime) }, span);
    } else {
      if (folder.isRun(spanId)) folder.cutOpenSpans(spanId, () => false);
      const folded = folder.end(spanViewOf(span), span);
      if (folded) verdicts.push({ span, folded });
    }
  }
  return verdicts;
}

/**
 * Per-stage µs per run for `runs` runs of `oneRun`. The processed spans for
 * serialization are the raw ones with the verdict attributes written and sanitized.
 */
export function breakdown(oneRun, { runs = 500, rounds = 15 } = {}) {
  const calls = capture(oneRun, runs);
  const ended = calls.filter((c) => c.hook === 'end').map((c) => c.span);
  const sanitizer = createSanitizer();
  const verdicts = fold(calls);
  // Warm every stage before timing it.
  for (let i = 0; i < 3; i += 1) fold(calls);

  const foldMicros = time(rounds, runs, () => calls, fold);
  const sanitizeMicros = time(
    rounds,
    runs,
    () => ended.map(copy),
    (spans) => {
      for (const span of spans) sanitizeSpanInPlace(span, sanitizer, createTally());
    },
  );
  const attributesMicros = time(
    rounds,
    runs,
    () => verdicts.map(({ span, folded }) => ({ target: Object.assign({}, span.attributes), folded })),
    (list) => {
      for (const { target, folded } of list) Object.assign(target, folded.kind === 'run' ? incidentAttributes(folded.incident) : attemptVerdictAttributes(folded.verdict));
    },
  );
  // The spans as the processor leaves them: the verdict written, sanitized.
  const byId = new Map(verdicts.map((v) => [v.span, v.folded]));
  const processed = ended.map((span) => {
    const parts = copy(span);
    const folded = byId.get(span);
    if (folded) Object.assign(parts.attributes, folded.kind === 'run' ? incidentAttributes(folded.incident) : attemptVerdictAttributes(folded.verdict));
    sanitizeSpanInPlace(parts, sanitizer, createTally());
    return Object.assign(Object.create(Object.getPrototypeOf(span)), span, parts);
  });
  const raw = time(rounds, runs, () => ended, (spans) => ProtobufTraceSerializer.serializeRequest(spans));
  const after = time(rounds, runs, () => processed, (spans) => ProtobufTraceSerializer.serializeRequest(spans));
  return { fold: foldMicros, sanitize: sanitizeMicros, attributes: attributesMicros, serialize: after - raw };
}

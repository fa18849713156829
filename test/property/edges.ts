/**
 * The four edges a verdict comes from, driven as users drive them, for the
 * property test: the SDK processor in a real tracer provider, the recorder
 * in-process, the gateway's store and judge over the exported spans (split
 * into batches that arrive in any order, some after the decision wait), and
 * `report` over the same spans as OTLP/JSON lines.
 */
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { ADAPTERS } from '../../src/conventions/index.js';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import { judgeTrace } from '../../src/gateway/judge-trace.js';
import { ReleasedRuns } from '../../src/gateway/released-runs.js';
import { ResourceCache } from '../../src/gateway/resource-cache.js';
import { TraceStore } from '../../src/gateway/trace-store.js';
import type { Incident } from '../../src/index.js';
import { IncidentSpanProcessor } from '../../src/index.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import type { RunRow } from '../../src/report/otlp-json.js';
import { runRowsFromOtlpJsonLines } from '../../src/report/otlp-json.js';
import { createSanitizer } from '../../src/sanitize/sanitizer.js';
import type { Expected } from './oracle.js';
import type { ExpectedLost } from './oracle-lost.js';

/** The compared fields of a verdict written as span attributes. */
export function fromAttributes(attributes: Readonly<Record<string, unknown>> | undefined): Expected | undefined {
  if (!attributes || typeof attributes['incident.outcome'] !== 'string') return undefined;
  const get = (key: string) => attributes[key];
  const verdict: Expected = {
    outcome: get('incident.outcome') as string,
    sideEffects: get('incident.side_effects') as string,
    factsComplete: get('incident.facts_complete') as boolean,
    missingFacts: (get('incident.missing_facts') as string[] | undefined) ?? [],
    attempts: get('incident.attempts') as number,
    recoveredAttempts: get('incident.recovered_attempts') as number,
  };
  const optional: [keyof Expected, string][] = [
    ['cause', 'incident.cause'],
    ['causeDetail', 'incident.cause.detail'],
    ['phase', 'incident.phase'],
    ['retrySafety', 'incident.retry_safety'],
    ['retrySafetyReason', 'incident.retry_safety.reason'],
    ['retryable', 'incident.retryable'],
    ['errorCode', 'incident.error.code'],
  ];
  for (const [field, key] of optional)
    if (get(key) !== undefined) (verdict as unknown as Record<string, unknown>)[field] = get(key);
  if (get('incident.lost.attempts') !== undefined) {
    const lost: Record<string, unknown> = {};
    for (const [field, key] of LOST_KEYS) if (get(key) !== undefined) lost[field] = get(key);
    verdict.lost = lost as unknown as ExpectedLost;
  }
  return verdict;
}

/** The `incident.lost.*` key of each lost-usage figure. */
const LOST_KEYS: readonly [keyof ExpectedLost, string][] = [
  ['attempts', 'incident.lost.attempts'],
  ['inputTokens', 'incident.lost.input_tokens'],
  ['outputTokens', 'incident.lost.output_tokens'],
  ['reasoningTokens', 'incident.lost.reasoning_tokens'],
  ['cachedInputTokens', 'incident.lost.cached_input_tokens'],
  ['costUsd', 'incident.lost.cost_usd'],
  ['lowerBound', 'incident.lost.lower_bound'],
];

/** The compared fields of an in-process verdict. */
export function fromIncident(incident: Incident): Expected {
  const verdict: Expected = {
    outcome: incident.outcome,
    sideEffects: incident.sideEffects,
    factsComplete: incident.factsComplete,
    missingFacts: [...incident.missingFacts],
    attempts: incident.attempts,
    recoveredAttempts: incident.recoveredAttempts,
  };
  if (incident.lost) verdict.lost = { ...incident.lost };
  if (incident.outcome === 'success') return verdict;
  const fields = {
    cause: incident.cause,
    causeDetail: incident.causeDetail,
    phase: incident.phase,
    retrySafety: incident.retrySafety,
    retrySafetyReason: incident.retrySafetyReason,
    retryable: incident.retryable,
    errorCode: incident.errorCode,
  };
  for (const [key, value] of Object.entries(fields))
    if (value !== undefined) (verdict as unknown as Record<string, unknown>)[key] = value;
  return verdict;
}

/** The fields a `report` row shows, of any verdict. */
export function rowFields(v: Expected | RunRow | undefined) {
  if (!v) return undefined;
  return {
    outcome: v.outcome,
    cause: v.cause,
    causeDetail: v.causeDetail,
    phase: v.phase,
    retrySafety: v.retrySafety,
    lost: v.lost ? { ...v.lost } : undefined,
  };
}

/**
 * A provider with the processor first, as users wire it, keeping every ended
 * span. `foldOnce: false` makes the processor fold recorded runs itself
 * instead of taking the recorder's fold. The spans are kept by a plain span processor rather than an exporter
 * behind a SimpleSpanProcessor: that one settles a promise per span, and a
 * million synchronous runs would pile them up unsettled.
 */
export function processorPipeline(options: { readonly foldOnce?: boolean } = {}) {
  const exporter = { spans: [] as ReadableSpan[] };
  const keep: SpanProcessor = {
    onStart() {},
    onEnd(span) {
      exporter.spans.push(span);
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  // A copy of the default conventions is not the recorder's own list: the processor then folds every run itself.
  const processor = new IncidentSpanProcessor({
    sweepIntervalMillis: 0,
    ...(options.foldOnce === false ? { adapters: [...ADAPTERS] } : {}),
  });
  const provider = new BasicTracerProvider({ spanProcessors: [processor, keep] });
  return { exporter, processor, tracer: provider.getTracer('property') };
}

interface OtlpKeyValue {
  key: string;
  value: unknown;
}
interface OtlpSpan {
  attributes?: OtlpKeyValue[];
  status?: unknown;
}
type OtlpRequest = { resourceSpans: { resource?: unknown; scopeSpans: { scope?: unknown; spans: OtlpSpan[] }[] }[] };

/**
 * The exported spans as an agent without the processor would have sent
 * them: OTLP/JSON with the processor's verdict removed (its `incident.*` keys,
 * and the run span's `error.type` and status), keeping `incident.truncated`,
 * which says a span was ended for its owner. Each span is shifted by its own
 * clock offset of up to ±2 ms (start, end and events alike: one span, one
 * clock), so spans disagree about sub-millisecond order as clocks do.
 */
export function rawRequest(spans: readonly ReadableSpan[], jitterSeed: number): OtlpRequest {
  const request = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest([...spans]))) as OtlpRequest;
  const next = random(jitterSeed);
  const shift = (nanos: unknown, offset: bigint): string | undefined =>
    typeof nanos === 'string' && nanos !== '0' ? String(BigInt(nanos) + offset) : (nanos as string | undefined);
  for (const resource of request.resourceSpans) {
    for (const scope of resource.scopeSpans) {
      for (const span of scope.spans as (OtlpSpan & {
        startTimeUnixNano?: string;
        endTimeUnixNano?: string;
        events?: { timeUnixNano?: string }[];
      })[]) {
        const offset = BigInt(Math.round((next() * 4 - 2) * 1e6));
        span.startTimeUnixNano = shift(span.startTimeUnixNano, offset);
        span.endTimeUnixNano = shift(span.endTimeUnixNano, offset);
        for (const event of span.events ?? []) event.timeUnixNano = shift(event.timeUnixNano, offset);
        const isRun = span.attributes?.some(
          (a) =>
            a.key === 'gen_ai.operation.name' && (a.value as { stringValue?: string }).stringValue === 'invoke_agent',
        );
        span.attributes = (span.attributes ?? []).filter(
          (a) =>
            !(a.key.startsWith('incident.') && a.key !== 'incident.truncated') && !(isRun && a.key === 'error.type'),
        );
        if (isRun) span.status = {};
      }
    }
  }
  return request;
}

/** A seeded source of numbers in [0, 1). */
export function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x100000000;
  };
}

function shuffle<T>(list: T[], next: () => number): T[] {
  for (let i = list.length - 1; i > 0; i -= 1) {
    const j = Math.floor(next() * (i + 1));
    [list[i], list[j]] = [list[j] as T, list[i] as T];
  }
  return list;
}

/** Splits `list` (kept in order) into 1–4 consecutive batches. */
function batches<T>(list: readonly T[], next: () => number): T[][] {
  const cuts = new Set<number>();
  const count = 1 + Math.floor(next() * 4);
  for (let i = 1; i < count; i += 1) cuts.add(1 + Math.floor(next() * Math.max(1, list.length - 1)));
  const out: T[][] = [];
  let current: T[] = [];
  list.forEach((item, i) => {
    if (cuts.has(i) && current.length > 0) {
      out.push(current);
      current = [];
    }
    current.push(item);
  });
  if (current.length > 0) out.push(current);
  return out;
}

const sanitizer = createSanitizer();
const resources = new ResourceCache(sanitizer);

/**
 * The gateway's verdicts on `request`: its spans arrive in export order, in
 * 1–4 batches each shuffled, some batches after the 2 s decision wait (the
 * shipped hold times), through the gateway's store and judge. By span id,
 * the attributes each span leaves with.
 */
export function throughGateway(request: OtlpRequest, seed: number): Map<string, Record<string, unknown>> {
  const next = random(seed);
  const store = new TraceStore(
    { maxTraces: 1e6, maxSpans: 1e7 },
    { decisionWaitMillis: 2_000, maxHoldMillis: 300_000 },
  );
  const options = { policy: DEFAULT_POLICY, sanitizer, resources, released: new ReleasedRuns(300_000) };
  const out = new Map<string, Record<string, unknown>>();
  const judge = (now: number, all = false) => {
    for (const trace of store.takeReady(now, all)) {
      for (const span of judgeTrace(trace.spans, options, now).spans)
        out.set(span.spanContext().spanId, span.attributes as Record<string, unknown>);
    }
  };
  let now = 1_000_000;
  for (const batch of batches(decodeOtlpJsonSpans(request), next)) {
    store.add(shuffle(batch, next), now);
    now += next() < 0.5 ? 10 : 2_500;
    judge(now);
  }
  judge(now + 1e9, true);
  return out;
}

/** `report`'s rows for `request`, its spans spread over 1–4 OTLP/JSON lines in any order. */
export function throughReport(request: OtlpRequest, seed: number): RunRow[] {
  const next = random(seed ^ 0x5bd1e995);
  const spans = request.resourceSpans.flatMap((r) =>
    r.scopeSpans.flatMap((s) => s.spans.map((span) => ({ resource: r.resource, scope: s.scope, span }))),
  );
  const lines = batches(shuffle(spans, next), next).map((group) =>
    JSON.stringify({
      resourceSpans: group.map(({ resource, scope, span }) => ({ resource, scopeSpans: [{ scope, spans: [span] }] })),
    }),
  );
  return runRowsFromOtlpJsonLines(lines.join('\n'));
}

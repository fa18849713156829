/**
 * Folds one received trace into incidents with the very processor the SDK
 * side uses: the spans are replayed, with their own ids, times, attributes,
 * events, links, status and scope, through a tracer provider that runs the
 * IncidentSpanProcessor, so the gateway and an in-process processor cannot
 * disagree. Replay is synchronous, one trace at a time.
 *
 * A run whose span never arrived (its agent process died) is replayed with a
 * stand-in run span under the missing span's id; the stand-in is never
 * exported, and its incident is written on the topmost span that did arrive.
 */
import type { Context, HrTime, Link, Span, SpanContext, SpanKind } from '@opentelemetry/api';
import { ROOT_CONTEXT, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { IdGenerator, ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { recognise } from '../conventions/index.js';
import type { ConventionAdapter } from '../conventions/adapter.js';
import { RUN_ATTRIBUTE_KEYS } from '../model/attributes.js';
import { GEN_AI, OPERATION } from '../model/native-convention.js';
import type { DecodedSpan, SpanAttributeValue } from '../otlp/otlp-json-spans.js';
import { spanAttributesOf, spanViewOfDecoded } from '../otlp/otlp-json-spans.js';
import { IncidentSpanProcessor } from '../sdk/incident-span-processor.js';
import type { IncidentSpanProcessorOptions } from '../sdk/options.js';
import type { Sanitizer } from '../sanitize/sanitizer.js';
import { sanitizeAttributeMap } from '../sanitize/sanitizer.js';
import { createTally } from '../sanitize/scrubber.js';

/** The longest run age the processor accepts (~24.8 days): the gateway's hold, not age, ends runs. */
const LONGEST_RUN_AGE = 2_147_483_647;

/** Marks the stand-in run span so it is never exported. */
const STAND_IN = 'agent_incidents.gateway.stand_in';

/** Hands the SDK the recorded ids, in the order spans are started. */
class RecordedIds implements IdGenerator {
  traceId = '';
  spanId = '';
  generateTraceId(): string {
    return this.traceId;
  }
  generateSpanId(): string {
    return this.spanId;
  }
}

/** Keeps every span that ends, synchronously, for the caller to take. */
class Collector implements SpanProcessor {
  spans: ReadableSpan[] = [];
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    this.spans.push(span);
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

// Decoded attributes as the SDK takes them.
const attributesOf = spanAttributesOf;

function hr(nanos: bigint): HrTime {
  return [Number(nanos / 1_000_000_000n), Number(nanos % 1_000_000_000n)];
}

/** What a fold gives back: the spans to forward, and the verdicts written. */
export interface FoldResult {
  /** Forwardable spans, sanitized, with their original resource and scope. */
  readonly spans: ReadableSpan[];
  /** The `incident.cause` (or `success`) of every run judged in the trace. */
  readonly outcomes: { readonly outcome: string; readonly cause?: string }[];
}

/** Folds traces with one long-lived tracer provider. */
export class TraceFolder {
  readonly #ids = new RecordedIds();
  readonly #collector = new Collector();
  readonly #provider: BasicTracerProvider;
  readonly #sanitizer: Sanitizer;
  readonly #adapters: readonly ConventionAdapter[] | undefined;
  readonly #resources = new Map<string, Resource>();
  readonly #byObject = new WeakMap<object, Resource>();

  constructor(options: IncidentSpanProcessorOptions, sanitizer: Sanitizer) {
    this.#sanitizer = sanitizer;
    this.#adapters = options.adapters;
    // The gateway's hold decides how long a run may stay open; replayed spans may be old.
    const processor = new IncidentSpanProcessor({ ...options, sweepIntervalMillis: 0, maxRunAgeMillis: LONGEST_RUN_AGE });
    // The gateway forwards what it received: no SDK limit may drop attributes or events.
    const unlimited = 1_000_000;
    this.#provider = new BasicTracerProvider({
      idGenerator: this.#ids,
      spanLimits: {
        attributeCountLimit: unlimited,
        eventCountLimit: unlimited,
        linkCountLimit: unlimited,
        attributePerEventCountLimit: unlimited,
        attributePerLinkCountLimit: unlimited,
      },
      spanProcessors: [processor, this.#collector],
    });
  }

  /** Folds one trace's spans (all of one trace id). Never throws on odd spans: they pass through. */
  async fold(received: readonly DecodedSpan[]): Promise<FoldResult> {
    this.#collector.spans = [];
    const live = new Map<string, Span>();
    const byId = new Map(received.map((s) => [s.spanId, s]));
    const standIns = this.#standIns(received, byId);
    const order = [...received].sort((a, b) => (a.startTimeUnixNano < b.startTimeUnixNano ? -1 : a.startTimeUnixNano > b.startTimeUnixNano ? 1 : 0));
    for (const standIn of standIns) this.#startStandIn(standIn, live);
    for (const span of this.#parentsFirst(order, byId)) this.#start(span, live);
    const ends = received
      .filter((s) => s.endTimeUnixNano !== undefined)
      .sort((a, b) => (a.endTimeUnixNano! < b.endTimeUnixNano! ? -1 : a.endTimeUnixNano! > b.endTimeUnixNano! ? 1 : depth(b, byId) - depth(a, byId)));
    for (const span of ends) live.get(span.spanId)?.end(hr(span.endTimeUnixNano!));
    // Runs whose span never came (and any still open) are finalized now, as never ended.
    await this.#provider.forceFlush();
    return this.#result(received, byId);
  }

  /** Stand-ins for missing parents of spans that belong to a run: attempts, tools, framework calls. */
  #standIns(received: readonly DecodedSpan[], byId: Map<string, DecodedSpan>): DecodedSpan[] {
    const missing = new Map<string, DecodedSpan>();
    // Earliest start among the children of each missing parent, found in one pass.
    const earliest = new Map<string, bigint>();
    for (const span of received) {
      const parent = span.parentSpanId;
      if (parent === undefined || byId.has(parent)) continue;
      const known = earliest.get(parent);
      if (known === undefined || span.startTimeUnixNano < known) earliest.set(parent, span.startTimeUnixNano);
    }
    for (const span of received) {
      const parent = span.parentSpanId;
      if (parent === undefined || byId.has(parent) || missing.has(parent)) continue;
      const role = recognise(spanViewOfDecoded(span), this.#adapters)?.role;
      if (role !== 'attempt' && role !== 'tool' && role !== 'call') continue;
      const start = earliest.get(parent) ?? span.startTimeUnixNano;
      missing.set(parent, {
        ...span,
        spanId: parent,
        parentSpanId: undefined,
        name: OPERATION.RUN,
        kind: 1,
        startTimeUnixNano: start,
        endTimeUnixNano: undefined,
        attributes: { [GEN_AI.OPERATION_NAME]: OPERATION.RUN, [STAND_IN]: true },
        events: [],
        links: [],
        statusCode: 0,
        statusMessage: undefined,
      });
    }
    return [...missing.values()];
  }

  /** Start order with every present parent before its children (recorded starts can tie or skew). */
  #parentsFirst(order: readonly DecodedSpan[], byId: Map<string, DecodedSpan>): DecodedSpan[] {
    const placed = new Set<string>();
    const out: DecodedSpan[] = [];
    const place = (span: DecodedSpan, guard: number): void => {
      if (placed.has(span.spanId) || guard > 64) return;
      const parent = span.parentSpanId === undefined ? undefined : byId.get(span.parentSpanId);
      if (parent) place(parent, guard + 1);
      placed.add(span.spanId);
      out.push(span);
    };
    for (const span of order) place(span, 0);
    return out;
  }

  #startStandIn(standIn: DecodedSpan, live: Map<string, Span>): void {
    this.#start(standIn, live);
  }

  #start(recorded: DecodedSpan, live: Map<string, Span>): void {
    const parent = recorded.parentSpanId === undefined ? undefined : live.get(recorded.parentSpanId);
    let parentContext: Context = ROOT_CONTEXT;
    if (parent) {
      parentContext = trace.setSpan(ROOT_CONTEXT, parent);
    } else if (recorded.parentSpanId !== undefined) {
      // A parent outside this trace's spans (not of a run): keep the reference as it was.
      parentContext = trace.setSpanContext(ROOT_CONTEXT, { traceId: recorded.traceId, spanId: recorded.parentSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });
    }
    this.#ids.traceId = recorded.traceId;
    this.#ids.spanId = recorded.spanId;
    const links: Link[] = recorded.links
      .filter((l) => l.traceId !== '' && l.spanId !== '')
      .map((l) => ({ context: { traceId: l.traceId, spanId: l.spanId, traceFlags: TraceFlags.SAMPLED } as SpanContext, attributes: attributesOf(l.attributes) }));
    const tracer = this.#provider.getTracer(recorded.scopeName ?? '', recorded.scopeVersion);
    const span = tracer.startSpan(
      recorded.name,
      { kind: Math.max(0, recorded.kind - 1) as SpanKind, attributes: attributesOf(recorded.attributes), startTime: hr(recorded.startTimeUnixNano), links },
      parentContext,
    );
    for (const event of recorded.events) span.addEvent(event.name, attributesOf(event.attributes), hr(event.timeUnixNano));
    if (recorded.statusCode !== 0) span.setStatus({ code: recorded.statusCode as SpanStatusCode, message: recorded.statusMessage });
    live.set(recorded.spanId, span);
  }

  #result(received: readonly DecodedSpan[], byId: Map<string, DecodedSpan>): FoldResult {
    const recordedOf = new Map(received.map((s) => [s.spanId, s]));
    const outcomes: FoldResult['outcomes'] = [];
    const out: ReadableSpan[] = [];
    const standIns = new Map<string, ReadableSpan>();
    for (const span of this.#collector.spans) {
      if (span.attributes[STAND_IN] === true) standIns.set(span.spanContext().spanId, span);
    }
    // The first-started child of each missing parent carries the stand-in's verdict (one per run).
    const topmost = new Map<string, DecodedSpan>();
    for (const span of received) {
      const parent = span.parentSpanId;
      if (parent === undefined || !standIns.has(parent)) continue;
      const best = topmost.get(parent);
      if (!best || span.startTimeUnixNano < best.startTimeUnixNano || (span.startTimeUnixNano === best.startTimeUnixNano && span.spanId < best.spanId)) {
        topmost.set(parent, span);
      }
    }
    for (const span of this.#collector.spans) {
      const recorded = recordedOf.get(span.spanContext().spanId);
      if (!recorded) continue;
      const standIn = recorded.parentSpanId === undefined || byId.has(recorded.parentSpanId) ? undefined : standIns.get(recorded.parentSpanId);
      if (typeof recorded.attributes['incident.outcome'] === 'string') {
        // Judged upstream by an IncidentSpanProcessor, which saw the run in process:
        // its verdict stands (a second fold would only see what it exported).
        keepUpstreamVerdict(recorded, span);
      } else if (standIn && topmost.get(recorded.parentSpanId as string) === recorded) {
        // The run span never came: its verdict goes on the topmost span that did.
        copyRunVerdict(standIn, span);
      }
      const outcome = span.attributes['incident.outcome'];
      if (typeof outcome === 'string') {
        const cause = span.attributes['incident.cause'];
        outcomes.push({ outcome, cause: typeof cause === 'string' ? cause : undefined });
      }
      out.push(this.#withOriginalResource(span, recorded));
    }
    return { spans: out, outcomes };
  }

  /** The span as forwarded: the resource it was received with, sanitized like every attribute. */
  #withOriginalResource(span: ReadableSpan, recorded: DecodedSpan): ReadableSpan {
    // Spans decoded from one request's resource share its attribute object: key on it first.
    let resource = this.#byObject.get(recorded.resource);
    if (!resource) {
      const key = JSON.stringify(recorded.resource);
      resource = this.#resources.get(key);
      if (!resource) {
        resource = resourceFromAttributes(sanitizeAttributeMap(attributesOf(recorded.resource), this.#sanitizer, createTally()) as Record<string, SpanAttributeValue>);
        // A bounded cache: services are few, but hostile input must not grow it forever.
        if (this.#resources.size > 1024) this.#resources.clear();
        this.#resources.set(key, resource);
      }
      this.#byObject.set(recorded.resource, resource);
    }
    return new Proxy(span, {
      get(target, property, receiver) {
        if (property === 'resource') return resource;
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  /** Stops the provider. */
  shutdown(): Promise<void> {
    return this.#provider.shutdown();
  }
}

function depth(span: DecodedSpan, byId: Map<string, DecodedSpan>): number {
  let d = 0;
  for (let p = span.parentSpanId; p !== undefined && byId.has(p) && d < 64; p = byId.get(p)?.parentSpanId) d += 1;
  return d;
}

/** Puts back the `incident.*` keys, `error.type` and status a span arrived with. */
function keepUpstreamVerdict(recorded: DecodedSpan, span: ReadableSpan): void {
  const target = span.attributes as Record<string, unknown>;
  for (const key of Object.keys(target)) {
    if ((key.startsWith('incident.') && key !== 'incident.redactions') || key === 'error.type') delete target[key];
  }
  const kept = attributesOf(recorded.attributes);
  for (const [key, value] of Object.entries(kept)) {
    if (key.startsWith('incident.') || key === 'error.type') target[key] = value;
  }
  (span as { status: ReadableSpan['status'] }).status = { code: recorded.statusCode as SpanStatusCode, message: recorded.statusMessage };
}

/** Copies the run-level incident keys, status and error.type of `from` onto `to` (still writable: the SDK keeps plain fields). */
function copyRunVerdict(from: ReadableSpan, to: ReadableSpan): void {
  const target = to.attributes as Record<string, unknown>;
  for (const key of RUN_ATTRIBUTE_KEYS) {
    const value = from.attributes[key];
    if (value !== undefined) target[key] = value;
  }
  const errorType = from.attributes['error.type'];
  if (errorType !== undefined) target['error.type'] = errorType;
  if (from.status.code === SpanStatusCode.ERROR && to.status.code !== SpanStatusCode.ERROR) {
    (to as { status: ReadableSpan['status'] }).status = { ...from.status };
  }
}

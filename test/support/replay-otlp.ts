/**
 * Replays a recorded trace through a real tracer, so the SDK processor sees
 * what it saw live: spans start and end in recorded order (shifted to now),
 * with their attributes, events, links, status and scope; spans recorded open are
 * never ended. Parents are re-created as parents and links as links.
 */
import type { HrTime, Link, Span, SpanContext, TracerProvider } from '@opentelemetry/api';
import { context, trace } from '@opentelemetry/api';
import type { DecodedSpan } from '../../src/otlp/otlp-json-spans.js';
import { spanAttributesOf as attributes } from '../../src/otlp/otlp-json-spans.js';

interface Step {
  readonly at: bigint;
  readonly order: number;
  readonly run: () => void;
}

/** How to replay. */
export interface ReplayOptions {
  /**
   * Start each span bare and set its attributes right after, as OpenInference's
   * tracer does, so a processor sees the roles only once a span has started.
   * @default false
   */
  readonly attributesAfterStart?: boolean;
}

/**
 * Replays `spans` (one trace) through `provider`, each with a tracer of its
 * recorded scope name; returns the replayed spans by recorded span id.
 */
export function replaySpans(spans: readonly DecodedSpan[], provider: TracerProvider, options: ReplayOptions = {}): Map<string, Span> {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const depth = (span: DecodedSpan): number => {
    let d = 0;
    for (let p = span.parentSpanId; p && byId.has(p) && d < 64; p = byId.get(p)?.parentSpanId) d += 1;
    return d;
  };
  const earliest = spans.reduce((min, s) => (s.startTimeUnixNano < min ? s.startTimeUnixNano : min), spans[0]?.startTimeUnixNano ?? 0n);
  // Shift to now: the processor judges run age against the wall clock.
  const shift = BigInt(Date.now()) * 1_000_000n - earliest;
  const hr = (nanos: bigint): HrTime => {
    const t = nanos + shift;
    return [Number(t / 1_000_000_000n), Number(t % 1_000_000_000n)];
  };
  // Recorded start times are whole milliseconds and end times are not, so a
  // child can appear to end up to ~1 ms after its parent although it ended
  // first. Order such an end just before its parent's (the timestamps stay).
  const SKEW = 2_000_000n;
  const orderOfEnd = new Map<string, bigint>();
  const endOrder = (span: DecodedSpan): bigint | undefined => {
    const end = span.endTimeUnixNano;
    if (end === undefined) return undefined;
    const known = orderOfEnd.get(span.spanId);
    if (known !== undefined) return known;
    const parent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
    const parentEnd = parent && parent !== span ? endOrder(parent) : undefined;
    const at = parentEnd !== undefined && end > parentEnd && end - parentEnd <= SKEW ? parentEnd : end;
    orderOfEnd.set(span.spanId, at);
    return at;
  };
  const live = new Map<string, Span>();
  const steps: Step[] = [];
  for (const recorded of spans) {
    const d = depth(recorded);
    steps.push({
      at: recorded.startTimeUnixNano,
      order: d, // parents start first
      run: () => {
        const parent = recorded.parentSpanId ? live.get(recorded.parentSpanId) : undefined;
        const parentContext = parent ? trace.setSpan(context.active(), parent) : trace.deleteSpan(context.active());
        const links: Link[] = recorded.links
          .map((l) => live.get(l.spanId))
          .filter((s): s is Span => s !== undefined)
          .map((s) => ({ context: s.spanContext() as SpanContext }));
        const late = options.attributesAfterStart === true;
        const span = provider.getTracer(recorded.scopeName ?? 'replay').startSpan(
          recorded.name,
          { kind: Math.max(0, recorded.kind - 1), attributes: late ? {} : attributes(recorded.attributes), startTime: hr(recorded.startTimeUnixNano), links },
          parentContext,
        );
        if (late) span.setAttributes(attributes(recorded.attributes));
        for (const event of recorded.events) span.addEvent(event.name, attributes(event.attributes), hr(event.timeUnixNano));
        if (recorded.statusCode !== 0) span.setStatus({ code: recorded.statusCode, message: recorded.statusMessage });
        live.set(recorded.spanId, span);
      },
    });
    const end = recorded.endTimeUnixNano;
    if (end !== undefined) {
      steps.push({ at: endOrder(recorded) ?? end, order: 1000 - d, run: () => live.get(recorded.spanId)?.end(hr(end)) }); // children end first
    }
  }
  steps.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.order - b.order));
  for (const step of steps) step.run();
  return live;
}

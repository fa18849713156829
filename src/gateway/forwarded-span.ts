/**
 * A received span as the gateway forwards it: a plain object the OTLP encoder
 * reads (src/otlp/otlp-encode.ts), also in the `ReadableSpan` shape, built
 * straight from the decoded span with its own ids, trace state, flags, times,
 * resource and scope. No tracer made it.
 */
import type { HrTime, SpanContext } from '@opentelemetry/api';
import type { DecodedSpan, SpanAttributeValue } from '../otlp/otlp-json-spans.js';
import { spanAttributesOf } from '../otlp/otlp-json-spans.js';
import type { EncodableResource, EncodableScope, EncodableSpan } from '../otlp/otlp-encode.js';
import type { SanitizableSpan } from '../sanitize/sanitize-span.js';
import { sanitizeSpanInPlace } from '../sanitize/sanitize-span.js';
import type { Sanitizer } from '../sanitize/sanitizer.js';
import { UNSANITIZABLE } from '../sanitize/sanitizer.js';
import type { RedactionTally } from '../sanitize/scrubber.js';

type Attributes = Record<string, SpanAttributeValue>;

const SAMPLED = 1;

function hr(nanos: bigint): HrTime {
  return [Number(nanos / 1_000_000_000n), Number(nanos % 1_000_000_000n)];
}

function hrOfMillis(millis: number): HrTime {
  const seconds = Math.floor(millis / 1000);
  return [seconds, Math.round((millis - seconds * 1000) * 1e6)];
}

/**
 * A forwarded span's resource, in the shape both SDK lines' `ReadableSpan.resource`
 * has for what is read of it (its attributes): no SDK package is needed to run the gateway.
 */
export interface ForwardedResource {
  readonly attributes: Attributes;
}

/** A forwardable span: what the encoder reads (`EncodableSpan`), in the `ReadableSpan` shape sanitization and tests read, plus the two changes the judge makes. */
export interface ForwardedSpan extends EncodableSpan {
  name: string;
  readonly kind: number;
  spanContext(): SpanContext;
  readonly parentSpanContext?: SpanContext;
  readonly startTime: HrTime;
  endTime: HrTime;
  duration: HrTime;
  endTimeUnixNano: bigint;
  traceState?: string;
  status: { code: number; message?: string };
  attributes: Attributes;
  readonly links: {
    context: SpanContext;
    traceId: string;
    spanId: string;
    traceState?: string;
    flags?: number;
    attributes: Attributes;
    droppedAttributesCount?: number;
  }[];
  readonly events: {
    name: string;
    time: HrTime;
    timeUnixNano: bigint;
    attributes: Attributes;
    droppedAttributesCount?: number;
  }[];
  readonly ended: true;
  readonly resource: ForwardedResource;
  readonly instrumentationScope: { readonly name: string; readonly version?: string };
  readonly droppedAttributesCount: number;
  readonly droppedEventsCount: number;
  readonly droppedLinksCount: number;
  /** Sets the end of a span that arrived open, cut off at its run's end (epoch milliseconds). */
  endAt(millis: number): void;
  /** Sanitizes every field in place (the resource and scope are sanitized once, by the cache that made them). */
  sanitize(sanitizer: Sanitizer, tally: RedactionTally): void;
}

function durationOf(start: HrTime, end: HrTime): HrTime {
  let seconds = end[0] - start[0];
  let nanos = end[1] - start[1];
  if (nanos < 0) {
    seconds -= 1;
    nanos += 1_000_000_000;
  }
  return seconds < 0 ? [0, 0] : [seconds, nanos];
}

/** What a span is forwarded under: its sanitized resource and scope, shared by the spans of one request's resource and scope. */
export interface ForwardedEnvelope {
  readonly resource: ForwardedResource;
  readonly otlpResource: EncodableResource;
  readonly otlpScope: EncodableScope;
}

/** The forwardable span of `decoded`, under `envelope`. */
export function forwardedSpan(decoded: DecodedSpan, envelope: ForwardedEnvelope): ForwardedSpan {
  const context: SpanContext = {
    traceId: decoded.traceId,
    spanId: decoded.spanId,
    traceFlags: (decoded.flags ?? SAMPLED) & 0xff,
  };
  const startTime = hr(decoded.startTimeUnixNano);
  // A span that arrived open and is not cut off by a run keeps a zero duration.
  const endNanos = decoded.endTimeUnixNano ?? decoded.startTimeUnixNano;
  const endTime = hr(endNanos);
  const span: ForwardedSpan = {
    traceId: decoded.traceId,
    spanId: decoded.spanId,
    parentSpanId: decoded.parentSpanId,
    traceState: decoded.traceState,
    flags: decoded.flags,
    name: decoded.name,
    otlpKind: decoded.kind,
    // The OTLP numbering starts at 1 (internal); the API's at 0.
    kind: Math.max(0, decoded.kind - 1),
    spanContext: () => context,
    parentSpanContext:
      decoded.parentSpanId === undefined
        ? undefined
        : { traceId: decoded.traceId, spanId: decoded.parentSpanId, traceFlags: SAMPLED },
    startTime,
    startTimeUnixNano: decoded.startTimeUnixNano,
    endTime,
    endTimeUnixNano: endNanos,
    duration: durationOf(startTime, endTime),
    status:
      decoded.statusMessage === undefined
        ? { code: decoded.statusCode }
        : { code: decoded.statusCode, message: decoded.statusMessage },
    attributes: spanAttributesOf(decoded.attributes),
    links: decoded.links.map((l) => ({
      context: { traceId: l.traceId, spanId: l.spanId, traceFlags: (l.flags ?? SAMPLED) & 0xff },
      traceId: l.traceId,
      spanId: l.spanId,
      traceState: l.traceState,
      flags: l.flags,
      attributes: spanAttributesOf(l.attributes),
      droppedAttributesCount: l.droppedAttributesCount,
    })),
    events: decoded.events.map((e) => ({
      name: e.name,
      time: hr(e.timeUnixNano),
      timeUnixNano: e.timeUnixNano,
      attributes: spanAttributesOf(e.attributes),
      droppedAttributesCount: e.droppedAttributesCount ?? 0,
    })),
    ended: true,
    resource: envelope.resource,
    otlpResource: envelope.otlpResource,
    otlpScope: envelope.otlpScope,
    instrumentationScope: { name: envelope.otlpScope.name, version: envelope.otlpScope.version },
    droppedAttributesCount: decoded.droppedAttributesCount ?? 0,
    droppedEventsCount: decoded.droppedEventsCount ?? 0,
    droppedLinksCount: decoded.droppedLinksCount ?? 0,
    endAt(millis) {
      span.endTime = hrOfMillis(millis);
      span.endTimeUnixNano = BigInt(span.endTime[0]) * 1_000_000_000n + BigInt(span.endTime[1]);
      span.duration = durationOf(span.startTime, span.endTime);
    },
    sanitize(sanitizer, tally) {
      sanitizeSpanInPlace(span as unknown as SanitizableSpan, sanitizer, tally);
      // Trace states are free text a sender chose: the same rules apply.
      if (span.traceState !== undefined) span.traceState = scrubCounted(span.traceState, sanitizer, tally);
      for (const link of span.links)
        if (link.traceState !== undefined) link.traceState = scrubCounted(link.traceState, sanitizer, tally);
    },
  };
  return span;
}

/** `text` scrubbed, one change counted when it changed; a scrub that throws gives the marker. */
function scrubCounted(text: string, sanitizer: Sanitizer, tally: RedactionTally): string {
  let scrubbed: string;
  try {
    scrubbed = sanitizer.scrub(text, tally);
  } catch {
    scrubbed = UNSANITIZABLE;
  }
  if (scrubbed !== text) tally.changed += 1;
  return scrubbed;
}

/**
 * A received span as the gateway forwards it: a plain object with the shape
 * the OTLP serializers read (`ReadableSpan`), built straight from the decoded
 * span with its own ids, times, resource and scope. No tracer made it.
 */
import type { HrTime, SpanContext } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { DecodedSpan, SpanAttributeValue } from '../otlp/otlp-json-spans.js';
import { spanAttributesOf } from '../otlp/otlp-json-spans.js';
import type { SanitizableSpan } from '../sanitize/sanitize-span.js';
import { sanitizeSpanInPlace } from '../sanitize/sanitize-span.js';
import type { Sanitizer } from '../sanitize/sanitizer.js';
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

/** A forwardable span: what the serializers read, plus the two changes the judge makes. */
export interface ForwardedSpan {
  name: string;
  readonly kind: number;
  spanContext(): SpanContext;
  readonly parentSpanContext?: SpanContext;
  readonly startTime: HrTime;
  endTime: HrTime;
  duration: HrTime;
  status: { code: number; message?: string };
  attributes: Attributes;
  readonly links: { context: SpanContext; attributes: Attributes }[];
  readonly events: { name: string; time: HrTime; attributes: Attributes; droppedAttributesCount?: number }[];
  readonly ended: true;
  readonly resource: Resource;
  instrumentationScope: { readonly name: string; readonly version?: string };
  readonly droppedAttributesCount: number;
  readonly droppedEventsCount: number;
  readonly droppedLinksCount: number;
  /** Sets the end of a span that arrived open, cut off at its run's end (epoch milliseconds). */
  endAt(millis: number): void;
  /** Sanitizes every field in place. */
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

/** The forwardable span of `decoded`, under `resource` (shared by the spans of one request's resource). */
export function forwardedSpan(decoded: DecodedSpan, resource: Resource): ForwardedSpan {
  const context: SpanContext = { traceId: decoded.traceId, spanId: decoded.spanId, traceFlags: SAMPLED };
  const startTime = hr(decoded.startTimeUnixNano);
  // A span that arrived open and is not cut off by a run keeps a zero duration.
  const endTime = decoded.endTimeUnixNano === undefined ? startTime : hr(decoded.endTimeUnixNano);
  const span: ForwardedSpan = {
    name: decoded.name,
    // The OTLP numbering starts at 1 (internal); the API's at 0.
    kind: Math.max(0, decoded.kind - 1),
    spanContext: () => context,
    parentSpanContext: decoded.parentSpanId === undefined ? undefined : { traceId: decoded.traceId, spanId: decoded.parentSpanId, traceFlags: SAMPLED },
    startTime,
    endTime,
    duration: durationOf(startTime, endTime),
    status: decoded.statusMessage === undefined ? { code: decoded.statusCode } : { code: decoded.statusCode, message: decoded.statusMessage },
    attributes: spanAttributesOf(decoded.attributes),
    links: decoded.links.map((l) => ({ context: { traceId: l.traceId, spanId: l.spanId, traceFlags: SAMPLED }, attributes: spanAttributesOf(l.attributes) })),
    events: decoded.events.map((e) => ({ name: e.name, time: hr(e.timeUnixNano), attributes: spanAttributesOf(e.attributes), droppedAttributesCount: e.droppedAttributesCount ?? 0 })),
    ended: true,
    resource,
    instrumentationScope: { name: decoded.scopeName ?? '', version: decoded.scopeVersion },
    droppedAttributesCount: decoded.droppedAttributesCount ?? 0,
    droppedEventsCount: decoded.droppedEventsCount ?? 0,
    droppedLinksCount: decoded.droppedLinksCount ?? 0,
    endAt(millis) {
      span.endTime = hrOfMillis(millis);
      span.duration = durationOf(span.startTime, span.endTime);
    },
    sanitize(sanitizer, tally) {
      sanitizeSpanInPlace(span as unknown as SanitizableSpan, sanitizer, tally);
      // The scope's name and version are free text a sender chose: the same rules apply.
      const scope = span.instrumentationScope;
      const name = sanitizer.scrub(scope.name, tally);
      const version = scope.version === undefined ? undefined : sanitizer.scrub(scope.version, tally);
      if (name !== scope.name || version !== scope.version) {
        tally.changed += 1;
        span.instrumentationScope = { name, version };
      }
    },
  };
  return span;
}

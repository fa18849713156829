/**
 * What the recorders read from and write on a span beyond the OpenTelemetry
 * API: an SDK span exposes its start time, name and attributes, and API 1.9
 * spans take links after they start. Each read is optional, so a span of no
 * SDK (or an older one) simply goes without.
 */
import type { Link, Span } from '@opentelemetry/api';
import { ATTR_INCIDENT_TRUNCATED } from '../model/attributes.js';
import { hrTimeToMillis } from '../model/hr-time.js';
import { GEN_AI } from '../model/native-convention.js';
import { toHrTime } from './clock.js';

/** The start time of an SDK span in epoch milliseconds, when the span exposes it. */
export function startMillisOf(span: Span): number | undefined {
  const start = hrTimeToMillis((span as { readonly startTime?: unknown }).startTime);
  return Number.isFinite(start) ? start : undefined;
}

/** The name of an SDK span, when the span exposes it. */
export function nameOf(span: Span): string | undefined {
  const name = (span as { readonly name?: unknown }).name;
  return typeof name === 'string' ? name : undefined;
}

/** The `error.type` a span has now, when its SDK exposes its attributes (an SDK span does). */
export function errorTypeOf(span: Span): unknown {
  return (span as { readonly attributes?: Readonly<Record<string, unknown>> }).attributes?.[GEN_AI.ERROR_TYPE];
}

/** Adds `link` to a started span: links after start are API 1.9+, and an older span simply goes without. */
export function addLinkAfterStart(span: Span, link: Link): void {
  (span as { addLink?: (link: Link) => unknown }).addLink?.(link);
}

/** Marks a span cut off at its run's end (`incident.truncated`); ends it when the recorder owns it. */
export function markCut(span: Span, owned: boolean, endMillis: number): void {
  if (!span.isRecording()) return;
  span.setAttribute(ATTR_INCIDENT_TRUNCATED, true);
  if (owned) span.end(toHrTime(endMillis));
}

/**
 * The parts of an OpenTelemetry SDK span and span processor the processor
 * uses, written as structural types. Both SDK lines fit them: 2.x
 * (`@opentelemetry/sdk-trace-base`, API 1.9) and 3.x (`@opentelemetry/sdk-trace`,
 * API 1.10), so the published declarations import neither package and an app
 * type-checks against whichever it installed (docs/compatibility.md).
 *
 * Attribute values are `unknown`: API 1.10 made them `AnyValue` (maps, bytes,
 * mixed arrays, null), and the fold and the sanitizer read every shape.
 */
import type { Context, HrTime, SpanContext, Span as ApiSpan } from '@opentelemetry/api';

/** A span's attributes as an SDK holds them: any `AnyValue` per key. */
export type SdkAttributes = Record<string, unknown>;

/** A span event as an SDK records it. */
export interface SdkTimedEvent {
  name: string;
  readonly time: HrTime;
  attributes?: SdkAttributes;
  readonly droppedAttributesCount?: number;
}

/** A span link as an SDK records it. */
export interface SdkLink {
  readonly context: SpanContext;
  attributes?: SdkAttributes;
  readonly droppedAttributesCount?: number;
}

/**
 * An ended span, as a processor's `onEnd` and an exporter receive it: the
 * fields of `ReadableSpan` in both SDK lines that this package reads.
 */
export interface SdkReadableSpan {
  readonly name: string;
  readonly kind: number;
  readonly spanContext: () => SpanContext;
  readonly parentSpanContext?: SpanContext;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  readonly status: { readonly code: number; readonly message?: string };
  readonly attributes: SdkAttributes;
  readonly links: readonly SdkLink[];
  readonly events: readonly SdkTimedEvent[];
  readonly ended: boolean;
  readonly resource?: { readonly attributes: SdkAttributes };
  readonly instrumentationScope?: { readonly name: string; readonly version?: string };
  readonly droppedAttributesCount?: number;
  readonly droppedEventsCount?: number;
  readonly droppedLinksCount?: number;
}

/**
 * A recording span as a processor's `onStart` and `onEnding` receive it: the
 * API span's methods plus the readable fields, which the processor rewrites
 * while the span is ending (its verdict, sanitization).
 */
export interface SdkSpan extends ApiSpan {
  name: string;
  readonly kind: number;
  readonly parentSpanContext?: SpanContext;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  status: { code: number; message?: string };
  attributes: SdkAttributes;
  readonly links: SdkLink[];
  readonly events: SdkTimedEvent[];
  readonly ended: boolean;
  readonly instrumentationScope?: { readonly name: string; readonly version?: string };
  readonly droppedAttributesCount?: number;
  readonly droppedEventsCount?: number;
  readonly droppedLinksCount?: number;
}

/** The span processor hooks of both SDK lines; `onEnding` is called by SDKs that have it (sdk-trace-base since 2.3, sdk-trace 3). */
export interface SdkSpanProcessor {
  onStart(span: SdkSpan, parentContext: Context): void;
  onEnding?(span: SdkSpan): void;
  onEnd(span: SdkReadableSpan): void;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

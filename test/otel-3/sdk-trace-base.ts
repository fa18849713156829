/**
 * The 2.x names the root's tests import from `@opentelemetry/sdk-trace-base`,
 * made of OpenTelemetry JS 3's `@opentelemetry/sdk-trace` (vitest.config.ts
 * aliases the one to this file): the tests drive the 3.x SDK unchanged. Only
 * what differs is adapted: 3.x names the provider `TracerProvider` and its
 * span processors take `{ exporter }`.
 */
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import * as sdk from '@opentelemetry/sdk-trace';

export type { ReadableSpan, Span, SpanExporter, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace';
export { InMemorySpanExporter } from '@opentelemetry/sdk-trace';

/** 3.x `TracerProvider` under its 2.x name. */
export class BasicTracerProvider extends sdk.TracerProvider {}

/** 3.x `SimpleSpanProcessor`, built the 2.x way: `new SimpleSpanProcessor(exporter)`. */
export class SimpleSpanProcessor extends sdk.SimpleSpanProcessor {
  constructor(exporter: SpanExporter) {
    super({ exporter });
  }
}

/** 3.x `BatchSpanProcessor`, built the 2.x way: `new BatchSpanProcessor(exporter, config)`. */
export class BatchSpanProcessor extends sdk.BatchSpanProcessor {
  constructor(
    exporter: SpanExporter,
    config: Omit<ConstructorParameters<typeof sdk.BatchSpanProcessor>[0], 'exporter'> = {},
  ) {
    super({ ...config, exporter });
  }
}

/**
 * A span exporter that keeps every span it is given, even after shutdown
 * (unlike the SDK's InMemorySpanExporter, which clears itself on shutdown, so
 * the spans a processor finalizes at shutdown would be lost to the reader).
 */
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/** Keeps exported spans in `spans`, in export order. */
export class KeepingExporter implements SpanExporter {
  readonly spans: ReadableSpan[] = [];

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.spans.push(...spans);
    done({ code: 0 });
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

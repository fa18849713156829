/** A metric reader tests can collect from on demand. */
import { MetricReader } from '@opentelemetry/sdk-metrics';

/** Collects only when `collect()` is called. */
export class CollectingReader extends MetricReader {
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

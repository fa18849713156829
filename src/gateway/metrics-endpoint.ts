/**
 * `GET /metrics`: the gateway's counters (`gateway-metrics.ts`) with the live gauges of what it holds and how
 * long requests wait behind synchronous work (decoding, folding), in the Prometheus text format.
 */
import type { IntervalHistogram } from 'node:perf_hooks';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { GatewayState, StateParts } from './gateway-state.js';

/** The Prometheus text exposition's content type. */
export const METRICS_TYPE = 'text/plain; version=0.0.4';

/** Renders a gateway's `/metrics` page; measures the event loop's delay between scrapes while started. */
export class MetricsEndpoint {
  readonly #loopDelay: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });

  /** @param workers the gateway's worker threads (0: it folds in its own thread) */
  constructor(
    private readonly state: GatewayState<StateParts>,
    private readonly workers = 0,
  ) {}

  /** Starts measuring the event loop's delay. */
  start(): void {
    this.#loopDelay.enable();
  }

  /** Stops measuring. */
  stop(): void {
    this.#loopDelay.disable();
  }

  /** The page. Each scrape reads the delay since the previous one. */
  render(): string {
    const { store, forwarder, spill, metrics } = this.state.parts;
    const delay = this.#loopDelay;
    const page = metrics.render({
      traces: store.traces,
      spans: store.spans,
      bytes: this.state.heldBytes(),
      backlogSpans: forwarder.backlogSpans,
      persistedBytes: spill?.bytes ?? 0,
      eventLoopDelayP99Seconds: delay.count > 0 ? delay.percentile(99) / 1e9 : 0,
      eventLoopDelayMaxSeconds: delay.count > 0 ? delay.max / 1e9 : 0,
      requestsInHand: this.state.inHand,
      workers: this.workers,
    });
    delay.reset();
    return page;
  }
}

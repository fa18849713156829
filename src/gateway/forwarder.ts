/**
 * Delivers folded spans upstream over OTLP/HTTP, one request at a time, in
 * order. 429, 502, 503, 504 and network errors are retried with doubling
 * backoff (a `Retry-After` wins); other answers drop the batch, counted. The
 * backlog is bounded by the caller, which stops intake when it is full.
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { GatewayConfig } from './config.js';
import type { GatewayMetrics } from './gateway-metrics.js';

const RETRYABLE = new Set([429, 502, 503, 504]);

interface Batch {
  readonly body: Uint8Array;
  readonly spans: number;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const wake = (): void => {
      clearTimeout(timer);
      // Removed on every wake: a long outage must not pile listeners on the signal.
      signal.removeEventListener('abort', wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    signal.addEventListener('abort', wake, { once: true });
  });
}

/** Seconds of a `Retry-After` header (delta seconds only), in milliseconds. */
function retryAfterMillis(value: string | null): number | undefined {
  if (value === null) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

/** The upstream side of a gateway. */
export class Forwarder {
  readonly #config: GatewayConfig['upstream'];
  readonly #metrics: GatewayMetrics;
  readonly #queue: Batch[] = [];
  readonly #stop = new AbortController();
  #backlog = 0;
  #draining = false;
  #running: Promise<void> = Promise.resolve();

  constructor(config: GatewayConfig['upstream'], metrics: GatewayMetrics) {
    this.#config = config;
    this.#metrics = metrics;
  }

  /** Spans queued or in flight. */
  get backlogSpans(): number {
    return this.#backlog;
  }

  /** Queues `spans` for delivery. */
  send(spans: readonly ReadableSpan[]): void {
    if (spans.length === 0) return;
    let body: Uint8Array | undefined;
    try {
      body = this.#config.encoding === 'json' ? JsonTraceSerializer.serializeRequest([...spans]) : ProtobufTraceSerializer.serializeRequest([...spans]);
    } catch {
      body = undefined;
    }
    if (!body) {
      // Spans that cannot be encoded are dropped, and counted: never silently.
      this.#metrics.spansDropped += spans.length;
      return;
    }
    this.#queue.push({ body, spans: spans.length });
    this.#backlog += spans.length;
    if (!this.#draining) {
      this.#draining = true;
      this.#running = this.#drain();
    }
  }

  /** Resolves when everything queued so far was delivered or given up. */
  async idle(): Promise<void> {
    while (this.#draining) await this.#running;
  }

  /** Stops retrying (pending batches get one last try without waiting). */
  stop(): void {
    this.#stop.abort();
  }

  async #drain(): Promise<void> {
    try {
      for (let batch = this.#queue.shift(); batch; batch = this.#queue.shift()) {
        const delivered = await this.#deliver(batch);
        this.#backlog -= batch.spans;
        if (delivered) this.#metrics.spansForwarded += batch.spans;
        else this.#metrics.spansDropped += batch.spans;
      }
    } finally {
      // Cleared in the same turn as the empty check: a batch queued later starts a new drain.
      this.#draining = false;
    }
  }

  async #deliver(batch: Batch): Promise<boolean> {
    const { maxAttempts, initialBackoffMillis, maxBackoffMillis } = this.#config;
    let backoff = initialBackoffMillis;
    for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
      let wait: number | undefined;
      try {
        const response = await fetch(this.#config.endpoint, {
          method: 'POST',
          headers: {
            'content-type': this.#config.encoding === 'json' ? 'application/json' : 'application/x-protobuf',
            ...this.#config.headers,
          },
          body: batch.body,
          signal: AbortSignal.timeout(this.#config.timeoutMillis),
        });
        await response.arrayBuffer().catch(() => undefined);
        if (response.ok) return true;
        if (!RETRYABLE.has(response.status)) return false;
        wait = retryAfterMillis(response.headers.get('retry-after'));
      } catch {
        // A network error or a timeout: the upstream may come back.
      }
      if (attempt === maxAttempts || this.#stop.signal.aborted) break;
      this.#metrics.forwardRetries += 1;
      await sleep(Math.min(wait ?? backoff, maxBackoffMillis), this.#stop.signal);
      backoff = Math.min(backoff * 2, maxBackoffMillis);
    }
    return false;
  }
}

/**
 * Delivers folded spans upstream over OTLP/HTTP, one request at a time, in
 * order. 429, 502, 503, 504, network errors and timeouts are retried with
 * doubling backoff (a `Retry-After` wins) until the batch is delivered: a
 * batch is given up only when `upstream.maxAttempts` is set and spent, or when
 * upstream refuses it for good (another 4xx/5xx), and then it is counted and
 * logged. A delivered or given-up batch releases its stored requests, so the
 * persistent queue forgets them; a batch still queued when the gateway stops
 * stays in the queue on disk for the next start.
 */
import { diag } from '@opentelemetry/api';
import type { EncodableSpan } from '../otlp/otlp-encode.js';
import { encodeTraceRequestJson, encodeTraceRequestProtobuf } from '../otlp/otlp-encode.js';
import type { GatewayConfig } from './config.js';
import type { GatewayMetrics } from './gateway-metrics.js';
import type { SpillRecord } from './spill-log.js';

const RETRYABLE = new Set([408, 429, 502, 503, 504]);

interface Batch {
  readonly body: Uint8Array;
  readonly spans: number;
  /** Spans of each stored request in the batch. */
  readonly records: ReadonlyMap<SpillRecord, number>;
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

function releaseAll(records: ReadonlyMap<SpillRecord, number>): void {
  for (const [record, spans] of records) record.release(spans);
}

/** The upstream side of a gateway. */
export class Forwarder {
  readonly #config: GatewayConfig['upstream'];
  readonly #metrics: GatewayMetrics;
  readonly #queue: Batch[] = [];
  readonly #stop = new AbortController();
  #backlog = 0;
  #backlogBytes = 0;
  #failures = 0;
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

  /** Bytes of the encoded requests queued or in flight. */
  get backlogBytes(): number {
    return this.#backlogBytes;
  }

  /** Attempts that failed in a row (0 after a delivery): how long upstream has been failing. */
  get consecutiveFailures(): number {
    return this.#failures;
  }

  /**
   * Queues `spans` for delivery; `records[i]` is the stored request of
   * `spans[i]`, released once the span is delivered or given up.
   */
  send(spans: readonly EncodableSpan[], records: readonly (SpillRecord | undefined)[] = []): void {
    if (spans.length === 0) return;
    const byRecord = new Map<SpillRecord, number>();
    for (const record of records) if (record) byRecord.set(record, (byRecord.get(record) ?? 0) + 1);
    let body: Uint8Array | undefined;
    try {
      body = this.#config.encoding === 'json' ? encodeTraceRequestJson(spans) : encodeTraceRequestProtobuf(spans);
    } catch (error) {
      diag.error('agent-incidents gateway: spans could not be encoded', error);
      body = undefined;
    }
    if (!body) {
      // Spans that cannot be encoded would fail the same way after a restart: dropped, counted, logged.
      this.#metrics.dropped('unencodable', spans.length);
      releaseAll(byRecord);
      return;
    }
    this.#queue.push({ body, spans: spans.length, records: byRecord });
    this.#backlog += spans.length;
    this.#backlogBytes += body.length;
    if (!this.#draining && !this.#stop.signal.aborted) {
      this.#draining = true;
      this.#running = this.#drain();
    }
  }

  /** Resolves when everything queued so far was delivered or given up, or when the forwarder stopped. */
  async idle(): Promise<void> {
    while (this.#draining) await this.#running;
  }

  /**
   * Stops delivering: the request in flight is aborted and nothing more is
   * sent. Returns the spans left undelivered; their stored requests are not
   * released (a persistent queue delivers them on the next start).
   */
  async stop(): Promise<number> {
    this.#stop.abort();
    await this.idle();
    return this.#backlog;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0 && !this.#stop.signal.aborted) {
        const batch = this.#queue[0]!;
        const result = await this.#deliver(batch);
        if (result === 'stopped') break;
        this.#queue.shift();
        this.#backlog -= batch.spans;
        this.#backlogBytes -= batch.body.length;
        if (result === 'delivered') this.#metrics.spansForwarded += batch.spans;
        else this.#metrics.dropped(result, batch.spans);
        releaseAll(batch.records);
      }
    } finally {
      // Cleared in the same turn as the empty check: a batch queued later starts a new drain.
      this.#draining = false;
    }
  }

  async #deliver(batch: Batch): Promise<'delivered' | 'upstream_rejected' | 'retries_exhausted' | 'stopped'> {
    const { maxAttempts, initialBackoffMillis, maxBackoffMillis } = this.#config;
    let backoff = initialBackoffMillis;
    for (let attempt = 1; ; attempt += 1) {
      let wait: number | undefined;
      let failure: string;
      try {
        const response = await fetch(this.#config.endpoint, {
          method: 'POST',
          headers: {
            'content-type': this.#config.encoding === 'json' ? 'application/json' : 'application/x-protobuf',
            ...this.#config.headers,
          },
          body: batch.body,
          signal: AbortSignal.any([this.#stop.signal, AbortSignal.timeout(this.#config.timeoutMillis)]),
        });
        await response.arrayBuffer().catch(() => undefined);
        if (response.ok) {
          this.#failures = 0;
          return 'delivered';
        }
        if (!RETRYABLE.has(response.status)) {
          // Refused for good: the same bytes would be refused again, after a restart too.
          diag.error(`agent-incidents gateway: upstream refused ${batch.spans} spans with HTTP ${response.status}; they are dropped`);
          this.#failures = 0;
          return 'upstream_rejected';
        }
        wait = retryAfterMillis(response.headers.get('retry-after'));
        failure = `HTTP ${response.status}`;
      } catch (error) {
        if (this.#stop.signal.aborted) return 'stopped';
        // A network error or a timeout: the upstream may come back.
        failure = (error as Error).message;
      }
      this.#failures += 1;
      if (maxAttempts !== undefined && attempt >= maxAttempts) {
        // The batch is given up: nothing is left to fail, and new requests must not be refused for it.
        this.#failures = 0;
        diag.error(`agent-incidents gateway: ${batch.spans} spans dropped after ${attempt} attempts (upstream.maxAttempts), last: ${failure}`);
        return 'retries_exhausted';
      }
      if (this.#failures === 1 || this.#failures % 10 === 0) diag.warn(`agent-incidents gateway: upstream failing (${failure}), ${this.#failures} attempt(s) in a row; retrying`);
      this.#metrics.forwardRetries += 1;
      await sleep(Math.min(wait ?? backoff, maxBackoffMillis), this.#stop.signal);
      if (this.#stop.signal.aborted) return 'stopped';
      backoff = Math.min(backoff * 2, maxBackoffMillis);
    }
  }
}

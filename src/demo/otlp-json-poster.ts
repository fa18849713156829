/**
 * Sends the demo's spans to an OTLP/HTTP traces endpoint as OTLP/JSON, in
 * batches, one request at a time, with the package's own encoder: the demo
 * needs no exporter package. The first failure is kept and ends the sending
 * (an unreachable collector must not cost a timeout per batch); the file is
 * written regardless.
 */
import type { EncodableSpan } from '../otlp/otlp-encode.js';
import { encodeTraceRequestJson } from '../otlp/otlp-encode.js';

/** @default 512 spans per request, the SDK's BatchSpanProcessor default */
const BATCH_SPANS = 512;
/** @default 8 batches waiting before the demo waits for the endpoint */
const MAX_PENDING_BATCHES = 8;
/** @default 10 s per request, the OTLP exporters' default */
const REQUEST_TIMEOUT_MILLIS = 10_000;

/** Posts spans to one endpoint; remembers the first failure. */
export class OtlpJsonPoster {
  readonly #url: string;
  #batch: EncodableSpan[] = [];
  readonly #pending: EncodableSpan[][] = [];
  #sending: Promise<void> | undefined;
  /** The request being sent: ends when it has, whatever its answer. */
  #request: Promise<void> | undefined;
  /** The first failure, when a request failed or was refused. */
  error: string | undefined;

  constructor(url: string) {
    this.#url = url;
  }

  /** Queues the spans of a finished trace. */
  add(spans: readonly EncodableSpan[]): void {
    if (this.error !== undefined) return;
    this.#batch.push(...spans);
    if (this.#batch.length >= BATCH_SPANS) this.#queueBatch();
  }

  /** Resolves once few enough batches wait: the demo's backpressure. */
  async ready(): Promise<void> {
    // Each request that ends lets one batch more go: wait for the next, not for the whole queue.
    while (this.#pending.length > MAX_PENDING_BATCHES && this.#sending) await (this.#request ?? this.#sending);
  }

  /** Sends what is queued and resolves when every request has ended. */
  async flush(): Promise<void> {
    this.#queueBatch();
    while (this.#sending) await this.#sending;
  }

  #queueBatch(): void {
    if (this.#batch.length === 0 || this.error !== undefined) return;
    this.#pending.push(this.#batch);
    this.#batch = [];
    this.#sending ??= this.#pump().finally(() => {
      this.#sending = undefined;
    });
  }

  async #pump(): Promise<void> {
    for (let batch = this.#pending.shift(); batch && this.error === undefined; batch = this.#pending.shift()) {
      this.#request = this.#post(batch);
      await this.#request;
    }
    this.#request = undefined;
    this.#pending.length = 0;
  }

  /** Posts one batch; never rejects: a failure is kept in {@link error}. */
  async #post(batch: readonly EncodableSpan[]): Promise<void> {
    try {
      const response = await fetch(this.#url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: encodeTraceRequestJson(batch),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MILLIS),
      });
      await response.arrayBuffer();
      if (!response.ok) this.error = `HTTP ${response.status} ${response.statusText}`.trim();
    } catch (error) {
      const cause = (error as { cause?: { message?: string; code?: string } }).cause;
      this.error = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
    }
  }
}

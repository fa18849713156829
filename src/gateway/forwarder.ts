// Over 300 lines: one delivery loop (queue, retry with backoff, split on refusal, repair, release),
// kept together so that every path through it releases the stored requests of its batch.
/**
 * Delivers folded spans upstream over OTLP/HTTP, one request at a time, in
 * order (docs/gateway.md, "Delivery guarantee"). 408, 429, 502, 503, 504,
 * network errors and timeouts are retried with doubling backoff (a
 * `Retry-After` wins) until the batch is delivered. Any other status refuses
 * the batch for good: it is split in two and each half sent again, down to
 * single spans, so only the spans upstream refuses are dropped, counted and
 * logged with their trace ids. A span the encoder cannot write is repaired
 * (the value replaced by a marker), never dropped with its batch-mates. A
 * delivered or given-up batch releases its stored requests, so the persistent
 * queue forgets them; a batch still queued when the gateway stops stays in
 * the queue on disk for the next start.
 */
import { diag } from '@opentelemetry/api';
import { encodableSpansOf } from '../otlp/encodable-of-decoded.js';
import type { EncodableSpan } from '../otlp/otlp-encode.js';
import { encodeTraceRequestJson, encodeTraceRequestProtobuf } from '../otlp/otlp-encode.js';
import { decodeOtlpJsonSpans } from '../otlp/otlp-json-spans.js';
import { decodeExportTraceRequest } from '../otlp/otlp-protobuf.js';
import { repairedSpan } from '../otlp/repair-span.js';
import type { GatewayConfig } from './config.js';
import { DropLog } from './drop-log.js';
import type { GatewayMetrics } from './gateway-metrics.js';
import type { HeldRequest } from './spill-log.js';

/** Statuses OTLP/HTTP says to retry, and 408 (the request timed out on the way). */
const RETRYABLE = new Set([408, 429, 502, 503, 504]);

interface Batch {
  readonly body: Uint8Array;
  readonly spans: number;
  /**
   * Spans of each stored request in the batch. When a batch is split, the
   * later half carries them all: halves are delivered in order, so the stored
   * requests are released only once both halves are done.
   */
  readonly records: ReadonlyMap<HeldRequest, number>;
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

function releaseAll(records: ReadonlyMap<HeldRequest, number>): void {
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
  readonly #drops = new DropLog();

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
  send(spans: readonly EncodableSpan[], records: readonly (HeldRequest | undefined)[] = []): void {
    if (spans.length === 0) return;
    const byRecord = new Map<HeldRequest, number>();
    for (const record of records) if (record) byRecord.set(record, (byRecord.get(record) ?? 0) + 1);
    const { body, sent, leftOut } = this.#encode(spans);
    if (sent < spans.length) {
      this.#metrics.dropped('unencodable', spans.length - sent);
      this.#drops.write({
        reason: 'unencodable',
        spans: spans.length - sent,
        // The traces of the spans left out, not of their batch-mates that go on.
        traceIds: leftOut.map((s) => s.traceId),
        detail: 'the span could not be encoded, even repaired',
      });
    }
    if (body === undefined) {
      releaseAll(byRecord);
      return;
    }
    this.#enqueue({ body, spans: sent, records: byRecord });
  }

  #enqueue(batch: Batch, first = false): void {
    if (first) this.#queue.unshift(batch);
    else this.#queue.push(batch);
    this.#backlog += batch.spans;
    this.#backlogBytes += batch.body.length;
    if (!this.#draining && !this.#stop.signal.aborted) {
      this.#draining = true;
      this.#running = this.#drain();
    }
  }

  /**
   * The request body of `spans`. One value must not cost its batch-mates:
   * when the batch cannot be encoded, each span that cannot is repaired (its
   * unwritable values replaced by a marker, counted); a span that still
   * cannot is left out (`sent` says how many went in, `leftOut` which).
   */
  #encode(spans: readonly EncodableSpan[]): {
    body: Uint8Array | undefined;
    sent: number;
    leftOut: readonly EncodableSpan[];
  } {
    const encode = this.#config.encoding === 'json' ? encodeTraceRequestJson : encodeTraceRequestProtobuf;
    try {
      return { body: encode(spans), sent: spans.length, leftOut: [] };
    } catch (error) {
      diag.warn('agent-incidents gateway: a batch could not be encoded; repairing the spans that cannot be', error);
    }
    const writable: EncodableSpan[] = [];
    const leftOut: EncodableSpan[] = [];
    for (const span of spans) {
      try {
        encode([span]);
        writable.push(span);
        continue;
      } catch {
        // repaired below
      }
      const repaired = repairedSpan(span);
      try {
        encode([repaired.span]);
        writable.push(repaired.span);
        this.#metrics.valuesRepaired += repaired.repaired;
      } catch {
        // Not a value: the span itself cannot be written. Left out, counted by the caller.
        leftOut.push(span);
      }
    }
    return { body: writable.length === 0 ? undefined : encode(writable), sent: writable.length, leftOut };
  }

  /**
   * The two halves of a batch upstream refused for good, from its own bytes
   * (the spans are not kept meanwhile); undefined when it holds one span or
   * its bytes do not decode.
   */
  #halves(batch: Batch): [Batch, Batch] | undefined {
    if (batch.spans < 2) return undefined;
    let spans: EncodableSpan[];
    try {
      const request =
        this.#config.encoding === 'json'
          ? (JSON.parse(new TextDecoder().decode(batch.body)) as unknown)
          : decodeExportTraceRequest(batch.body);
      spans = encodableSpansOf(decodeOtlpJsonSpans(request));
    } catch (error) {
      diag.error('agent-incidents gateway: a refused batch could not be read back to split it', error);
      return undefined;
    }
    if (spans.length < 2) return undefined;
    const middle = Math.ceil(spans.length / 2);
    const encode = this.#config.encoding === 'json' ? encodeTraceRequestJson : encodeTraceRequestProtobuf;
    const left = spans.slice(0, middle);
    const right = spans.slice(middle);
    return [
      { body: encode(left), spans: left.length, records: new Map() },
      { body: encode(right), spans: right.length, records: batch.records },
    ];
  }

  /** The trace ids of a batch, read back from its bytes (for the drop log); none when they do not decode. */
  #traceIdsOf(batch: Batch): string[] {
    try {
      const request =
        this.#config.encoding === 'json'
          ? (JSON.parse(new TextDecoder().decode(batch.body)) as unknown)
          : decodeExportTraceRequest(batch.body);
      return decodeOtlpJsonSpans(request).map((span) => span.traceId);
    } catch {
      return [];
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
        if (result.outcome === 'split') {
          // Refused for good with more than one span: each half is tried on its own, in order, before anything else.
          this.#metrics.forwardSplits += 1;
          this.#enqueue(result.halves[1], true);
          this.#enqueue(result.halves[0], true);
          continue;
        }
        if (result.outcome === 'delivered') this.#metrics.spansForwarded += batch.spans;
        else {
          this.#metrics.dropped(result.outcome, batch.spans);
          this.#drops.write({
            reason: result.outcome,
            spans: batch.spans,
            traceIds: this.#traceIdsOf(batch),
            detail: result.detail,
          });
        }
        releaseAll(batch.records);
      }
    } finally {
      // Cleared in the same turn as the empty check: a batch queued later starts a new drain.
      this.#draining = false;
    }
  }

  async #deliver(
    batch: Batch,
  ): Promise<
    | 'stopped'
    | { outcome: 'delivered' | 'upstream_rejected' | 'retries_exhausted'; detail: string }
    | { outcome: 'split'; halves: [Batch, Batch] }
  > {
    const { maxAttempts, initialBackoffMillis, maxBackoffMillis } = this.#config;
    let backoff = initialBackoffMillis;
    for (let attempt = 1; ; attempt += 1) {
      let wait: number | undefined;
      let failure: string;
      // The attempt's deadline is a timer held here, cleared when the attempt ends: an `AbortSignal.timeout`
      // combined by `AbortSignal.any` can be garbage-collected on Node 20 before it fires, and then a
      // black-hole upstream holds the request for undici's own timeout (minutes).
      const attemptAbort = new AbortController();
      const onStop = (): void => attemptAbort.abort(this.#stop.signal.reason);
      this.#stop.signal.addEventListener('abort', onStop, { once: true });
      const deadline = setTimeout(
        () =>
          attemptAbort.abort(
            new Error(`upstream did not answer within ${this.#config.timeoutMillis} ms (upstream.timeoutMillis)`),
          ),
        this.#config.timeoutMillis,
      );
      try {
        const response = await fetch(this.#config.endpoint, {
          method: 'POST',
          headers: {
            'content-type': this.#config.encoding === 'json' ? 'application/json' : 'application/x-protobuf',
            ...this.#config.headers,
          },
          body: batch.body,
          signal: attemptAbort.signal,
        });
        // The answer's body is read under the same deadline.
        await response.arrayBuffer().catch(() => undefined);
        if (response.ok) {
          this.#failures = 0;
          return { outcome: 'delivered', detail: '' };
        }
        if (!RETRYABLE.has(response.status)) {
          // Refused for good: the same bytes would be refused again, after a restart too. One bad span must not cost
          // the others: halves are tried on their own until only the refused spans are left.
          this.#failures = 0;
          const halves = this.#halves(batch);
          if (halves !== undefined) return { outcome: 'split', halves };
          return { outcome: 'upstream_rejected', detail: `HTTP ${response.status}` };
        }
        wait = retryAfterMillis(response.headers.get('retry-after'));
        failure = `HTTP ${response.status}`;
      } catch (error) {
        if (this.#stop.signal.aborted) return 'stopped';
        // A network error or a timeout: the upstream may come back.
        failure = attemptAbort.signal.aborted
          ? String((attemptAbort.signal.reason as Error).message)
          : (error as Error).message;
      } finally {
        clearTimeout(deadline);
        this.#stop.signal.removeEventListener('abort', onStop);
      }
      this.#failures += 1;
      if (maxAttempts !== undefined && attempt >= maxAttempts) {
        // The batch is given up: nothing is left to fail, and new requests must not be refused for it.
        this.#failures = 0;
        const attempts = `${attempt} ${attempt === 1 ? 'attempt' : 'attempts'}`;
        return { outcome: 'retries_exhausted', detail: `${attempts} (upstream.maxAttempts), last: ${failure}` };
      }
      if (this.#failures === 1 || this.#failures % 10 === 0)
        diag.warn(
          `agent-incidents gateway: upstream failing (${failure}), ${this.#failures} attempt(s) in a row; retrying`,
        );
      this.#metrics.forwardRetries += 1;
      await sleep(Math.min(wait ?? backoff, maxBackoffMillis), this.#stop.signal);
      if (this.#stop.signal.aborted) return 'stopped';
      backoff = Math.min(backoff * 2, maxBackoffMillis);
    }
  }
}

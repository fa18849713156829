// Over 300 lines: the worker threads' life (start, messages, exit, restart, re-sending what an exited one held),
// kept together so that no path loses track of an acknowledged request.
/**
 * The intake's side of a gateway with workers (docs/gateway.md, "Workers"): starts the worker threads
 * (`shard-worker.ts`) with heap limits from `limits.maxHeldBytes`, sends them the parts of each request, sums their
 * metrics, and tracks what each still has to deliver of every acknowledged request (`held-requests.ts`). A worker
 * that exits is started again, counted and logged, and given back what it held from the persistent queue.
 */
import { Worker } from 'node:worker_threads';
import { diag } from '@opentelemetry/api';
import type { RequestPart } from '../otlp/otlp-protobuf-split.js';
import type { GatewayConfig } from './config.js';
import type { BodyEncoding } from './decode-body.js';
import type { GatewayMetrics, MetricsSnapshot } from './gateway-metrics.js';
import { ShardCounters } from './shard-counters.js';
import type { FromShard, ShardInit, StagedPart, ToShard } from './shard-protocol.js';
import { workerEntry, workerHeapMib } from './shard-protocol.js';
import { HeldRequests } from './held-requests.js';
import type { SpillLog, SpillRecord } from './spill-log.js';
import { splitBody } from './trace-router.js';

/** Stored segments are read back while what is held stays under this share of the bounds (as without workers). */
const RECOVERY_SHARE = 0.5;
/** A worker that exits sooner than this after it started is started again only after a backoff… */
const STEADY_MILLIS = 1_000;
/** …doubled each time from this, up to the longest: a worker that cannot start must not spin the intake. */
const FIRST_BACKOFF_MILLIS = 50;
const LONGEST_BACKOFF_MILLIS = 5_000;

/** A part sent to a worker to be decoded: which worker, which of its lives, and its answer. */
export interface StagedShard {
  readonly shard: number;
  readonly generation: number;
  readonly id: number;
  readonly part: StagedPart;
}

interface Slot {
  /** Unset while the worker waits to be started again. */
  worker: Worker | undefined;
  generation: number;
  startedAt: number;
  /** The backoff before the next start, when it exits too soon. */
  backoff: number;
  /** The metrics it last posted (unset: none yet). */
  snapshot: MetricsSnapshot | undefined;
  /** Answers awaited, by message id. */
  readonly waiting: Map<number, (reply: FromShard | undefined) => void>;
  /** Parts to send again, kept while it waits to be started. */
  readonly queued: { message: ToShard; transfer: ArrayBuffer[] }[];
}

/** What the pool needs of its gateway. */
export interface ShardPoolOptions {
  readonly config: GatewayConfig;
  readonly metrics: GatewayMetrics;
  readonly spill: SpillLog | undefined;
  readonly workers: number;
  /** The worker module; {@link workerEntry} by default. */
  readonly entry?: URL;
}

/** The worker threads of one gateway. */
export class ShardPool {
  readonly counters: ShardCounters;
  readonly #options: ShardPoolOptions;
  readonly #slots: Slot[] = [];
  readonly #held = new HeldRequests();
  /** Re-sends reading the persistent queue: a drain waits for them. */
  readonly #resending = new Set<Promise<void>>();
  #nextId = 1;
  #holdUntil = 0;
  #partsUntil = 0;
  #closing = false;
  #terminating = false;
  #restarts = 0;

  constructor(options: ShardPoolOptions) {
    this.#options = options;
    this.counters = new ShardCounters(options.workers);
  }

  /** How many workers. */
  get size(): number {
    return this.#slots.length;
  }

  /** Starts the workers. */
  start(): void {
    for (let shard = 0; shard < this.#options.workers; shard += 1) {
      const slot: Slot = {
        worker: undefined,
        generation: 0,
        startedAt: 0,
        backoff: 0,
        snapshot: undefined,
        waiting: new Map(),
        queued: [],
      };
      this.#slots.push(slot);
      this.#spawn(shard, slot);
    }
  }

  /** The thread of worker `shard` as it runs now (tests end it to see it restarted); unset while it waits to start. */
  worker(shard: number): Worker | undefined {
    return this.#slots[shard]!.worker;
  }

  #spawn(shard: number, slot: Slot): void {
    const { config } = this.#options;
    const init: ShardInit = {
      config,
      shard,
      shards: this.#options.workers,
      counters: this.counters.buffer,
      holdUntil: this.#holdUntil,
      partsUntil: this.#partsUntil,
      closing: this.#closing,
    };
    const worker = new Worker(this.#options.entry ?? workerEntry(), {
      workerData: { agentIncidentsShard: init },
      resourceLimits: { maxOldGenerationSizeMb: workerHeapMib(config.limits, this.#options.workers) },
    });
    worker.unref();
    slot.worker = worker;
    slot.startedAt = Date.now();
    slot.snapshot = undefined;
    let failure: Error | undefined;
    worker.on('message', (message: FromShard) => {
      if (slot.worker === worker) this.#receive(shard, slot, message);
    });
    worker.on('error', (error) => (failure = error));
    worker.on('exit', (code) => {
      if (slot.worker === worker) this.#exited(shard, slot, code, failure);
    });
    for (const { message, transfer } of slot.queued.splice(0)) worker.postMessage(message, transfer);
  }

  /** Posts to worker `shard`; while it waits to be started, a part sent again is kept for it and the rest dropped. */
  #post(shard: number, message: ToShard, transfer: ArrayBuffer[] = []): void {
    const slot = this.#slots[shard]!;
    if (slot.worker) slot.worker.postMessage(message, transfer);
    else if (message.type === 'resend') slot.queued.push({ message, transfer });
  }

  /** Sends `message` to worker `shard` and resolves with its answer (undefined when the worker is not running). */
  #ask(shard: number, id: number, message: ToShard, transfer: ArrayBuffer[] = []): Promise<FromShard | undefined> {
    const slot = this.#slots[shard]!;
    if (!slot.worker) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      slot.waiting.set(id, resolve);
      this.#post(shard, message, transfer);
    });
  }

  #receive(shard: number, slot: Slot, message: FromShard): void {
    switch (message.type) {
      case 'staged':
      case 'drained':
      case 'stopped': {
        const resolve = slot.waiting.get(message.id);
        slot.waiting.delete(message.id);
        resolve?.(message);
        return;
      }
      case 'metrics':
        this.#options.metrics.addDifference(slot.snapshot, message.snapshot);
        slot.snapshot = message.snapshot;
        return;
      case 'released':
        for (let i = 0; i < message.releases.length; i += 2)
          this.#held.released(shard, message.releases[i]!, message.releases[i + 1]!);
        return;
      case 'resent':
        if (message.message !== undefined) {
          // It decoded when it was accepted; a part that no longer does is counted and logged, not retried forever.
          this.#options.metrics.dropped('unreadable', 0);
          diag.error(`agent-incidents gateway: a stored request could not be read back: ${message.message}`);
        }
        this.#held.sized(shard, message.request, message.spans);
        return;
      case 'diag':
        diag[message.level](message.message, ...message.args);
        return;
    }
  }

  /** Sends each part to its worker to be decoded; resolves with every answer. */
  stage(parts: readonly RequestPart[], encoding: BodyEncoding, maxItems: number): Promise<StagedShard[]> {
    const asked: Promise<StagedShard>[] = [];
    parts.forEach(({ body }, shard) => {
      if (body === undefined) return;
      const id = this.#nextId++;
      const generation = this.#slots[shard]!.generation;
      const message: ToShard = { type: 'stage', id, encoding, body, maxItems };
      asked.push(
        this.#ask(shard, id, message, [body.buffer as ArrayBuffer]).then((reply) => ({
          shard,
          generation,
          id,
          part:
            reply?.type === 'staged'
              ? reply.part
              : { ok: false, status: 503, message: 'a gateway worker exited while decoding the request' },
        })),
      );
    });
    return Promise.all(asked);
  }

  /** Forgets staged parts (the request was refused). */
  discard(staged: readonly StagedShard[]): void {
    for (const { shard, generation, id } of staged)
      if (this.#slots[shard]!.generation === generation) this.#post(shard, { type: 'discard', id });
  }

  /**
   * Holds staged parts of an acknowledged request; `record` is its place in the persistent queue. A part whose
   * worker exited since it was staged is split again from `body` and sent to the worker's successor.
   */
  commit(staged: readonly StagedShard[], encoding: BodyEncoding, body: Uint8Array, record?: SpillRecord): void {
    const workers = this.#options.workers;
    const request = this.#nextId++;
    const given = new Array<number | undefined>(workers).fill(0);
    const again: number[] = [];
    for (const { shard, generation, part } of staged) {
      if (!part.ok || part.spans === 0) continue;
      given[shard] = part.spans;
      if (this.#slots[shard]!.generation !== generation) again.push(shard);
    }
    // Held before any worker can answer: a release must find it.
    this.#held.add(request, encoding, record, given);
    for (const { shard, generation, id, part } of staged)
      if (part.ok && part.spans > 0 && this.#slots[shard]!.generation === generation)
        this.#post(shard, { type: 'commit', id, request });
    if (again.length === 0) return;
    const split = splitBody(encoding, body, workers);
    for (const shard of again) {
      const part = split.ok ? split.parts[shard]?.body : undefined;
      this.#held.resending(shard, request);
      if (part) this.#resendPart(shard, request, encoding, part);
      else this.#held.none(shard, request);
    }
  }

  #resendPart(shard: number, request: number, encoding: BodyEncoding, body: Uint8Array): void {
    const maxItems = this.#options.config.limits.maxRequestItems;
    this.#post(shard, { type: 'resend', request, encoding, body, maxItems }, [body.buffer as ArrayBuffer]);
  }

  /**
   * Reads back what an earlier process left in the persistent queue, a segment at a time while what is held stays
   * under half the bounds, and sends each request's parts to their workers.
   */
  recover(): void {
    const { spill, config } = this.#options;
    const room = (load = this.counters.total(), { limits } = config): boolean =>
      load.storeBytes + load.backlogBytes + load.keptBytes < limits.maxHeldBytes * RECOVERY_SHARE &&
      load.spans < limits.maxSpans * RECOVERY_SHARE &&
      load.traces < limits.maxTraces * RECOVERY_SHARE;
    while (spill && spill.recoveryPending > 0 && room())
      for (const { type, body, admit } of spill.recoverNext() ?? []) {
        const split = splitBody(type, body, this.#options.workers);
        if (!split.ok) {
          admit(0);
          this.#options.metrics.dropped('unreadable', 0);
          diag.error(`agent-incidents gateway: a stored request could not be read back: ${split.message}`);
          continue;
        }
        const request = this.#nextId++;
        // Held until every worker delivered its part: then all of its pending spans are released at once.
        const given = split.parts.map((part) => (part.body === undefined ? 0 : undefined));
        this.#held.add(request, type, admit(1), given);
        split.parts.forEach((part, shard) => {
          if (part.body !== undefined) this.#resendPart(shard, request, type, part.body);
        });
      }
  }

  /**
   * Worker `shard` exited: counted, logged, started again (after a backoff when it keeps exiting as it starts), and
   * given back what it held of acknowledged requests.
   */
  #exited(shard: number, slot: Slot, code: number, failure: Error | undefined): void {
    slot.worker = undefined;
    for (const resolve of slot.waiting.values()) resolve(undefined);
    slot.waiting.clear();
    if (this.#terminating) return;
    const { metrics } = this.#options;
    this.#restarts += 1;
    metrics.workerRestarts += 1;
    slot.generation += 1;
    this.counters.clear(shard);
    const why = failure
      ? `${(failure as NodeJS.ErrnoException).code ?? failure.name}: ${failure.message}`
      : `code ${code}`;
    slot.backoff =
      Date.now() - slot.startedAt < STEADY_MILLIS
        ? Math.min(LONGEST_BACKOFF_MILLIS, Math.max(FIRST_BACKOFF_MILLIS, 2 * slot.backoff))
        : 0;
    diag.error(
      `agent-incidents gateway: worker ${shard} exited (${why}); starting it again${slot.backoff > 0 ? ` in ${slot.backoff} ms` : ''}`,
    );
    const { again, lost } = this.#held.exited(shard);
    for (const { request, parts, record } of again) this.#readAgain(shard, request, parts.encoding, record);
    if (lost > 0) {
      metrics.dropped('worker_exited', lost);
      diag.error(
        `agent-incidents gateway: ${lost} spans held by worker ${shard} are dropped with it (no persistence.directory)`,
      );
    }
    if (slot.backoff === 0) return this.#spawn(shard, slot);
    const revive = setTimeout(() => {
      if (!this.#terminating) this.#spawn(shard, slot);
    }, slot.backoff);
    revive.unref();
  }

  /** Reads an acknowledged request back from the persistent queue and sends worker `shard` its part again. */
  #readAgain(shard: number, request: number, encoding: BodyEncoding, record: SpillRecord): void {
    const reading = record
      .read()
      .then((body) => {
        const split = splitBody(encoding, body, this.#options.workers);
        const part = split.ok ? split.parts[shard]?.body : undefined;
        if (part) this.#resendPart(shard, request, encoding, part);
        else this.#held.none(shard, request);
      })
      .catch((error: unknown) => {
        // The record stays on disk: the next start reads it back.
        diag.error('agent-incidents gateway: a stored request could not be read back for a restarted worker', error);
      })
      .finally(() => this.#resending.delete(reading));
    this.#resending.add(reading);
  }

  /** Tells every worker until when refused senders may be back (docs/gateway.md, "Late parts"). */
  window(holdUntil: number, partsUntil: number): void {
    if (holdUntil <= this.#holdUntil && partsUntil <= this.#partsUntil) return;
    this.#holdUntil = Math.max(this.#holdUntil, holdUntil);
    this.#partsUntil = Math.max(this.#partsUntil, partsUntil);
    this.#broadcast(() => ({ type: 'window', holdUntil: this.#holdUntil, partsUntil: this.#partsUntil }));
  }

  #broadcast(message: () => ToShard): void {
    for (let shard = 0; shard < this.size; shard += 1) this.#post(shard, message());
  }

  /** Asks every worker (each message made with its own id); resolves with every answer. */
  #askAll(message: (id: number) => ToShard): Promise<(FromShard | undefined)[]> {
    return Promise.all(
      this.#slots.map((_, shard) => {
        const id = this.#nextId++;
        return this.#ask(shard, id, message(id));
      }),
    );
  }

  /** The gateway is closing: traces are judged as at a shutdown. */
  closing(): void {
    this.#closing = true;
    this.#broadcast(() => ({ type: 'closing' }));
  }

  /** Lets go of traces kept for a correction until they take at most `bytes` in all (each worker its share). */
  shrinkKept(bytes: number): void {
    const share = bytes / Math.max(1, this.size);
    this.#broadcast(() => ({ type: 'shrinkKept', bytes: share }));
  }

  /**
   * Releases held traces (every one with `all`) in every worker and waits for upstream, until `until` (epoch ms);
   * again while a worker restarted meanwhile or the persistent queue still has what an earlier process left.
   */
  async drain(until: number, all = true): Promise<void> {
    for (;;) {
      this.recover();
      while (this.#resending.size > 0) await Promise.all([...this.#resending]);
      const restarts = this.#restarts;
      const bound = Number.isFinite(until) ? until : null;
      await this.#askAll((id) => ({ type: 'drain', id, until: bound, all }));
      const more = (this.#options.spill?.recoveryPending ?? 0) > 0 || this.#resending.size > 0;
      if ((restarts === this.#restarts && !more) || Date.now() >= until) return;
    }
  }

  /** Stops every worker's deliveries; resolves with the spans left undelivered (still in the persistent queue). */
  async stop(): Promise<number> {
    const replies = await this.#askAll((id) => ({ type: 'stop', id }));
    return replies.reduce((sum, reply) => sum + (reply?.type === 'stopped' ? reply.left : 0), 0);
  }

  /** Ends the worker threads (after {@link stop}). */
  async terminate(): Promise<void> {
    this.#terminating = true;
    await Promise.all(this.#slots.map((slot) => slot.worker?.terminate()));
  }
}

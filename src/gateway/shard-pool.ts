// Over 300 lines: the worker threads' life (start, messages, exit, restart) and what the intake must know to
// re-send a dead worker's spans, kept together so that no path loses track of an acknowledged request.
/**
 * The intake's side of a gateway with workers (docs/gateway.md, "Workers"): starts the worker threads
 * (`shard-worker.ts`) with V8 heap limits derived from `limits.maxHeldBytes`, sends them the parts of each request
 * (`trace-router.ts`), sums their metrics, and keeps, for every acknowledged request, how many of its spans each
 * worker still has to deliver: the persistent queue forgets a request only once every worker that got part of it
 * delivered that part. A worker that exits (a crash, out of memory) is started again at once, counted and logged;
 * what it held of acknowledged requests is read back from the persistent queue and sent to its successor, or,
 * without a queue, counted as dropped (`worker_exited`) and logged.
 */
import { Worker } from 'node:worker_threads';
import { diag } from '@opentelemetry/api';
import type { RequestPart } from '../otlp/otlp-protobuf-split.js';
import type { GatewayConfig } from './config.js';
import type { BodyEncoding } from './decode-body.js';
import type { GatewayMetrics, MetricsSnapshot } from './gateway-metrics.js';
import { ShardCounters } from './shard-counters.js';
import type { FromShard, ShardInit, StagedPart, ToShard } from './shard-protocol.js';
import type { SpillLog, SpillRecord } from './spill-log.js';
import { splitBody } from './trace-router.js';

const MIB = 1024 * 1024;
/** What a worker needs besides what it holds: code, the fold's working set, caches. */
const WORKER_BASE_MIB = 64;
/** Stored segments are read back while what is held stays under this share of the bounds (as without workers). */
const RECOVERY_SHARE = 0.5;

/**
 * The old-generation heap limit of each worker, in MiB: twice its share of `limits.maxHeldBytes` (what it holds,
 * by the estimate, plus garbage not yet collected) and 64 MiB for the rest. Past it V8 ends the worker
 * (`ERR_WORKER_OUT_OF_MEMORY`), which is restarted.
 */
export function workerHeapMib(maxHeldBytes: number, workers: number): number {
  return Math.ceil((2 * maxHeldBytes) / Math.max(1, workers) / MIB) + WORKER_BASE_MIB;
}

/**
 * The worker module: beside this one once built (`dist/gateway/`). Run from TypeScript source (vitest), the
 * worker is the build in `dist/`, which every test run makes first (`test/support/build-once.ts`): a worker
 * thread does not go through vitest's transform.
 */
export function workerEntry(from: string = import.meta.url): URL {
  const here = new URL(from);
  if (here.pathname.endsWith('.ts')) return new URL('../../dist/gateway/shard-worker.js', here);
  return new URL('./shard-worker.js', here);
}

/** A part sent to a worker to be decoded: which worker, which of its lives, and its answer. */
export interface StagedShard {
  readonly shard: number;
  readonly generation: number;
  readonly id: number;
  readonly part: StagedPart;
}

interface Slot {
  worker: Worker;
  generation: number;
  /** The metrics it last posted (unset: none yet). */
  snapshot: MetricsSnapshot | undefined;
  /** Answers awaited, by message id. */
  readonly waiting: Map<number, (reply: FromShard | undefined) => void>;
}

interface Tracked {
  readonly encoding: BodyEncoding;
  readonly record: SpillRecord | undefined;
  /** Usable spans each worker got; undefined while a re-sent part's answer has not come. */
  readonly given: (number | undefined)[];
  /** Spans each worker has not delivered yet. */
  readonly outstanding: number[];
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
  readonly #tracked = new Map<number, Tracked>();
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

  /** Until when senders refused may bring spans (the latest window sent to the workers). */
  get partsUntil(): number {
    return this.#partsUntil;
  }

  /** Requests acknowledged that a worker has not delivered whole yet. */
  get tracked(): number {
    return this.#tracked.size;
  }

  /** Starts the workers. */
  start(): void {
    for (let shard = 0; shard < this.#options.workers; shard += 1) this.#slots.push(this.#spawn(shard, 0));
  }

  /** The thread of worker `shard` as it runs now (tests end it to see it restarted). */
  worker(shard: number): Worker {
    return this.#slots[shard]!.worker;
  }

  #spawn(shard: number, generation: number): Slot {
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
      resourceLimits: { maxOldGenerationSizeMb: workerHeapMib(config.limits.maxHeldBytes, this.#options.workers) },
    });
    worker.unref();
    const slot: Slot = { worker, generation, snapshot: undefined, waiting: new Map() };
    let failure: Error | undefined;
    worker.on('message', (message: FromShard) => {
      if (this.#slots[shard] === slot) this.#receive(shard, slot, message);
    });
    worker.on('error', (error) => (failure = error));
    worker.on('exit', (code) => {
      if (this.#slots[shard] === slot) this.#exited(shard, slot, code, failure);
    });
    return slot;
  }

  #post(shard: number, message: ToShard, transfer: ArrayBuffer[] = []): void {
    this.#slots[shard]!.worker.postMessage(message, transfer);
  }

  /** Sends `message` to worker `shard` and resolves with its answer (undefined when the worker exited first). */
  #ask(shard: number, id: number, message: ToShard, transfer: ArrayBuffer[] = []): Promise<FromShard | undefined> {
    const slot = this.#slots[shard]!;
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
        for (let i = 0; i < message.releases.length; i += 2) {
          const tracked = this.#tracked.get(message.releases[i]!);
          if (!tracked) continue;
          tracked.outstanding[shard]! -= message.releases[i + 1]!;
          this.#settle(message.releases[i]!, tracked);
        }
        return;
      case 'resent': {
        const tracked = this.#tracked.get(message.request);
        if (!tracked) return;
        tracked.given[shard] = message.spans;
        tracked.outstanding[shard]! += message.spans;
        if (message.message !== undefined) {
          // It decoded when it was accepted; a part that no longer does is counted and logged, not retried forever.
          this.#options.metrics.dropped('unreadable', 0);
          diag.error(`agent-incidents gateway: a stored request could not be read back: ${message.message}`);
        }
        this.#settle(message.request, tracked);
        return;
      }
      case 'diag':
        diag[message.level](message.message, ...message.args);
        return;
    }
  }

  /** Forgets a request every worker delivered its part of, and frees its stored record. */
  #settle(id: number, tracked: Tracked): void {
    if (tracked.given.some((spans) => spans === undefined)) return;
    if (tracked.outstanding.some((spans) => spans > 0)) return;
    this.#tracked.delete(id);
    tracked.record?.release(tracked.record.pending);
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
    const tracked: Tracked = {
      encoding,
      record,
      given: new Array<number | undefined>(workers).fill(0),
      outstanding: new Array<number>(workers).fill(0),
    };
    this.#tracked.set(request, tracked);
    let again: number[] | undefined;
    for (const { shard, generation, id, part } of staged) {
      if (!part.ok || part.spans === 0) continue;
      tracked.given[shard] = part.spans;
      tracked.outstanding[shard] = part.spans;
      if (this.#slots[shard]!.generation === generation) this.#post(shard, { type: 'commit', id, request });
      else (again ??= []).push(shard);
    }
    if (again) {
      const split = splitBody(encoding, body, workers);
      for (const shard of again) {
        const part = split.ok ? split.parts[shard]?.body : undefined;
        tracked.given[shard] = undefined;
        tracked.outstanding[shard] = 0;
        if (part) this.#resendPart(shard, request, encoding, part);
        else tracked.given[shard] = 0;
      }
    }
    this.#settle(request, tracked);
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
    const { limits } = config;
    if (!spill) return;
    for (;;) {
      const load = this.counters.total();
      if (
        spill.recoveryPending === 0 ||
        load.storeBytes + load.backlogBytes + load.keptBytes >= limits.maxHeldBytes * RECOVERY_SHARE ||
        load.spans >= limits.maxSpans * RECOVERY_SHARE ||
        load.traces >= limits.maxTraces * RECOVERY_SHARE
      )
        return;
      for (const { type, body, admit } of spill.recoverNext() ?? []) {
        const split = splitBody(type, body, this.#options.workers);
        if (!split.ok) {
          admit(0);
          this.#options.metrics.dropped('unreadable', 0);
          diag.error(`agent-incidents gateway: a stored request could not be read back: ${split.message}`);
          continue;
        }
        const request = this.#nextId++;
        const tracked: Tracked = {
          encoding: type,
          // Held until every worker delivered its part: then all of its pending spans are released at once.
          record: admit(1),
          given: split.parts.map((part) => (part.body === undefined ? 0 : undefined)),
          outstanding: new Array<number>(this.#options.workers).fill(0),
        };
        this.#tracked.set(request, tracked);
        split.parts.forEach((part, shard) => {
          if (part.body !== undefined) this.#resendPart(shard, request, type, part.body);
        });
        this.#settle(request, tracked);
      }
    }
  }

  /** Worker `shard` exited: counted, logged, started again, and given back what it held of acknowledged requests. */
  #exited(shard: number, slot: Slot, code: number, failure: Error | undefined): void {
    for (const resolve of slot.waiting.values()) resolve(undefined);
    slot.waiting.clear();
    if (this.#terminating) return;
    const { metrics } = this.#options;
    this.#restarts += 1;
    metrics.workerRestarts += 1;
    const why = failure
      ? `${(failure as NodeJS.ErrnoException).code ?? failure.name}: ${failure.message}`
      : `code ${code}`;
    diag.error(`agent-incidents gateway: worker ${shard} exited (${why}); starting it again`);
    this.counters.clear(shard);
    this.#slots[shard] = this.#spawn(shard, slot.generation + 1);
    let lost = 0;
    for (const [request, tracked] of this.#tracked) {
      const given = tracked.given[shard];
      if (given !== undefined && tracked.outstanding[shard]! <= 0) continue;
      if (!tracked.record) {
        lost += tracked.outstanding[shard]!;
        tracked.outstanding[shard] = 0;
        tracked.given[shard] ??= 0;
        this.#settle(request, tracked);
        continue;
      }
      tracked.given[shard] = undefined;
      tracked.outstanding[shard] = 0;
      this.#readAgain(shard, request, tracked, tracked.record);
    }
    if (lost > 0) {
      metrics.dropped('worker_exited', lost);
      diag.error(
        `agent-incidents gateway: ${lost} spans held by worker ${shard} are dropped with it (no persistence.directory)`,
      );
    }
  }

  /** Reads an acknowledged request back from the persistent queue and sends worker `shard` its part again. */
  #readAgain(shard: number, request: number, tracked: Tracked, record: SpillRecord): void {
    const reading = record
      .read()
      .then((body) => {
        const split = splitBody(tracked.encoding, body, this.#options.workers);
        const part = split.ok ? split.parts[shard]?.body : undefined;
        if (part && this.#tracked.get(request) === tracked) this.#resendPart(shard, request, tracked.encoding, part);
        else if (this.#tracked.get(request) === tracked) {
          tracked.given[shard] = 0;
          this.#settle(request, tracked);
        }
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
    for (let shard = 0; shard < this.size; shard += 1)
      this.#post(shard, { type: 'window', holdUntil: this.#holdUntil, partsUntil: this.#partsUntil });
  }

  /** The gateway is closing: traces are judged as at a shutdown. */
  closing(): void {
    this.#closing = true;
    for (let shard = 0; shard < this.size; shard += 1) this.#post(shard, { type: 'closing' });
  }

  /** Lets go of traces kept for a correction until they take at most `bytes` in all (each worker its share). */
  shrinkKept(bytes: number): void {
    const share = bytes / Math.max(1, this.size);
    for (let shard = 0; shard < this.size; shard += 1) this.#post(shard, { type: 'shrinkKept', bytes: share });
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
      await Promise.all(
        this.#slots.map((_, shard) => {
          const id = this.#nextId++;
          return this.#ask(shard, id, { type: 'drain', id, until: bound, all });
        }),
      );
      const more = (this.#options.spill?.recoveryPending ?? 0) > 0 || this.#resending.size > 0;
      if ((restarts === this.#restarts && !more) || Date.now() >= until) return;
    }
  }

  /** Stops every worker's deliveries; resolves with the spans left undelivered (still in the persistent queue). */
  async stop(): Promise<number> {
    const replies = await Promise.all(
      this.#slots.map((_, shard) => {
        const id = this.#nextId++;
        return this.#ask(shard, id, { type: 'stop', id });
      }),
    );
    return replies.reduce((sum, reply) => sum + (reply?.type === 'stopped' ? reply.left : 0), 0);
  }

  /** Ends the worker threads (after {@link stop}). */
  async terminate(): Promise<void> {
    this.#terminating = true;
    await Promise.all(this.#slots.map((slot) => slot.worker.terminate()));
  }
}

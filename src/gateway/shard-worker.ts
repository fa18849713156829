/**
 * A worker of a gateway with workers (docs/gateway.md, "Workers"): it owns one shard of the traces (those whose id
 * hashes to it) with its own trace store, release loop, judge, sanitizer and forwarder, the same modules the
 * gateway without workers runs in its one thread. The intake sends it parts of requests to decode (`stage`), then
 * to hold (`commit`) or forget (`discard`); it answers with what admission weighs, writes its load to the shared
 * counters, posts its metrics, and tells the intake which requests' spans it delivered, so the persistent queue
 * forgets a request only once every worker that got part of it delivered that part.
 *
 * Run as a worker thread, this module starts a {@link Shard} on its parent port; in a test, a `Shard` runs on one
 * end of a `MessageChannel`.
 */
import { Buffer } from 'node:buffer';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { DiagLogLevel, diag } from '@opentelemetry/api';
import type { DiagLogger } from '@opentelemetry/api';
import type { DecodedSpan } from '../otlp/otlp-json-spans.js';
import type { GatewayConfig } from './config.js';
import { decodeBody } from './decode-body.js';
import type { BodyEncoding } from './decode-body.js';
import { decodedRequestBytes } from './decoded-size.js';
import { Forwarder } from './forwarder.js';
import { GatewayMetrics } from './gateway-metrics.js';
import { GatewayState } from './gateway-state.js';
import { traceJudgeOptions } from './judge-trace.js';
import { LoadGauge } from './load-gauge.js';
import { ReleaseLoop } from './release-loop.js';
import { RevisableTraces } from './revisable-traces.js';
import { ShardCounters } from './shard-counters.js';
import type { DiagLevel, FromShard, ShardInit, StagedPart, ToShard } from './shard-protocol.js';
import type { HeldRequest } from './spill-log.js';
import { TraceStore } from './trace-store.js';

/** How often a worker writes its load and posts its metrics when they changed. */
const PUBLISH_MILLIS = 20;

/** The end of a message channel a shard talks on: a worker's parent port, or a port of a `MessageChannel`. */
export interface ShardPort {
  postMessage(message: FromShard): void;
  on(event: 'message', listener: (message: ToShard) => void): unknown;
}

/** A worker's share of the gateway's bounds: each bound divided among the workers (at least 1 each). */
export function shardConfig(config: GatewayConfig, shards: number): GatewayConfig {
  const share = (bound: number): number => Math.max(1, Math.floor(bound / shards));
  const { limits } = config;
  return {
    ...config,
    limits: {
      ...limits,
      maxTraces: share(limits.maxTraces),
      maxSpans: share(limits.maxSpans),
      maxHeldBytes: share(limits.maxHeldBytes),
      maxForwardBacklogSpans: share(limits.maxForwardBacklogSpans),
    },
  };
}

/** One shard of a gateway's traces, served over a port. */
export class Shard {
  readonly #port: ShardPort;
  readonly #shard: number;
  readonly #counters: ShardCounters;
  readonly #metrics = new GatewayMetrics();
  readonly #state: GatewayState;
  readonly #loop: ReleaseLoop;
  readonly #staged = new Map<number, DecodedSpan[]>();
  /** Spans released since the last post, by request. */
  readonly #releases = new Map<number, number>();
  /** One stand-in per request for the intake's record of it, with the spans of it held here not released yet. */
  readonly #requests = new Map<number, { readonly stand: HeldRequest; pending: number }>();
  #releasing = false;
  #posted = '';
  #timer: NodeJS.Timeout | undefined;

  constructor(port: ShardPort, init: ShardInit) {
    this.#port = port;
    this.#shard = init.shard;
    this.#counters = new ShardCounters(init.shards, init.counters);
    const config = shardConfig(init.config, init.shards);
    const revisable = new RevisableTraces();
    const judge = traceJudgeOptions(config, revisable);
    const store = new TraceStore(config.limits, config.hold, { judged: judge.released.runs });
    store.holdUntil(init.holdUntil);
    store.expectPartsUntil(init.partsUntil);
    const forwarder = new Forwarder(config.upstream, this.#metrics);
    this.#state = new GatewayState({
      config,
      metrics: this.#metrics,
      store,
      forwarder,
      revisable,
      gauge: new LoadGauge(),
      spill: undefined,
      window: undefined,
    });
    this.#state.closing = init.closing;
    this.#loop = new ReleaseLoop(this.#state, judge);
    port.on('message', (message) => this.#receive(message));
  }

  /** Starts the release ticks and the publishing of load and metrics. */
  start(): void {
    this.#loop.start();
    this.#timer = setInterval(() => this.#publish(), PUBLISH_MILLIS);
    this.#timer.unref();
  }

  /** Stops the ticks (a test's shard; a worker thread ends with its process). */
  stop(): void {
    this.#loop.stop();
    clearInterval(this.#timer);
  }

  #post(message: FromShard): void {
    this.#port.postMessage(message);
  }

  #receive(message: ToShard): void {
    const { store } = this.#state.parts;
    switch (message.type) {
      case 'stage':
        return this.#post({ type: 'staged', id: message.id, part: this.#stage(message) });
      case 'discard':
        this.#staged.delete(message.id);
        return;
      case 'commit': {
        const spans = this.#staged.get(message.id) ?? [];
        this.#staged.delete(message.id);
        const added = store.add(spans, Date.now(), this.#request(message.request, spans.length));
        this.#metrics.spansReceived += added.added;
        this.#metrics.spansDuplicate += added.duplicates;
        this.#publishLoad();
        return;
      }
      case 'resend':
        return this.#resend(message);
      case 'window':
        store.holdUntil(message.holdUntil);
        store.expectPartsUntil(message.partsUntil);
        return;
      case 'closing':
        this.#state.closing = true;
        return;
      case 'shrinkKept':
        this.#state.shrinkKept(message.bytes);
        return;
      case 'drain':
        void this.#loop.drain(message.until ?? Number.POSITIVE_INFINITY, message.all).finally(() => {
          this.#publish();
          this.#post({ type: 'drained', id: message.id });
        });
        return;
      case 'stop':
        this.#loop.stop();
        void this.#state.parts.forwarder.stop().then((left) => {
          this.#publish();
          this.#post({ type: 'stopped', id: message.id, left: left + store.spans });
        });
        return;
    }
  }

  /** Decodes a part and keeps it for the intake's answer. */
  #stage(message: { id: number; encoding: BodyEncoding; body: Uint8Array; maxItems: number }): StagedPart {
    const tally = { items: 0 };
    const body = Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength);
    const decoded = decodeBody(message.encoding, body, message.maxItems, tally);
    if (!decoded.ok) return { ok: false, status: decoded.status, message: decoded.message };
    this.#staged.set(message.id, decoded.spans);
    return {
      ok: true,
      spans: decoded.spans.length,
      rejected: decoded.rejected,
      newTraces: this.#state.parts.store.newTraces(decoded.spans),
      decodedBytes: decodedRequestBytes(decoded.spans),
      items: tally.items,
    };
  }

  /** Holds a part read back from the persistent queue: it was acknowledged, so it is not asked about again. */
  #resend(message: { request: number; encoding: BodyEncoding; body: Uint8Array; maxItems: number }): void {
    const body = Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength);
    let decoded: ReturnType<typeof decodeBody>;
    try {
      decoded = decodeBody(message.encoding, body, message.maxItems);
    } catch (error) {
      decoded = { ok: false, status: 400, message: (error as Error).message };
    }
    if (!decoded.ok)
      return this.#post({ type: 'resent', request: message.request, spans: 0, message: decoded.message });
    // Answered before the spans are added: a duplicate releases its share at once, and the intake must know the
    // part's size first.
    this.#post({ type: 'resent', request: message.request, spans: decoded.spans.length });
    const request = this.#request(message.request, decoded.spans.length);
    const added = this.#state.parts.store.add(decoded.spans, Date.now(), request);
    this.#metrics.spansRecovered += added.added;
    this.#metrics.spansDuplicate += added.duplicates;
    this.#publishLoad();
  }

  /** The stand-in of request `id`, which `spans` more spans hold: their releases are posted to the intake, batched. */
  #request(id: number, spans: number): HeldRequest | undefined {
    if (spans === 0) return undefined;
    let entry = this.#requests.get(id);
    if (!entry) {
      const stand: HeldRequest = {
        release: (released = 1) => {
          this.#releases.set(id, (this.#releases.get(id) ?? 0) + released);
          const held = this.#requests.get(id);
          if (held && (held.pending -= released) <= 0) this.#requests.delete(id);
          if (!this.#releasing) {
            this.#releasing = true;
            setImmediate(() => this.#postReleases());
          }
        },
      };
      entry = { stand, pending: 0 };
      this.#requests.set(id, entry);
    }
    entry.pending += spans;
    return entry.stand;
  }

  #postReleases(): void {
    this.#releasing = false;
    if (this.#releases.size === 0) return;
    const releases: number[] = [];
    for (const [id, spans] of this.#releases) releases.push(id, spans);
    this.#releases.clear();
    this.#post({ type: 'released', releases });
  }

  #publishLoad(): void {
    const { store, forwarder, revisable } = this.#state.parts;
    this.#counters.publish(this.#shard, {
      traces: store.traces,
      spans: store.spans,
      storeBytes: store.bytes,
      backlogSpans: forwarder.backlogSpans,
      backlogBytes: forwarder.backlogBytes,
      keptBytes: revisable.bytes,
      failures: forwarder.consecutiveFailures,
    });
  }

  /** Writes the load, posts what was released and the metrics when they changed; requests fully held no more are forgotten. */
  #publish(): void {
    this.#publishLoad();
    this.#postReleases();
    const snapshot = this.#metrics.snapshot();
    const text = JSON.stringify(snapshot);
    if (text === this.#posted) return;
    this.#posted = text;
    this.#post({ type: 'metrics', snapshot });
  }
}

/** A diag logger that hands every line to the intake, whose logger writes it (the CLI's: stderr). */
function relayLogger(port: ShardPort): DiagLogger {
  const line =
    (level: DiagLevel) =>
    (message: string, ...args: unknown[]): void =>
      port.postMessage({
        type: 'diag',
        level,
        message,
        args: args.map((arg) => (arg instanceof Error ? (arg.stack ?? arg.message) : String(arg))),
      });
  return {
    error: line('error'),
    warn: line('warn'),
    info: line('info'),
    debug: line('debug'),
    verbose: line('verbose'),
  };
}

/** Serves a shard on `port`: what a worker thread runs. */
export function serveShard(port: ShardPort, init: ShardInit): Shard {
  diag.setLogger(relayLogger(port), DiagLogLevel.WARN);
  const shard = new Shard(port, init);
  shard.start();
  return shard;
}

if (!isMainThread && parentPort && (workerData as { agentIncidentsShard?: ShardInit } | null)?.agentIncidentsShard)
  serveShard(parentPort as ShardPort, (workerData as { agentIncidentsShard: ShardInit }).agentIncidentsShard);

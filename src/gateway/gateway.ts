/**
 * The OTLP/HTTP gateway: receives traces from any language (`POST /v1/traces`,
 * protobuf or JSON, optionally gzip), holds each trace until it can be judged,
 * folds and sanitizes it with the SDK processor's own code, and forwards it
 * upstream. The only code of this package that opens a listening socket.
 *
 * This file only wires the parts: admission (`admission.ts`, pure) behind the
 * intake (`intake.ts`), the release loop (`release-loop.ts`) or the worker
 * threads that run one each (`shard-pool.ts`, `shard-intake.ts`), the routes
 * (`routes.ts`) and `/metrics` (`metrics-endpoint.ts`), over one shared state
 * (`gateway-state.ts`); then it listens, and shuts down in order.
 */
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve as resolvePath } from 'node:path';
import { diag } from '@opentelemetry/api';
import type { GatewayConfig, GatewayConfigInput } from './config.js';
import { GatewayConfigError, resolveGatewayConfig, workersOf } from './config.js';
import { Forwarder } from './forwarder.js';
import { GatewayMetrics } from './gateway-metrics.js';
import type { StateParts } from './gateway-state.js';
import { GatewayState } from './gateway-state.js';
import type { BodyHolder } from './intake.js';
import { Intake, LocalHolder, Responder } from './intake.js';
import { traceJudgeOptions } from './judge-trace.js';
import { LoadGauge } from './load-gauge.js';
import { MetricsEndpoint } from './metrics-endpoint.js';
import { RefusalWindow } from './refusal-window.js';
import { ReleaseLoop } from './release-loop.js';
import { RevisableTraces } from './revisable-traces.js';
import { createRequestHandler } from './routes.js';
import { ShardedHolder, ShardedKept, ShardedStore, ShardedUpstream } from './shard-intake.js';
import { ShardPool } from './shard-pool.js';
import { SpillLog, SpillLogLockedError } from './spill-log.js';
import { TraceStore } from './trace-store.js';

/** A running gateway. */
export interface Gateway {
  /** Base URL, e.g. http://127.0.0.1:4319 (the OTLP endpoint is `${url}/v1/traces`). */
  readonly url: string;
  readonly config: GatewayConfig;
  readonly metrics: GatewayMetrics;
  /** Folds and forwards every held trace now, and waits for delivery (as long as upstream takes). */
  flush(): Promise<void>;
  /**
   * Stops accepting, folds what is held and delivers it within
   * `shutdown.timeoutMillis`; what is not delivered by then stays in the
   * persistent queue (or, without one, is dropped, counted and logged).
   */
  close(): Promise<void>;
}

/**
 * Starts a gateway. Throws a `GatewayConfigError` naming the key for an
 * invalid configuration, and a `SpillLogLockedError` when another live
 * gateway uses `persistence.directory`.
 * @example
 * const gateway = await createGateway({ upstream: { endpoint: 'http://127.0.0.1:4318/v1/traces' } });
 */
export async function createGateway(input: GatewayConfigInput): Promise<Gateway> {
  return (await startGateway(input)).gateway;
}

/** What folds a gateway's spans: its own thread's release loop, or its workers. */
interface Engine {
  /** Reads back what an earlier process left in the persistent queue. */
  recover(): void;
  stopTimers(): void;
  closing(): void;
  drain(until: number, all?: boolean): Promise<void>;
  /** Stops delivering; the spans left undelivered, held ones included. */
  stop(): Promise<number>;
  end(): Promise<void>;
}

/**
 * Starts a gateway, as {@link createGateway}, and hands back its worker threads too (undefined without workers):
 * tests end a worker through it. Not part of the package's API.
 */
export async function startGateway(
  input: GatewayConfigInput,
): Promise<{ readonly gateway: Gateway; readonly pool: ShardPool | undefined }> {
  const config = resolveGatewayConfig(input);
  const metrics = new GatewayMetrics();
  const revisable = new RevisableTraces();
  // Checked here with or without workers: a bad policy is a configuration error, never a worker that cannot start.
  const judge = traceJudgeOptions(config, revisable);
  const workers = workersOf(config);
  const spill = openSpillLog(config);
  const gauge = new LoadGauge();
  const window = spill ? new RefusalWindow(spill.directory) : undefined;
  let state: GatewayState<StateParts>;
  let holder: BodyHolder;
  let engine: Engine;
  let pool: ShardPool | undefined;
  let responder: Responder;
  if (workers === 0) {
    const store = new TraceStore(config.limits, config.hold, { judged: judge.released.runs });
    const forwarder = new Forwarder(config.upstream, metrics);
    const local = new GatewayState({ config, metrics, store, forwarder, revisable, gauge, spill, window });
    const loop = new ReleaseLoop(local, judge);
    state = local;
    responder = new Responder(state);
    holder = new LocalHolder(local, responder);
    loop.start();
    engine = {
      recover: () => loop.recover(),
      stopTimers: () => loop.stop(),
      closing: () => undefined,
      drain: (until, all) => loop.drain(until, all),
      stop: async () => (await forwarder.stop()) + store.spans,
      end: () => Promise.resolve(),
    };
  } else {
    const shards = new ShardPool({ config, metrics, spill, workers });
    pool = shards;
    shards.start();
    state = new GatewayState<StateParts>({
      config,
      metrics,
      store: new ShardedStore(shards),
      forwarder: new ShardedUpstream(shards),
      revisable: new ShardedKept(shards, metrics),
      gauge,
      spill,
      window,
    });
    responder = new Responder(state);
    holder = new ShardedHolder(state, responder, shards);
    // What an earlier process left is read back as the workers make room, as the release loop does without workers.
    const tick = setInterval(() => shards.recover(), config.hold.tickMillis);
    tick.unref();
    engine = {
      recover: () => shards.recover(),
      stopTimers: () => clearInterval(tick),
      closing: () => shards.closing(),
      drain: (until, all) => shards.drain(until, all),
      stop: () => shards.stop(),
      end: () => shards.terminate(),
    };
  }
  const { store } = state.parts;
  // A gateway with a persistent queue that starts is usually one that restarts: senders found it down and will
  // send again. It cannot know what they hold, so it waits for them as after a refusal, and at least as long as
  // the senders the previous process refused can be back (docs/gateway.md, "Late parts"). It holds for the previous
  // process's refusals too, those for memory included: the reason they did not hold (holding would lock a full
  // gateway) is gone with that process, and pressure still overrides any hold.
  if (window)
    store.holdUntil(
      Math.max(window.load(), Date.now() + config.hold.refusedSenderBackoffMillis + config.hold.decisionWaitMillis),
    );
  const metricsEndpoint = new MetricsEndpoint(state, workers);
  const intake = new Intake(state, responder, holder);
  metricsEndpoint.start();
  gauge.start();

  const { limits } = config;
  const server: Server = createServer(
    {
      headersTimeout: limits.headersTimeoutMillis,
      requestTimeout: limits.requestTimeoutMillis,
      // Node checks those timeouts only this often (30 s by default): a slow client would outlive them.
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, limits.headersTimeoutMillis / 4)),
    },
    createRequestHandler({ state, intake, responder, metrics: metricsEndpoint }),
  );
  // Past the cap a new connection is closed at once: slow or idle clients cannot exhaust file descriptors.
  server.maxConnections = limits.maxConnections;
  server.on('clientError', (_error, socket) => socket.destroy());
  const stopTimers = (): void => {
    engine.stopTimers();
    metricsEndpoint.stop();
    gauge.stop();
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.listen.port, config.listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (error: unknown) => {
    stopTimers();
    await engine.end();
    await spill?.close();
    throw error;
  });
  const address = server.address() as AddressInfo;
  // What an earlier process left goes out first.
  engine.recover();

  const close = async (): Promise<void> => {
    state.closing = true;
    engine.closing();
    stopTimers();
    const deadline = Date.now() + config.shutdown.timeoutMillis;
    const remaining = (): number => Math.max(0, deadline - Date.now());
    const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    // Requests in progress get a moment (at most a quarter of the budget), then are cut.
    const cut = setTimeout(() => server.closeAllConnections(), Math.min(2_000, remaining() / 4));
    await serverClosed;
    clearTimeout(cut);
    // With a persistent queue, a trace a refused sender may still bring a part of stays there unjudged: the next
    // start holds it for that sender. Without one, judging it now (at best incomplete) is all that is left.
    await engine.drain(deadline, !spill || store.partsUntil <= Date.now());
    // Spans still held (the backlog never drained in time) are left like those queued upstream.
    const left = await engine.stop();
    await engine.end();
    if (left > 0 && spill)
      diag.warn(
        `agent-incidents gateway: ${left} spans not delivered by shutdown.timeoutMillis, or held for refused senders, stay in ${spill.directory} for the next start`,
      );
    if (left > 0 && !spill) {
      metrics.dropped('shutdown', left);
      diag.error(
        `agent-incidents gateway: ${left} spans not delivered by shutdown.timeoutMillis are dropped (no persistence.directory)`,
      );
    }
    await spill?.close();
  };
  let closed: Promise<void> | undefined;
  const gateway: Gateway = {
    url: `http://${config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host}:${address.port}`,
    config,
    metrics,
    flush: () => engine.drain(Number.POSITIVE_INFINITY),
    close() {
      closed ??= close();
      return closed;
    },
  };
  return { gateway, pool };
}

/** The persistent queue of `persistence.directory`, locked for this process; undefined without one. */
function openSpillLog(config: GatewayConfig): SpillLog | undefined {
  if (config.persistence.directory === undefined) return undefined;
  try {
    return SpillLog.open({ ...config.persistence, directory: resolvePath(config.persistence.directory) });
  } catch (error) {
    if (error instanceof SpillLogLockedError) throw error;
    throw new GatewayConfigError(
      `cannot use persistence.directory ${config.persistence.directory}: ${(error as Error).message}`,
    );
  }
}

/**
 * The OTLP/HTTP gateway: receives traces from any language (`POST /v1/traces`,
 * protobuf or JSON, optionally gzip), holds each trace until it can be judged,
 * folds and sanitizes it with the SDK processor's own code, and forwards it
 * upstream. The only code of this package that opens a listening socket.
 *
 * This file only wires the parts: admission (`admission.ts`, pure) behind the
 * intake (`intake.ts`), the release loop (`release-loop.ts`), the routes
 * (`routes.ts`) and `/metrics` (`metrics-endpoint.ts`), over one shared state
 * (`gateway-state.ts`); then it listens, and shuts down in order.
 */
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve as resolvePath } from 'node:path';
import { diag } from '@opentelemetry/api';
import { createSanitizer } from '../sanitize/sanitizer.js';
import type { SanitizationOptions } from '../sanitize/sanitizer.js';
import type { PolicyInput } from '../derive/policy.js';
import { resolvePolicy } from '../derive/policy.js';
import type { GatewayConfig, GatewayConfigInput } from './config.js';
import { GatewayConfigError, resolveGatewayConfig } from './config.js';
import { Forwarder } from './forwarder.js';
import { GatewayMetrics } from './gateway-metrics.js';
import { GatewayState } from './gateway-state.js';
import { Intake, Responder } from './intake.js';
import type { TraceJudgeOptions } from './judge-trace.js';
import { LoadGauge } from './load-gauge.js';
import { MetricsEndpoint } from './metrics-endpoint.js';
import { RefusalWindow } from './refusal-window.js';
import { ReleaseLoop } from './release-loop.js';
import { ReleasedRuns } from './released-runs.js';
import { ResourceCache } from './resource-cache.js';
import { RevisableTraces } from './revisable-traces.js';
import { createRequestHandler } from './routes.js';
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
  const config = resolveGatewayConfig(input);
  const metrics = new GatewayMetrics();
  const revisable = new RevisableTraces();
  const judge = judgeOptions(config, revisable);
  const spill = openSpillLog(config);
  const store = new TraceStore(config.limits, config.hold, { judged: judge.released.runs });
  // A gateway with a persistent queue that starts is usually one that restarts: senders found it down and will
  // send again. It cannot know what they hold, so it waits for them as after a refusal, and at least as long as
  // the senders the previous process refused can be back (docs/gateway.md, "Late parts"). It holds for the previous
  // process's refusals too, those for memory included: the reason they did not hold (holding would lock a full
  // gateway) is gone with that process, and pressure still overrides any hold.
  const window = spill ? new RefusalWindow(spill.directory) : undefined;
  if (window)
    store.holdUntil(
      Math.max(window.load(), Date.now() + config.hold.refusedSenderBackoffMillis + config.hold.decisionWaitMillis),
    );
  const gauge = new LoadGauge();
  const forwarder = new Forwarder(config.upstream, metrics);
  const state = new GatewayState({ config, metrics, store, forwarder, revisable, gauge, spill, window });
  const loop = new ReleaseLoop(state, judge);
  const responder = new Responder(state);
  const metricsEndpoint = new MetricsEndpoint(state);
  const intake = new Intake(state, responder);
  metricsEndpoint.start();
  gauge.start();
  loop.start();

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
    loop.stop();
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
    await spill?.close();
    throw error;
  });
  const address = server.address() as AddressInfo;
  // What an earlier process left goes out first.
  loop.recover();

  const close = async (): Promise<void> => {
    state.closing = true;
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
    await loop.drain(deadline, !spill || store.partsUntil <= Date.now());
    // Spans still held (the backlog never drained in time) are left like those queued upstream.
    const left = (await forwarder.stop()) + store.spans;
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
  return {
    url: `http://${config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host}:${address.port}`,
    config,
    metrics,
    flush: () => loop.drain(Number.POSITIVE_INFINITY),
    close() {
      closed ??= close();
      return closed;
    },
  };
}

/** How traces are judged: the policy and sanitizer of the configuration, and what is remembered between passes. */
function judgeOptions(config: GatewayConfig, revisable: RevisableTraces): TraceJudgeOptions {
  try {
    const policy = resolvePolicy(config.policy as PolicyInput);
    const sanitizer = createSanitizer(config.sanitization as SanitizationOptions);
    return {
      policy,
      sanitizer,
      resources: new ResourceCache(sanitizer),
      released: new ReleasedRuns(config.hold.maxHoldMillis),
      revisable,
    };
  } catch (error) {
    // resolvePolicy and createSanitizer name the bad option; it is a configuration error like any other.
    throw new GatewayConfigError(`invalid gateway config at policy or sanitization: ${(error as Error).message}`);
  }
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

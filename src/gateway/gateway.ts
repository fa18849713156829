/**
 * The OTLP/HTTP gateway: receives traces from any language (`POST /v1/traces`,
 * protobuf or JSON, optionally gzip), holds each trace until it can be judged,
 * folds and sanitizes it with the SDK processor's own code, and forwards it
 * upstream. The only code of this package that opens a listening socket.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { diag } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { decodeOtlpJsonSpans } from '../otlp/otlp-json-spans.js';
import { decodeExportTraceRequest, encodeExportTraceResponse, ProtobufDecodeError, ProtobufItemLimitError } from '../otlp/otlp-protobuf.js';
import { createSanitizer } from '../sanitize/sanitizer.js';
import type { SanitizationOptions } from '../sanitize/sanitizer.js';
import type { PolicyInput } from '../derive/policy.js';
import { resolvePolicy } from '../derive/policy.js';
import type { GatewayConfig, GatewayConfigInput } from './config.js';
import { GatewayConfigError, resolveGatewayConfig } from './config.js';
import { Forwarder } from './forwarder.js';
import type { TraceJudgeOptions } from './judge-trace.js';
import { judgeTrace } from './judge-trace.js';
import { ReleasedRuns } from './released-runs.js';
import { ResourceCache } from './resource-cache.js';
import { GatewayMetrics } from './gateway-metrics.js';
import { readBody } from './request-body.js';
import { TraceStore } from './trace-store.js';

/** A running gateway. */
export interface Gateway {
  /** Base URL, e.g. http://127.0.0.1:4319 (the OTLP endpoint is `${url}/v1/traces`). */
  readonly url: string;
  readonly config: GatewayConfig;
  readonly metrics: GatewayMetrics;
  /** Folds and forwards every held trace now, and waits for delivery. */
  flush(): Promise<void>;
  /** Stops accepting, flushes what is held, and closes. */
  close(): Promise<void>;
}

const PROTOBUF = 'application/x-protobuf';
/** Spans per upstream request: big enough to amortize HTTP, small enough to stay well under body limits. */
const FORWARD_BATCH_SPANS = 2048;
const JSON_TYPE = 'application/json';

/** Counts the spans a request holds, usable or not (for partial success). */
function countSpans(request: unknown): number {
  let n = 0;
  const resourceSpans = (request as { resourceSpans?: unknown })?.resourceSpans;
  if (!Array.isArray(resourceSpans)) return 0;
  for (const rs of resourceSpans) {
    const scopeSpans = (rs as { scopeSpans?: unknown })?.scopeSpans;
    if (!Array.isArray(scopeSpans)) continue;
    for (const ss of scopeSpans) {
      const spans = (ss as { spans?: unknown })?.spans;
      if (Array.isArray(spans)) n += spans.length;
    }
  }
  return n;
}

/**
 * Starts a gateway. Throws a `GatewayConfigError` naming the key for an
 * invalid configuration.
 * @example
 * const gateway = await createGateway({ upstream: { endpoint: 'http://127.0.0.1:4318/v1/traces' } });
 */
export async function createGateway(input: GatewayConfigInput): Promise<Gateway> {
  const config = resolveGatewayConfig(input);
  const metrics = new GatewayMetrics();
  let judge: TraceJudgeOptions;
  try {
    const policy = resolvePolicy(config.policy as PolicyInput);
    const sanitizer = createSanitizer(config.sanitization as SanitizationOptions);
    judge = { policy, sanitizer, resources: new ResourceCache(sanitizer), released: new ReleasedRuns(config.hold.maxHoldMillis) };
  } catch (error) {
    // resolvePolicy and createSanitizer name the bad option; it is a configuration error like any other.
    throw new GatewayConfigError(`invalid gateway config at policy or sanitization: ${(error as Error).message}`);
  }
  const store = new TraceStore(config.limits, config.hold, { judged: judge.released.runs });
  const forwarder = new Forwarder(config.upstream, metrics);
  let closing = false;
  // Passes run one at a time, in order: a trace's late spans go out after its earlier ones.
  let folding: Promise<void> = Promise.resolve();
  let releasing = false;

  const release = (all: boolean): Promise<void> => {
    releasing = true;
    folding = folding.then(async () => {
      // Folded traces go upstream together, in requests of up to FORWARD_BATCH_SPANS spans.
      let batch: ReadableSpan[] = [];
      const now = Date.now();
      for (const spans of store.takeReady(now, all)) {
        try {
          const judged = judgeTrace(spans, judge, now);
          for (const { outcome, cause } of judged.outcomes) metrics.run(outcome, cause);
          for (const span of judged.spans) batch.push(span);
        } catch (error) {
          // A trace the fold cannot take is not lost silently: counted and logged.
          metrics.refused('fold_failed', spans.length);
          diag.error('agent-incidents gateway: a trace could not be folded', error);
        }
        if (batch.length >= FORWARD_BATCH_SPANS) {
          forwarder.send(batch);
          batch = [];
          // Folding is synchronous: let requests in between big batches.
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
      forwarder.send(batch);
    }).catch((error: unknown) => {
      // The chain must survive anything: a rejected link would stop every later fold.
      diag.error('agent-incidents gateway: releasing held traces failed', error);
    }).finally(() => {
      releasing = false;
    });
    return folding;
  };
  // A tick while a pass still runs is skipped: passes must not pile up behind a slow fold.
  const tick = setInterval(() => {
    if (!releasing) void release(false);
  }, config.hold.tickMillis);
  tick.unref();

  const answer = (response: ServerResponse, status: number, body: string | Uint8Array, type: string, headers: Record<string, string> = {}): void => {
    metrics.request(status);
    response.writeHead(status, { 'content-type': type, ...(closing ? { connection: 'close' } : {}), ...headers });
    response.end(body);
  };
  const refuse = (response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void => {
    answer(response, status, JSON.stringify({ code: status, message }), JSON_TYPE, headers);
  };

  const receive = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== PROTOBUF && type !== JSON_TYPE) {
      request.resume();
      metrics.refused('unsupported', 0);
      return refuse(response, 415, `content-type must be ${PROTOBUF} or ${JSON_TYPE}`);
    }
    const body = await readBody(request, config.limits.maxBodyBytes);
    if (!body.ok) {
      metrics.refused(body.status === 413 ? 'too_large' : body.status === 415 ? 'unsupported' : 'malformed', 0);
      return refuse(response, body.status, body.message, body.status === 413 ? { connection: 'close' } : {});
    }
    let decoded: unknown;
    try {
      decoded = type === PROTOBUF ? decodeExportTraceRequest(body.body, { maxItems: config.limits.maxRequestItems }) : (JSON.parse(body.body.toString('utf8')) as unknown);
    } catch (error) {
      if (error instanceof ProtobufItemLimitError) {
        metrics.refused('too_large', 0);
        return refuse(response, 413, error.message);
      }
      metrics.refused('malformed', 0);
      const what = error instanceof ProtobufDecodeError ? error.message : 'body is not valid JSON';
      return refuse(response, 400, `malformed OTLP ${type === PROTOBUF ? 'protobuf' : 'JSON'}: ${what}`);
    }
    const spans = decodeOtlpJsonSpans(decoded);
    const rejected = Math.max(0, countSpans(decoded) - spans.length);
    if (rejected > 0) metrics.refused('malformed', rejected);
    if (spans.length > config.limits.maxSpans || spans.length > config.limits.maxForwardBacklogSpans) {
      // It could never fit, however long the client waits: too large, not "later".
      metrics.refused('too_large', spans.length);
      return refuse(response, 413, `${spans.length} spans in one request exceed what the gateway may hold`);
    }
    if (closing) {
      metrics.refused('closing', spans.length);
      return refuse(response, 503, 'gateway is shutting down', { 'retry-after': String(config.limits.retryAfterSeconds) });
    }
    if (forwarder.backlogSpans + spans.length > config.limits.maxForwardBacklogSpans) {
      metrics.refused('backlog', spans.length);
      return refuse(response, 503, 'upstream backlog is full', { 'retry-after': String(config.limits.retryAfterSeconds) });
    }
    if (!store.fits(spans, body.body.length)) {
      metrics.refused('capacity', spans.length);
      return refuse(response, 429, 'gateway is holding as much as it may', { 'retry-after': String(config.limits.retryAfterSeconds) });
    }
    store.add(spans, body.body.length, Date.now());
    metrics.spansReceived += spans.length;
    const partial = rejected > 0 ? { rejectedSpans: rejected, errorMessage: `${rejected} span(s) without ids or start time were rejected` } : undefined;
    if (type === PROTOBUF) return answer(response, 200, encodeExportTraceResponse(partial), PROTOBUF);
    return answer(response, 200, JSON.stringify(partial ? { partialSuccess: partial } : {}), JSON_TYPE);
  };

  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    const handle = async (): Promise<void> => {
      if (path === '/v1/traces' && request.method === 'POST') return receive(request, response);
      request.resume();
      if (path === '/healthz' && request.method === 'GET') return answer(response, closing ? 503 : 200, closing ? 'closing\n' : 'ok\n', 'text/plain');
      if (path === '/metrics' && request.method === 'GET') {
        const held = { traces: store.traces, spans: store.spans, bytes: store.bytes, backlogSpans: forwarder.backlogSpans };
        return answer(response, 200, metrics.render(held), 'text/plain; version=0.0.4');
      }
      return refuse(response, path === '/v1/traces' ? 405 : 404, path === '/v1/traces' ? 'use POST' : 'not found');
    };
    handle().catch((error: unknown) => {
      // Never crash on a request: answer 500 if nothing was written yet.
      diag.error('agent-incidents gateway: request failed', error);
      if (!response.headersSent) refuse(response, 500, 'internal error');
      else response.destroy();
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.listen.port, config.listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;

  const flush = async (): Promise<void> => {
    await release(true);
    await forwarder.idle();
  };
  return {
    url: `http://${config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host}:${address.port}`,
    config,
    metrics,
    flush,
    async close() {
      if (closing) return;
      closing = true;
      clearInterval(tick);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Deliver what is held first: a slow client must not keep it from going out.
      await flush();
      // Then give requests in progress a moment, and cut the rest.
      const cut = setTimeout(() => server.closeAllConnections(), 2_000);
      await closed;
      clearTimeout(cut);
      await flush();
      forwarder.stop();
      await forwarder.idle();
    },
  };
}

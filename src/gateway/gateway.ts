/**
 * The OTLP/HTTP gateway: receives traces from any language (`POST /v1/traces`,
 * protobuf or JSON, optionally gzip), holds each trace until it can be judged,
 * folds and sanitizes it with the SDK processor's own code, and forwards it
 * upstream. The only code of this package that opens a listening socket.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve as resolvePath } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { diag } from '@opentelemetry/api';
import { encodeExportTraceResponse } from '../otlp/otlp-protobuf.js';
import { createSanitizer } from '../sanitize/sanitizer.js';
import type { SanitizationOptions } from '../sanitize/sanitizer.js';
import type { PolicyInput } from '../derive/policy.js';
import { resolvePolicy } from '../derive/policy.js';
import type { GatewayConfig, GatewayConfigInput } from './config.js';
import { GatewayConfigError, resolveGatewayConfig } from './config.js';
import type { DecodedBody } from './decode-body.js';
import { decodeBody } from './decode-body.js';
import { decodedRequestBytes } from './decoded-size.js';
import type { ForwardedSpan } from './forwarded-span.js';
import { Forwarder } from './forwarder.js';
import type { TraceJudgeOptions } from './judge-trace.js';
import { judgeKeptTrace, judgeTrace } from './judge-trace.js';
import { ReleasedRuns } from './released-runs.js';
import { ResourceCache } from './resource-cache.js';
import { RevisableTraces } from './revisable-traces.js';
import { GatewayMetrics } from './gateway-metrics.js';
import { LoadGauge } from './load-gauge.js';
import { RefusalWindow } from './refusal-window.js';
import { readBody } from './request-body.js';
import type { SpillBodyType, SpillRecord } from './spill-log.js';
import { SpillLog, SpillLogFullError, SpillLogLockedError } from './spill-log.js';
import { TraceStore } from './trace-store.js';
import { Turns } from './turns.js';

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

const PROTOBUF = 'application/x-protobuf';
/** Spans per upstream request: big enough to amortize HTTP, small enough to encode in a few milliseconds. */
const FORWARD_BATCH_SPANS = 256;
/** Longest stretch of folding before the event loop gets a turn. */
const SLICE_MILLIS = 5;
const JSON_TYPE = 'application/json';
/** Past this share of a bound, traces are judged even while refused senders may still bring spans of them. */
const PRESSURE_SHARE = 0.8;
/** Share of `limits.maxHeldBytes` that traces kept for a correction may take. */
const KEPT_SHARE = 0.25;
/** Requests in hand (read, decoded or held, not yet answered) below which a lagging loop takes more: enough to stay busy. */
const WORK_IN_HAND = 2;
/** Stored segments are read back while what is held stays under this share of `limits.maxHeldBytes`. */
const RECOVERY_SHARE = 0.5;

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
  let judge: TraceJudgeOptions;
  const revisable = new RevisableTraces();
  try {
    const policy = resolvePolicy(config.policy as PolicyInput);
    const sanitizer = createSanitizer(config.sanitization as SanitizationOptions);
    judge = {
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
  const { limits } = config;
  let spill: SpillLog | undefined;
  if (config.persistence.directory !== undefined) {
    try {
      spill = SpillLog.open({ ...config.persistence, directory: resolvePath(config.persistence.directory) });
    } catch (error) {
      if (error instanceof SpillLogLockedError) throw error;
      throw new GatewayConfigError(
        `cannot use persistence.directory ${config.persistence.directory}: ${(error as Error).message}`,
      );
    }
  }
  const store = new TraceStore(limits, config.hold, { judged: judge.released.runs });
  // A gateway with a persistent queue that starts is usually one that restarts: senders found it down and will
  // send again. It cannot know what they hold, so it waits for them as after a refusal, and at least as long as
  // the senders the previous process refused can be back (docs/gateway.md, "Late parts").
  const window = spill ? new RefusalWindow(spill.directory) : undefined;
  // A fresh process holds for the previous one's refusals too, those for memory included: the reason they did not
  // hold (holding would lock a full gateway) is gone with that process, and pressure still overrides any hold.
  if (window)
    store.holdUntil(
      Math.max(window.load(), Date.now() + config.hold.refusedSenderBackoffMillis + config.hold.decisionWaitMillis),
    );
  const forwarder = new Forwarder(config.upstream, metrics);
  let closing = false;
  /** Decompressed bodies read and not yet held or refused. */
  let readingBytes = 0;
  const heldBytes = (): number => store.bytes + forwarder.backlogBytes + readingBytes + revisable.bytes;
  /**
   * Near a bound (or the process past its RSS limit): traces are judged whatever refused senders may still bring,
   * since judging is what frees room. Traces kept for a correction do not count: they are let go first (makeRoom).
   */
  const memoryTight = (): boolean =>
    heldBytes() - revisable.bytes > limits.maxHeldBytes * PRESSURE_SHARE ||
    store.spans > limits.maxSpans * PRESSURE_SHARE ||
    store.traces > limits.maxTraces * PRESSURE_SHARE ||
    (limits.maxRssBytes !== undefined && gauge.rssBytes() > limits.maxRssBytes * PRESSURE_SHARE);
  /**
   * Whether `bytes` more fit under `limits.maxHeldBytes`, letting go of traces kept for a correction (the oldest
   * first) to make room: losing one loses only a possible correction, never an acknowledged span.
   */
  const makeRoom = (bytes: number): boolean => {
    const over = heldBytes() + bytes - limits.maxHeldBytes;
    if (over > 0 && revisable.bytes > 0) {
      revisable.shrinkTo(Math.max(0, revisable.bytes - over));
      metrics.revisableEvicted = revisable.evicted;
    }
    return heldBytes() + bytes <= limits.maxHeldBytes;
  };
  // Passes run one at a time, in order: a trace's late spans go out after its earlier ones.
  let folding: Promise<void> = Promise.resolve();
  let releasing = false;

  /** Reads back what an earlier process left in the persistent queue, a segment at a time while there is room. */
  const recover = (): void => {
    if (!spill) return;
    const now = Date.now();
    while (
      spill.recoveryPending > 0 &&
      heldBytes() < limits.maxHeldBytes * RECOVERY_SHARE &&
      store.spans < limits.maxSpans * RECOVERY_SHARE &&
      store.traces < limits.maxTraces * RECOVERY_SHARE
    ) {
      for (const { type, body, admit } of spill.recoverNext() ?? []) {
        let decoded: DecodedBody;
        try {
          decoded = decodeBody(type, body, limits.maxRequestItems);
        } catch (error) {
          decoded = { ok: false, status: 400, message: (error as Error).message };
        }
        if (!decoded.ok) {
          // It decoded when it was accepted; a record that no longer does is counted and logged, not retried forever.
          admit(0);
          metrics.dropped('unreadable', 0);
          diag.error(`agent-incidents gateway: a stored request could not be read back: ${decoded.message}`);
          continue;
        }
        const added = store.add(decoded.spans, now, admit(decoded.spans.length));
        metrics.spansRecovered += added.added;
        metrics.spansDuplicate += added.duplicates;
      }
    }
  };

  const release = (all: boolean): Promise<void> => {
    releasing = true;
    folding = folding
      .then(async () => {
        recover();
        // Folded traces go upstream together, in requests of up to FORWARD_BATCH_SPANS spans.
        let batch: ForwardedSpan[] = [];
        let records: (SpillRecord | undefined)[] = [];
        const now = Date.now();
        let slice = performance.now();
        // The forward backlog is bounded where it grows: no more is taken than it has room for; the rest stays held
        // (bounded by the hold limits, which refuse senders when full) until the backlog drains.
        const room = limits.maxForwardBacklogSpans - forwarder.backlogSpans;
        if (room <= 0) return;
        // Kept traces have their own share of memory, and give way first near any bound: losing one loses only a
        // possible correction.
        const pressed = memoryTight();
        revisable.shrinkTo(pressed ? 0 : limits.maxHeldBytes * KEPT_SHARE);
        metrics.revisableEvicted = revisable.evicted;
        // Traces judged early, once no refused sender can be back (refusals since they were kept included), and no
        // part of them waits in the store: judged a last time, with all that came.
        const sendersBackBy = store.partsUntil + config.hold.decisionWaitMillis + config.hold.tickMillis;
        for (const kept of now >= sendersBackBy ? revisable.expire(now, (traceId) => !store.holds(traceId)) : []) {
          try {
            const judged = judgeKeptTrace(kept, judge, now);
            for (const { outcome, cause } of judged.revisions) metrics.revised(outcome, cause);
            for (const span of judged.spans) batch.push(span);
          } catch (error) {
            diag.error('agent-incidents gateway: a trace could not be judged again', error);
          }
        }
        // Until when a trace judged now may still get a part: kept at least that long for a correction (not under
        // pressure: judging early is then what frees memory, and keeping the spans would take it back).
        const keepUntil = store.partsUntil > now && !pressed ? sendersBackBy : now;
        for (const trace of store.takeReady(
          now,
          all,
          pressed,
          forwarder.backlogSpans === 0 ? limits.maxForwardBacklogSpans : room,
        )) {
          try {
            const judged = judgeTrace(trace.spans, judge, now, trace.partsMayStillCome, closing ? now : keepUntil);
            for (const { outcome, cause } of judged.outcomes) metrics.run(outcome, cause);
            for (const { outcome, cause } of judged.revisions) metrics.revised(outcome, cause);
            metrics.lateParts += judged.lateParts;
            if (trace.partsMayStillCome) metrics.runsJudgedEarly += judged.outcomes.length;
            for (const span of judged.spans) batch.push(span);
            for (const record of trace.records) records.push(record);
          } catch (error) {
            // A trace the fold cannot take would fail the same way after a restart: counted, logged, released.
            metrics.dropped('fold_failed', trace.spans.length);
            for (const record of trace.records) record?.release();
            diag.error('agent-incidents gateway: a trace could not be folded', error);
          }
          if (batch.length >= FORWARD_BATCH_SPANS) {
            forwarder.send(batch, records);
            batch = [];
            records = [];
          }
          if (performance.now() - slice >= SLICE_MILLIS) {
            // Folding and encoding are synchronous: let requests in between, so none waits long behind a big pass.
            await new Promise<void>((resolve) => setImmediate(resolve));
            slice = performance.now();
          }
        }
        forwarder.send(batch, records);
      })
      .catch((error: unknown) => {
        // The chain must survive anything: a rejected link would stop every later fold.
        diag.error('agent-incidents gateway: releasing held traces failed', error);
      })
      .finally(() => {
        releasing = false;
      });
    return folding;
  };
  // A tick while a pass still runs is skipped: passes must not pile up behind a slow fold.
  // How long requests wait behind synchronous work (decoding, folding): served at /metrics.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const gauge = new LoadGauge();
  gauge.start();
  const tick = setInterval(() => {
    if (!releasing) void release(false);
  }, config.hold.tickMillis);
  tick.unref();

  const answer = (
    response: ServerResponse,
    status: number,
    body: string | Uint8Array,
    type: string,
    headers: Record<string, string> = {},
  ): void => {
    metrics.request(status);
    response.writeHead(status, { 'content-type': type, ...(closing ? { connection: 'close' } : {}), ...headers });
    response.end(body);
  };
  /** Until when a sender refused now may come back with what it sent: the longer of its backoff and twice Retry-After, plus the decision wait. */
  const senderBackUntil = (): number =>
    Date.now() +
    Math.max(2 * limits.retryAfterSeconds * 1000, config.hold.refusedSenderBackoffMillis) +
    config.hold.decisionWaitMillis;
  const refuse = (
    response: ServerResponse,
    status: number,
    message: string,
    headers: Record<string, string> = {},
  ): void => {
    // A sender retries 429 and 503: until it can be back, a trace judged may miss what it sent (docs/gateway.md, "Late parts").
    if (status === 429 || status === 503) {
      store.expectPartsUntil(senderBackUntil());
      window?.extend(store.partsUntil);
    }
    answer(response, status, JSON.stringify({ code: status, message }), JSON_TYPE, headers);
  };
  /**
   * Refuses with 503 + Retry-After for a cause that judging does not cure
   * (busy, upstream failing, backlog full), and holds every trace until the
   * sender can be back: it may bring spans of a held trace (twice Retry-After,
   * as senders back off with jitter around it). Never for memory or a full
   * queue: judging and delivering is what frees those, and holding would lock.
   */
  const refuseAndHold = (response: ServerResponse, message: string): void => {
    if (!closing && !memoryTight()) store.holdUntil(senderBackUntil());
    refuse(response, 503, message, later);
  };
  const later = { 'retry-after': String(limits.retryAfterSeconds) };
  const turns = new Turns();
  /** Requests past the cheap refusals and not yet answered: the work in hand. */
  let inHand = 0;

  const receive = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== PROTOBUF && type !== JSON_TYPE) {
      request.resume();
      metrics.refused('unsupported', 0);
      return refuse(response, 415, `content-type must be ${PROTOBUF} or ${JSON_TYPE}`);
    }
    // Cheap refusals first, before the body is read and decoded. A lagging loop sheds only what exceeds the work
    // already in hand: with requests queued it stays busy, and without them the lag is another process's (a busy
    // neighbour on the same cores), which refusing would not cure but only turn into idle time.
    const lag = limits.maxEventLoopDelayMillis === undefined ? 0 : gauge.lagMillis();
    if (
      limits.maxEventLoopDelayMillis !== undefined &&
      lag > limits.maxEventLoopDelayMillis &&
      inHand >= WORK_IN_HAND
    ) {
      request.resume();
      metrics.refused('busy', 0);
      return refuseAndHold(response, `gateway is busy (event loop ${Math.round(lag)} ms behind)`);
    }
    if (limits.maxRssBytes !== undefined && gauge.rssBytes() > limits.maxRssBytes) {
      request.resume();
      metrics.refused('memory', 0);
      return refuse(response, 503, 'gateway process is at limits.maxRssBytes', later);
    }
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared <= limits.maxBodyBytes && !makeRoom(declared)) {
      // Refused before it is read: memory is full, and reading it would add to it.
      request.resume();
      metrics.refused('capacity', 0);
      return refuse(response, 429, 'gateway is holding as much as it may', later);
    }
    inHand += 1;
    try {
      await take(request, response, type);
    } finally {
      inHand -= 1;
    }
  };

  /** Reads, decodes and holds a request that passed the cheap refusals. */
  const take = async (request: IncomingMessage, response: ServerResponse, type: string): Promise<void> => {
    const body = await readBody(request, limits.maxBodyBytes);
    if (!body.ok) {
      metrics.refused(body.status === 413 ? 'too_large' : body.status === 415 ? 'unsupported' : 'malformed', 0);
      return refuse(response, body.status, body.message, body.status === 413 ? { connection: 'close' } : {});
    }
    readingBytes += body.body.length;
    const done = await turns.take();
    try {
      await hold(type === PROTOBUF ? 'protobuf' : 'json', body.body, response, done);
    } finally {
      done();
      readingBytes -= body.body.length;
    }
  };

  /** Decodes, checks and holds a body; `endTurn` lets the next body be decoded once the synchronous part is over. */
  const hold = async (
    type: SpillBodyType,
    body: Buffer,
    response: ServerResponse,
    endTurn: () => void,
  ): Promise<void> => {
    const decoded = decodeBody(type, body, limits.maxRequestItems);
    if (!decoded.ok) {
      metrics.refused(decoded.status === 413 ? 'too_large' : 'malformed', 0);
      return refuse(response, decoded.status, decoded.message);
    }
    const { spans, rejected } = decoded;
    if (rejected > 0) metrics.refused('malformed', rejected);
    const bytes = decodedRequestBytes(spans);
    const tooLarge =
      spans.length > limits.maxSpans
        ? `${spans.length} spans exceed limits.maxSpans (${limits.maxSpans})`
        : spans.length > limits.maxForwardBacklogSpans
          ? `${spans.length} spans exceed limits.maxForwardBacklogSpans (${limits.maxForwardBacklogSpans})`
          : store.newTraces(spans) > limits.maxTraces
            ? `the request's traces exceed limits.maxTraces (${limits.maxTraces})`
            : bytes + body.length > limits.maxHeldBytes
              ? `the request decodes to about ${bytes} bytes, over limits.maxHeldBytes (${limits.maxHeldBytes})`
              : undefined;
    if (tooLarge) {
      // It could never fit, however long the client waits: too large, not "later".
      metrics.refused('too_large', spans.length);
      return refuse(response, 413, `request too large: ${tooLarge}`);
    }
    if (closing) {
      metrics.refused('closing', spans.length);
      return refuse(response, 503, 'gateway is shutting down', later);
    }
    if (forwarder.consecutiveFailures >= limits.upstreamFailingAttempts) {
      metrics.refused('upstream_failing', spans.length);
      return refuseAndHold(response, `upstream is failing (${forwarder.consecutiveFailures} attempts in a row)`);
    }
    if (forwarder.backlogSpans + spans.length > limits.maxForwardBacklogSpans) {
      metrics.refused('backlog', spans.length);
      return refuseAndHold(response, 'upstream backlog is full');
    }
    if (!store.fits(spans) || !makeRoom(bytes)) {
      metrics.refused('capacity', spans.length);
      return refuse(response, 429, 'gateway is holding as much as it may', later);
    }
    // The synchronous part is over: the next body may be decoded while this one is written.
    endTurn();
    let record: SpillRecord | undefined;
    if (spill && spans.length > 0) {
      try {
        // Written before it is acknowledged: accepted means delivered, a crash included.
        record = await spill.append(type, body, spans.length);
      } catch (error) {
        metrics.refused('persistence', spans.length);
        const full = error instanceof SpillLogFullError;
        if (!full) diag.error('agent-incidents gateway: the persistent queue cannot be written', error);
        return refuse(
          response,
          503,
          full
            ? 'persistent queue is full'
            : `persistent queue cannot be written (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
          later,
        );
      }
    }
    const added = store.add(spans, Date.now(), record);
    metrics.spansReceived += added.added;
    metrics.spansDuplicate += added.duplicates;
    const partial =
      rejected > 0
        ? { rejectedSpans: rejected, errorMessage: `${rejected} span(s) without ids or start time were rejected` }
        : undefined;
    if (type === 'protobuf') return answer(response, 200, encodeExportTraceResponse(partial), PROTOBUF);
    return answer(response, 200, JSON.stringify(partial ? { partialSuccess: partial } : {}), JSON_TYPE);
  };

  const server: Server = createServer(
    {
      headersTimeout: limits.headersTimeoutMillis,
      requestTimeout: limits.requestTimeoutMillis,
      // Node checks those timeouts only this often (30 s by default): a slow client would outlive them.
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, limits.headersTimeoutMillis / 4)),
    },
    (request, response) => {
      const path = (request.url ?? '').split('?')[0];
      const handle = async (): Promise<void> => {
        if (path === '/v1/traces' && request.method === 'POST') return receive(request, response);
        request.resume();
        if (path === '/healthz' && request.method === 'GET')
          return answer(response, closing ? 503 : 200, closing ? 'closing\n' : 'ok\n', 'text/plain');
        if (path === '/metrics' && request.method === 'GET') {
          const held = {
            traces: store.traces,
            spans: store.spans,
            bytes: heldBytes(),
            backlogSpans: forwarder.backlogSpans,
            persistedBytes: spill?.bytes ?? 0,
            eventLoopDelayP99Seconds: loopDelay.count > 0 ? loopDelay.percentile(99) / 1e9 : 0,
            eventLoopDelayMaxSeconds: loopDelay.count > 0 ? loopDelay.max / 1e9 : 0,
            requestsInHand: inHand,
          };
          // Each scrape reads the delay since the previous one.
          loopDelay.reset();
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
    },
  );
  // Past the cap a new connection is closed at once: slow or idle clients cannot exhaust file descriptors.
  server.maxConnections = limits.maxConnections;
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.listen.port, config.listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (error: unknown) => {
    clearInterval(tick);
    loopDelay.disable();
    gauge.stop();
    await spill?.close();
    throw error;
  });
  const address = server.address() as AddressInfo;
  // What an earlier process left goes out first.
  recover();

  /**
   * Releases held traces (every one with `all`, else those ready) and waits
   * for the forwarder, a backlog's worth at a time, until none is left to
   * release or `until` (epoch ms) passes.
   */
  const drain = async (until: number, all = true): Promise<void> => {
    let released = true;
    do {
      const before = store.traces;
      await release(all);
      // Without `all`, a pass that took nothing is the last; what it and earlier passes took is still awaited below.
      released = all || store.traces !== before;
      if (until === Number.POSITIVE_INFINITY) {
        await forwarder.idle();
        continue;
      }
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        forwarder.idle(),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, until - Date.now())))),
      ]);
      clearTimeout(timer);
    } while (released && store.traces > 0 && Date.now() < until);
  };
  const flush = (): Promise<void> => drain(Number.POSITIVE_INFINITY);
  let closed: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    closing = true;
    clearInterval(tick);
    loopDelay.disable();
    gauge.stop();
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
    await drain(deadline, !spill || store.partsUntil <= Date.now());
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
  return {
    url: `http://${config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host}:${address.port}`,
    config,
    metrics,
    flush,
    close() {
      closed ??= close();
      return closed;
    },
  };
}

/**
 * The gateway's configuration: a YAML file validated at start-up with zod,
 * every default stated here. An invalid value is a {@link GatewayConfigError}
 * naming the key, which the CLI turns into exit code 2.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parse } from 'yaml';
import { z } from 'zod';

const positiveInt = z.number().int().positive();
/** Node timers take at most 2^31-1 ms; a longer delay would fire at once. */
const TIMER_MAX = 2 ** 31 - 1;
const timerMillis = positiveInt.max(TIMER_MAX);
/** Durations compared with clocks, never put in a timer: as long as a run may last. */
const longMillis = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/** More worker threads than this would only share the same cores. */
const MAX_WORKERS = 256;

/** The gateway configuration schema; see `docs/gateway.md` for every key. */
export const GATEWAY_CONFIG = z
  .object({
    /** Where the OTLP/HTTP receiver listens. @default 127.0.0.1:4319 */
    listen: z
      .object({ host: z.string().min(1).default('127.0.0.1'), port: z.number().int().min(0).max(65535).default(4319) })
      .strict()
      .prefault({}),
    /** Where folded traces go: an OTLP/HTTP traces endpoint. */
    upstream: z
      .object({
        /** Full URL, e.g. http://127.0.0.1:4318/v1/traces. */
        endpoint: z.url(),
        /** `protobuf` or `json`. @default protobuf */
        encoding: z.enum(['protobuf', 'json']).default('protobuf'),
        /** Extra request headers (an auth token). @default {} */
        headers: z.record(z.string(), z.string()).default({}),
        /** Per-request timeout. @default 10000 */
        timeoutMillis: timerMillis.default(10_000),
        /**
         * Tries per batch, the first included, on 408/429/502/503/504, network
         * errors and timeouts. Unset, a batch is retried until it is delivered
         * (the persistent queue keeps it across restarts); set, a batch that
         * spends them is dropped, counted and logged. @default unset
         */
        maxAttempts: positiveInt.optional(),
        /** First backoff, doubled per retry up to `maxBackoffMillis`; a `Retry-After` wins. @default 200 */
        initialBackoffMillis: timerMillis.default(200),
        /** @default 5000 */
        maxBackoffMillis: timerMillis.default(5_000),
      })
      .strict(),
    /** How long traces are held before they are folded. */
    hold: z
      .object({
        /** Quiet time after a trace's run spans ended (and after its last span arrived). @default 2000 */
        decisionWaitMillis: longMillis.default(2_000),
        /** A trace whose run span never arrives is folded once no span of it came for this long: a crashed run. @default 300000 */
        maxHoldMillis: longMillis.positive().default(300_000),
        /** How often held traces are checked. @default 250 */
        tickMillis: timerMillis.default(250),
        /**
         * How long a sender refused with 429 or 503 (or that found the gateway
         * down) may take to send again: the collector's exporter backs off up
         * to 10 s with ±50% jitter, or Retry-After when that is longer. Traces
         * are held that long after a refusal for a cause judging does not cure,
         * and after a start with a persistent queue (a restart: senders were
         * refused while the gateway was down); a trace judged sooner never
         * reads `success` (docs/gateway.md, "Late parts"). @default 15000
         */
        refusedSenderBackoffMillis: longMillis.default(15_000),
      })
      .strict()
      .prefault({}),
    /**
     * Bounds. A request that could never fit is refused with 413; past the
     * bounds the gateway answers 429 (memory, traces, spans) or 503 (upstream
     * backlog, upstream failing, persistent queue) with Retry-After.
     */
    limits: z
      .object({
        /** Largest request body, compressed or not (a gzip bomb stops here). @default 8388608 */
        maxBodyBytes: positiveInt.default(8 * 1024 * 1024),
        /** Traces held at once. @default 10000 */
        maxTraces: positiveInt.default(10_000),
        /** Spans held at once. @default 200000 */
        maxSpans: positiveInt.default(200_000),
        /**
         * Estimated memory of what the gateway holds: decoded spans waiting to
         * be folded, encoded requests waiting upstream, request bodies being
         * read. The process's RSS stays within about 1.5× this plus Node's own
         * ~60 MB. @default 268435456
         */
        maxHeldBytes: positiveInt.default(256 * 1024 * 1024),
        /** Spans waiting to be forwarded before intake stops. @default 100000 */
        maxForwardBacklogSpans: positiveInt.default(100_000),
        /** Upstream attempts failed in a row after which new requests get 503 until a delivery succeeds. @default 3 */
        upstreamFailingAttempts: positiveInt.default(3),
        /** Seconds clients are told to wait. @default 5 */
        retryAfterSeconds: positiveInt.max(86_400).default(5),
        /** Spans, events, links and attributes one protobuf request may decode to (a 2-byte empty span costs hundreds in memory). @default 524288 */
        maxRequestItems: positiveInt.default(512 * 1024),
        /**
         * Resident memory of the gateway's process past which new requests get
         * 503, as the collector's memory_limiter does: what the estimate of
         * `maxHeldBytes` misses (garbage not yet collected, buffers) cannot
         * push the process past it. Unset: no check. @default unset
         */
        maxRssBytes: positiveInt.optional(),
        /**
         * Event-loop delay past which new requests beyond the work in hand
         * (2 requests being read, decoded or held) get 503 until it falls: a
         * saturated gateway sheds what exceeds its capacity instead of making
         * every request wait, and a lag a busy neighbour causes with nothing
         * queued refuses nothing. Unset: no check (the shipped config sets 100). @default unset
         */
        maxEventLoopDelayMillis: positiveInt.optional(),
        /** Open client connections; more are closed at once. @default 1024 */
        maxConnections: positiveInt.default(1024),
        /** Time a client has to send a request's headers (a slowloris is cut here). @default 10000 */
        headersTimeoutMillis: timerMillis.default(10_000),
        /** Time a client has to send a whole request, body included. @default 30000 */
        requestTimeoutMillis: timerMillis.default(30_000),
      })
      .strict()
      .prefault({}),
    /**
     * The persistent queue: every accepted request is written here before it
     * is acknowledged, and forgotten once delivered; what a crash or restart
     * leaves is delivered on the next start. Without `directory` the queue is
     * in memory only (a crash loses what was held). @default off
     */
    persistence: z
      .object({
        /** A directory only this gateway uses; created when missing. Relative paths resolve against the working directory. */
        directory: z.string().min(1).optional(),
        /** Bytes on disk past which new requests get 503. @default 1073741824 */
        maxBytes: positiveInt.default(1024 * 1024 * 1024),
        /** Size of one segment file; a segment is deleted when all of it was delivered. @default 4194304 */
        segmentBytes: positiveInt.default(4 * 1024 * 1024),
        /** fsync every write before acknowledging (survives power loss, not only a crash; slower). @default false */
        fsync: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
    /** Stopping on SIGTERM/SIGINT or close(). */
    shutdown: z
      .object({
        /** The longest a stop takes, whatever upstream does; what is not delivered by then stays in the persistent queue. @default 20000 */
        timeoutMillis: timerMillis.default(20_000),
      })
      .strict()
      .prefault({}),
    /**
     * Worker threads that decode, fold, sanitize and encode, each holding the traces whose id hashes to it; the
     * intake thread reads, persists and routes. 0 folds in the intake's own thread. Unset: one per core but the
     * intake's ({@link defaultWorkers}). @default unset (cores − 1, at least 1)
     */
    workers: z.number().int().min(0).max(MAX_WORKERS).optional(),
    /** The retry-safety policy, as for the SDK processor. @default the processor's defaults */
    policy: z.record(z.string(), z.unknown()).default({}),
    /** Sanitization, as for the SDK processor. @default standard mode */
    sanitization: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

/** A validated gateway configuration. */
export type GatewayConfig = z.infer<typeof GATEWAY_CONFIG>;

/** What a caller may pass: every key but `upstream.endpoint` has a default. */
export type GatewayConfigInput = z.input<typeof GATEWAY_CONFIG>;

/** Worker threads when `workers` is unset: one per core the process may use, but one left to the intake; at least 1. */
export function defaultWorkers(cores: number = availableParallelism()): number {
  return Math.max(1, cores - 1);
}

/** The worker threads a configuration asks for (0: none, the intake folds). */
export function workersOf(config: GatewayConfig): number {
  return config.workers ?? defaultWorkers();
}

/** A configuration value is invalid; the message names its key. */
export class GatewayConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GatewayConfigError';
  }
}

/** Validates a configuration object; throws {@link GatewayConfigError} naming the first bad key. */
export function resolveGatewayConfig(input: unknown): GatewayConfig {
  const parsed = GATEWAY_CONFIG.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const key = issue?.path.length ? issue.path.join('.') : '(root)';
  throw new GatewayConfigError(`invalid gateway config at ${key}: ${issue?.message ?? 'invalid'}`);
}

/** Reads and validates a YAML configuration file. */
export function loadGatewayConfig(file: string): GatewayConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new GatewayConfigError(`cannot read gateway config ${file}: ${(error as Error).message}`);
  }
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new GatewayConfigError(`gateway config ${file} is not valid YAML: ${(error as Error).message}`);
  }
  return resolveGatewayConfig(document);
}

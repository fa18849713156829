/**
 * The gateway's configuration: a YAML file validated at start-up with zod,
 * every default stated here. An invalid value is a {@link GatewayConfigError}
 * naming the key, which the CLI turns into exit code 2.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';

const positiveInt = z.number().int().positive();
const millis = z.number().int().nonnegative();

/** The gateway configuration schema; see `docs/gateway.md` for every key. */
export const GATEWAY_CONFIG = z
  .object({
    /** Where the OTLP/HTTP receiver listens. @default 127.0.0.1:4319 */
    listen: z
      .object({ host: z.string().min(1).default('127.0.0.1'), port: z.number().int().min(0).max(65535).default(4319) })
      .strict()
      .default({ host: '127.0.0.1', port: 4319 }),
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
        timeoutMillis: positiveInt.default(10_000),
        /** Tries per batch, the first included, on 429/502/503/504 and network errors. @default 5 */
        maxAttempts: positiveInt.default(5),
        /** First backoff, doubled per retry up to `maxBackoffMillis`; a `Retry-After` wins. @default 200 */
        initialBackoffMillis: positiveInt.default(200),
        /** @default 5000 */
        maxBackoffMillis: positiveInt.default(5_000),
      })
      .strict(),
    /** How long traces are held before they are folded. */
    hold: z
      .object({
        /** Quiet time after a trace's run spans ended (and after its last span arrived). @default 2000 */
        decisionWaitMillis: millis.default(2_000),
        /** A trace whose run span never arrives is folded this long after its first span: a crashed run. @default 300000 */
        maxHoldMillis: positiveInt.default(300_000),
        /** How often held traces are checked. @default 250 */
        tickMillis: positiveInt.default(250),
      })
      .strict()
      .default({ decisionWaitMillis: 2_000, maxHoldMillis: 300_000, tickMillis: 250 }),
    /** Bounds: past them the gateway answers 429 (held data) or 503 (upstream backlog) with Retry-After. */
    limits: z
      .object({
        /** Largest request body, compressed or not (a gzip bomb stops here). @default 8388608 */
        maxBodyBytes: positiveInt.default(8 * 1024 * 1024),
        /** Traces held at once. @default 10000 */
        maxTraces: positiveInt.default(10_000),
        /** Spans held at once. @default 200000 */
        maxSpans: positiveInt.default(200_000),
        /** Approximate bytes held (received request sizes). @default 268435456 */
        maxHeldBytes: positiveInt.default(256 * 1024 * 1024),
        /** Spans waiting to be forwarded before intake stops. @default 100000 */
        maxForwardBacklogSpans: positiveInt.default(100_000),
        /** Seconds clients are told to wait. @default 5 */
        retryAfterSeconds: positiveInt.default(5),
        /** Spans, events, links and attributes one protobuf request may decode to (a 2-byte empty span costs hundreds in memory). @default 524288 */
        maxRequestItems: positiveInt.default(512 * 1024),
      })
      .strict()
      .default({
        maxBodyBytes: 8 * 1024 * 1024,
        maxTraces: 10_000,
        maxSpans: 200_000,
        maxHeldBytes: 256 * 1024 * 1024,
        maxForwardBacklogSpans: 100_000,
        retryAfterSeconds: 5,
        maxRequestItems: 512 * 1024,
      }),
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

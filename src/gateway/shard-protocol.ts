/**
 * What the intake thread and the workers of a gateway with workers agree on (docs/gateway.md, "Workers"): where a
 * worker's code is, its heap limit, and the messages between them: plain data, request bodies as transferred
 * buffers, never object graphs of spans.
 */
import type { BodyEncoding } from './decode-body.js';
import type { GatewayConfig } from './config.js';
import type { MetricsSnapshot } from './gateway-metrics.js';

const MIB = 1024 * 1024;
/** What a worker needs besides what it holds: code, the fold's working set, caches. */
const WORKER_BASE_MIB = 64;
/**
 * Heap one protobuf item may take while a request is decoded, before admission weighs it: 334 bytes measured for
 * 512 Ki empty spans (the worst shape: 2 bytes on the wire each), rounded up.
 */
const DECODE_BYTES_PER_ITEM = 384;

/**
 * The old-generation heap limit of each worker, in MiB: twice its share of `limits.maxHeldBytes` (what it holds,
 * by the estimate, plus garbage not yet collected), what decoding the largest request `limits.maxRequestItems`
 * lets in takes before it is weighed, and 64 MiB for the rest. Past it V8 ends the worker
 * (`ERR_WORKER_OUT_OF_MEMORY`), which is restarted.
 */
export function workerHeapMib(
  limits: { readonly maxHeldBytes: number; readonly maxRequestItems: number },
  workers: number,
): number {
  const held = (2 * limits.maxHeldBytes) / Math.max(1, workers);
  return Math.ceil((held + DECODE_BYTES_PER_ITEM * limits.maxRequestItems) / MIB) + WORKER_BASE_MIB;
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

/** What a worker starts with (`workerData`). */
export interface ShardInit {
  /** The gateway's configuration, as resolved (the worker takes its share of the bounds). */
  readonly config: GatewayConfig;
  /** This worker's index, and how many there are. */
  readonly shard: number;
  readonly shards: number;
  /** The shared loads (`shard-counters.ts`). */
  readonly counters: SharedArrayBuffer;
  /** The refusal window so far (`TraceStore.holdUntil`, `expectPartsUntil`), and whether the gateway is closing. */
  readonly holdUntil: number;
  readonly partsUntil: number;
  readonly closing: boolean;
}

/** A worker's part of a request, decoded and waiting for the intake's answer: what admission weighs. */
export type StagedPart =
  | {
      readonly ok: true;
      /** Usable spans: what the worker will release once each is delivered. */
      readonly spans: number;
      /** Spans without valid ids or start time. */
      readonly rejected: number;
      /** Traces of the part the worker does not hold yet. */
      readonly newTraces: number;
      /** Estimated decoded bytes (`decodedRequestBytes`). */
      readonly decodedBytes: number;
      /** Spans, events, links and values (protobuf), against `limits.maxRequestItems`. */
      readonly items: number;
    }
  | { readonly ok: false; readonly status: number; readonly message: string };

/** From the intake to a worker. */
export type ToShard =
  /** Decode a part of a request and keep it until `commit` or `discard`. */
  | {
      readonly type: 'stage';
      readonly id: number;
      readonly encoding: BodyEncoding;
      readonly body: Uint8Array;
      readonly maxItems: number;
    }
  | { readonly type: 'discard'; readonly id: number }
  /** Hold the staged part; its spans release `request` as they are delivered. */
  | { readonly type: 'commit'; readonly id: number; readonly request: number }
  /** Decode and hold a part read back from the persistent queue (at start, or after a worker exited). */
  | {
      readonly type: 'resend';
      readonly request: number;
      readonly encoding: BodyEncoding;
      readonly body: Uint8Array;
      readonly maxItems: number;
    }
  /** The refusal window grew (docs/gateway.md, "Late parts"). */
  | { readonly type: 'window'; readonly holdUntil: number; readonly partsUntil: number }
  | { readonly type: 'closing' }
  /** Let go of traces kept for a correction until they take at most `bytes`. */
  | { readonly type: 'shrinkKept'; readonly bytes: number }
  /** Release held traces (every one with `all`) and wait for upstream, until `until` (epoch ms; null: no end). */
  | { readonly type: 'drain'; readonly id: number; readonly until: number | null; readonly all: boolean }
  /** Stop delivering; answer with the spans left. */
  | { readonly type: 'stop'; readonly id: number };

/** From a worker to the intake. */
export type FromShard =
  | { readonly type: 'staged'; readonly id: number; readonly part: StagedPart }
  /** A resent part decoded: its usable spans (0 and a message when it no longer decodes). */
  | { readonly type: 'resent'; readonly request: number; readonly spans: number; readonly message?: string }
  /** Spans delivered or dropped, as `[request, spans, request, spans, …]`. */
  | { readonly type: 'released'; readonly releases: readonly number[] }
  | { readonly type: 'metrics'; readonly snapshot: MetricsSnapshot }
  | { readonly type: 'drained'; readonly id: number }
  | { readonly type: 'stopped'; readonly id: number; readonly left: number }
  /** A line for the intake's diag logger (the CLI writes it to stderr). */
  | { readonly type: 'diag'; readonly level: DiagLevel; readonly message: string; readonly args: readonly string[] };

/** The diag logger's levels a worker relays. */
export type DiagLevel = 'error' | 'warn' | 'info' | 'debug' | 'verbose';

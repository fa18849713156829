/**
 * The one mutable state of a running gateway, shared by its intake (`intake.ts`), its release loop
 * (`release-loop.ts`) and its shutdown (`gateway.ts`): what it holds, what is in flight, whether it is closing.
 * The decisions on it are pure (`admission.ts`); this object only measures and applies them.
 */
import type { HeldMemory } from './admission.js';
import type { GatewayConfig } from './config.js';
import type { Forwarder } from './forwarder.js';
import type { GatewayMetrics } from './gateway-metrics.js';
import type { LoadGauge } from './load-gauge.js';
import type { RefusalWindow } from './refusal-window.js';
import type { RevisableTraces } from './revisable-traces.js';
import type { SpillLog } from './spill-log.js';
import type { TraceStore } from './trace-store.js';

/** Past this share of a bound, traces are judged even while refused senders may still bring spans of them. */
const PRESSURE_SHARE = 0.8;

/** What the intake reads of the spans held: one trace store, or the sum of the workers' (`shard-intake.ts`). */
export interface HeldTraces {
  readonly traces: number;
  readonly spans: number;
  readonly bytes: number;
  readonly partsUntil: number;
  holdUntil(millis: number): void;
  expectPartsUntil(millis: number): void;
}

/** What the intake reads of the way upstream: one forwarder, or the workers' together. */
export interface UpstreamBacklog {
  readonly backlogSpans: number;
  readonly backlogBytes: number;
  readonly consecutiveFailures: number;
}

/** What the intake reads and asks of the traces kept for a correction. */
export interface KeptTraces {
  readonly bytes: number;
  readonly evicted: number;
  shrinkTo(maxBytes: number): void;
}

/** The parts of a gateway as its intake, routes and metrics see them, whether it folds in process or in workers. */
export interface StateParts {
  readonly config: GatewayConfig;
  readonly metrics: GatewayMetrics;
  readonly store: HeldTraces;
  readonly forwarder: UpstreamBacklog;
  readonly revisable: KeptTraces;
  readonly gauge: LoadGauge;
  /** The persistent queue; unset without `persistence.directory`. */
  readonly spill: SpillLog | undefined;
  /** The refusals' window kept beside the persistent queue; unset without one. */
  readonly window: RefusalWindow | undefined;
}

/** The parts of a gateway that holds and folds spans in its own thread, and its measures. */
export interface GatewayParts extends StateParts {
  readonly store: TraceStore;
  readonly forwarder: Forwarder;
  readonly revisable: RevisableTraces;
}

/** A running gateway's state: its parts, and what is in flight between them. */
export class GatewayState<Parts extends StateParts = GatewayParts> {
  /** Set once `close()` is called: no request is taken after it. */
  closing = false;
  /** Decompressed bodies read and not yet held or refused. */
  readingBytes = 0;
  /** Requests past the cheap refusals and not yet answered: the work in hand. */
  inHand = 0;

  constructor(readonly parts: Parts) {}

  /** Everything held, in the estimate `limits.maxHeldBytes` bounds. */
  heldBytes(): number {
    const { store, forwarder, revisable } = this.parts;
    return store.bytes + forwarder.backlogBytes + this.readingBytes + revisable.bytes;
  }

  /** Memory as admission weighs it. */
  memory(): HeldMemory {
    return {
      heldBytes: this.heldBytes(),
      keptBytes: this.parts.revisable.bytes,
      maxHeldBytes: this.parts.config.limits.maxHeldBytes,
    };
  }

  /**
   * Near a bound (or the process past its RSS limit): traces are judged whatever refused senders may still bring,
   * since judging is what frees room. Traces kept for a correction do not count: they are let go first.
   */
  memoryTight(): boolean {
    const { limits } = this.parts.config;
    const { store, revisable, gauge } = this.parts;
    return (
      this.heldBytes() - revisable.bytes > limits.maxHeldBytes * PRESSURE_SHARE ||
      store.spans > limits.maxSpans * PRESSURE_SHARE ||
      store.traces > limits.maxTraces * PRESSURE_SHARE ||
      (limits.maxRssBytes !== undefined && gauge.rssBytes() > limits.maxRssBytes * PRESSURE_SHARE)
    );
  }

  /** Lets go of traces kept for a correction, the oldest first, until they take at most `bytes` (unset: none). */
  shrinkKept(bytes: number | undefined): void {
    if (bytes === undefined) return;
    this.parts.revisable.shrinkTo(bytes);
    this.parts.metrics.revisableEvicted = this.parts.revisable.evicted;
  }

  /**
   * A sender was refused with `429` or `503` and will retry: until it can be back (the longer of its backoff and
   * twice Retry-After, plus the decision wait), a trace judged may miss what it sent (docs/gateway.md, "Late parts").
   * With `holdTraces`, every trace waits for it too, unless the gateway is closing or short of memory, where
   * judging is what frees room and holding would lock.
   */
  expectSenderBack(holdTraces: boolean): void {
    const { config, store, window } = this.parts;
    const backUntil =
      Date.now() +
      Math.max(2 * config.limits.retryAfterSeconds * 1000, config.hold.refusedSenderBackoffMillis) +
      config.hold.decisionWaitMillis;
    if (holdTraces && !this.closing && !this.memoryTight()) store.holdUntil(backUntil);
    store.expectPartsUntil(backUntil);
    window?.extend(store.partsUntil);
  }
}

/**
 * The intake of a gateway with workers (docs/gateway.md, "Workers"): it reads each body, cuts it by trace id
 * (`trace-router.ts`), has each worker decode its part, asks admission (`admission.ts`) with the parts' sizes and
 * the workers' loads, writes the whole request to the persistent queue before acknowledging it, then has the
 * workers hold their parts. Also the views of the workers' stores, backlogs and kept traces that the intake's
 * state, its refusals and `/metrics` read, as they read one store's without workers.
 */
import type { ServerResponse } from 'node:http';
import { diag } from '@opentelemetry/api';
import { admitDecoded, undecodableBody, unpersisted, workerExited } from './admission.js';
import type { BodyEncoding } from './decode-body.js';
import type { GatewayMetrics } from './gateway-metrics.js';
import type { GatewayState, HeldTraces, KeptTraces, StateParts, UpstreamBacklog } from './gateway-state.js';
import type { BodyHolder, Responder } from './intake.js';
import type { ShardPool, StagedShard } from './shard-pool.js';
import type { SpillRecord } from './spill-log.js';
import { SpillLogFullError } from './spill-log.js';
import { splitBody } from './trace-router.js';

/** The workers' trace stores together; the refusal window is kept here and sent to every worker. */
export class ShardedStore implements HeldTraces {
  #holdUntil = 0;
  #partsUntil = 0;

  constructor(private readonly pool: ShardPool) {}

  get traces(): number {
    return this.pool.counters.total().traces;
  }

  get spans(): number {
    return this.pool.counters.total().spans;
  }

  get bytes(): number {
    return this.pool.counters.total().storeBytes;
  }

  get partsUntil(): number {
    return this.#partsUntil;
  }

  holdUntil(millis: number): void {
    this.#holdUntil = Math.max(this.#holdUntil, millis);
    this.expectPartsUntil(millis);
  }

  expectPartsUntil(millis: number): void {
    this.#partsUntil = Math.max(this.#partsUntil, millis);
    this.pool.window(this.#holdUntil, this.#partsUntil);
  }
}

/** The workers' forwarders together: a backlog is the sum, failing upstream the most failures of any worker. */
export class ShardedUpstream implements UpstreamBacklog {
  constructor(private readonly pool: ShardPool) {}

  get backlogSpans(): number {
    return this.pool.counters.total().backlogSpans;
  }

  get backlogBytes(): number {
    return this.pool.counters.total().backlogBytes;
  }

  get consecutiveFailures(): number {
    return this.pool.counters.total().failures;
  }
}

/** The workers' traces kept for a correction together. */
export class ShardedKept implements KeptTraces {
  constructor(
    private readonly pool: ShardPool,
    private readonly metrics: GatewayMetrics,
  ) {}

  get bytes(): number {
    return this.pool.counters.total().keptBytes;
  }

  /** As the workers counted it (their metrics are summed into the intake's). */
  get evicted(): number {
    return this.metrics.revisableEvicted;
  }

  shrinkTo(maxBytes: number): void {
    this.pool.shrinkKept(maxBytes);
  }
}

/** Holds bodies in the workers: cut by trace id, decoded there, admitted here, persisted, then held there. */
export class ShardedHolder implements BodyHolder {
  constructor(
    private readonly state: GatewayState<StateParts>,
    private readonly responder: Responder,
    private readonly pool: ShardPool,
  ) {}

  async hold(encoding: BodyEncoding, body: Buffer, response: ServerResponse, endTurn: () => void): Promise<void> {
    const { state, responder, pool } = this;
    const { limits } = state.parts.config;
    const { metrics, forwarder, spill } = state.parts;
    const split = splitBody(encoding, body, pool.size);
    // Cutting is the synchronous part; decoding happens in the workers, several bodies at once.
    endTurn();
    if (!split.ok) return responder.refuse(response, undecodableBody(split.status, split.message));
    const staged = await pool.stage(split.parts, encoding, limits.maxRequestItems);
    const sum = { spans: 0, rejected: 0, newTraces: 0, decodedBytes: 0, items: 0 };
    for (const { part } of staged) {
      if (!part.ok) {
        pool.discard(staged);
        const refusal = part.status === 503 ? workerExited(0) : undecodableBody(part.status as 400 | 413, part.message);
        return responder.refuse(response, refusal);
      }
      for (const key of ['spans', 'rejected', 'newTraces', 'decodedBytes', 'items'] as const) sum[key] += part[key];
    }
    if (sum.items > limits.maxRequestItems) {
      pool.discard(staged);
      const message = `more than ${limits.maxRequestItems} spans, events, links and attributes`;
      return responder.refuse(response, undecodableBody(413, message));
    }
    if (sum.rejected > 0) metrics.refused('malformed', sum.rejected);
    const admission = admitDecoded(
      {
        limits,
        closing: state.closing,
        upstreamFailures: forwarder.consecutiveFailures,
        backlogSpans: forwarder.backlogSpans,
        memory: state.memory(),
      },
      {
        spans: sum.spans,
        newTraces: sum.newTraces,
        fitsStore: this.#fits(staged, sum.spans, sum.newTraces),
        decodedBytes: sum.decodedBytes,
        bodyBytes: body.length,
      },
    );
    state.shrinkKept(admission.shrinkKeptTo);
    if (!admission.accept) {
      pool.discard(staged);
      return responder.refuse(response, admission.refusal);
    }
    let record: SpillRecord | undefined;
    if (spill && sum.spans > 0) {
      try {
        // Written before it is acknowledged: accepted means delivered, a crash (of a worker or of all) included.
        record = await spill.append(encoding, body, sum.spans);
      } catch (error) {
        pool.discard(staged);
        const full = error instanceof SpillLogFullError;
        if (!full) diag.error('agent-incidents gateway: the persistent queue cannot be written', error);
        return responder.refuse(response, unpersisted(sum.spans, full, (error as NodeJS.ErrnoException).code));
      }
    }
    pool.commit(staged, encoding, body, record);
    responder.accepted(response, encoding, sum.rejected);
  }

  /**
   * Whether the parts fit the trace and span bounds next to what the workers hold, and each part its worker's share
   * of `limits.maxHeldBytes` (a worker's heap limit is sized from that share: one trace-heavy worker must not reach
   * it), unless its worker holds nothing.
   */
  #fits(staged: readonly StagedShard[], spans: number, newTraces: number): boolean {
    const { limits } = this.state.parts.config;
    const { counters } = this.pool;
    const load = counters.total();
    if (load.traces + newTraces > limits.maxTraces || load.spans + spans > limits.maxSpans) return false;
    const share = limits.maxHeldBytes / this.pool.size;
    for (const { shard, part } of staged) {
      if (!part.ok) continue;
      const held = counters.read(shard);
      const holding = held.storeBytes + held.backlogBytes;
      // A part larger than the share waits for its worker to hold nothing, then goes in alone.
      if (holding > 0 && holding + part.decodedBytes > share) return false;
    }
    return true;
  }
}

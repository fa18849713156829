/**
 * The release loop: on every tick, and when flushing or closing, takes the traces that are ready out of the
 * store, judges them (`judge-trace.ts`) and hands them to the forwarder in batches; first it reads back what an
 * earlier process left in the persistent queue. Passes run one at a time, in order, so a trace's late spans go
 * out after its earlier ones (docs/gateway.md, "When a trace is folded").
 */
import { diag } from '@opentelemetry/api';
import type { DecodedBody } from './decode-body.js';
import { decodeBody } from './decode-body.js';
import type { ForwardedSpan } from './forwarded-span.js';
import type { GatewayState } from './gateway-state.js';
import type { TraceJudgeOptions } from './judge-trace.js';
import { judgeKeptTrace, judgeTrace } from './judge-trace.js';
import type { HeldRequest } from './spill-log.js';

/** Spans per upstream request: big enough to amortize HTTP, small enough to encode in a few milliseconds. */
const FORWARD_BATCH_SPANS = 256;
/** Longest stretch of folding before the event loop gets a turn. */
const SLICE_MILLIS = 5;
/** Share of `limits.maxHeldBytes` that traces kept for a correction may take. */
const KEPT_SHARE = 0.25;
/** Stored segments are read back while what is held stays under this share of `limits.maxHeldBytes`. */
const RECOVERY_SHARE = 0.5;

/** Releases a gateway's held traces upstream, one pass at a time. */
export class ReleaseLoop {
  /** The pass running or last run: each new pass is chained after it. */
  #folding: Promise<void> = Promise.resolve();
  #releasing = false;
  #tick: NodeJS.Timeout | undefined;

  constructor(
    private readonly state: GatewayState,
    private readonly judge: TraceJudgeOptions,
  ) {}

  /** Runs a pass every `hold.tickMillis`; a tick while a pass still runs is skipped, so passes never pile up. */
  start(): void {
    this.#tick = setInterval(() => {
      if (!this.#releasing) void this.release(false);
    }, this.state.parts.config.hold.tickMillis);
    this.#tick.unref();
  }

  /** Stops the ticks; passes asked for still run. */
  stop(): void {
    clearInterval(this.#tick);
  }

  /** Reads back what an earlier process left in the persistent queue, a segment at a time while there is room. */
  recover(): void {
    const { spill, store, metrics, config } = this.state.parts;
    const { limits } = config;
    if (!spill) return;
    const now = Date.now();
    while (
      spill.recoveryPending > 0 &&
      this.state.heldBytes() < limits.maxHeldBytes * RECOVERY_SHARE &&
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
  }

  /** Queues a pass that releases the traces that are ready (every held trace with `all`); resolves when it ran. */
  release(all: boolean): Promise<void> {
    this.#releasing = true;
    this.#folding = this.#folding
      .then(() => this.#pass(all))
      .catch((error: unknown) => {
        // The chain must survive anything: a rejected link would stop every later fold.
        diag.error('agent-incidents gateway: releasing held traces failed', error);
      })
      .finally(() => {
        this.#releasing = false;
      });
    return this.#folding;
  }

  /**
   * Releases held traces (every one with `all`, else those ready) and waits for the forwarder, a backlog's worth at
   * a time, until none is left to release or `until` (epoch ms) passes.
   */
  async drain(until: number, all = true): Promise<void> {
    const { store, forwarder } = this.state.parts;
    let released = true;
    do {
      const before = store.traces;
      await this.release(all);
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
  }

  /** One pass: traces kept for a correction whose senders cannot be back, then the ready ones, in batches. */
  async #pass(all: boolean): Promise<void> {
    const { state, judge } = this;
    const { store, forwarder, revisable, metrics, config } = state.parts;
    const { limits } = config;
    this.recover();
    // Folded traces go upstream together, in requests of up to FORWARD_BATCH_SPANS spans.
    let batch: ForwardedSpan[] = [];
    let records: (HeldRequest | undefined)[] = [];
    const now = Date.now();
    let slice = performance.now();
    // The forward backlog is bounded where it grows: no more is taken than it has room for; the rest stays held
    // (bounded by the hold limits, which refuse senders when full) until the backlog drains.
    const room = limits.maxForwardBacklogSpans - forwarder.backlogSpans;
    if (room <= 0) return;
    // Kept traces have their own share of memory, and give way first near any bound: losing one loses only a
    // possible correction.
    const pressed = state.memoryTight();
    state.shrinkKept(pressed ? 0 : limits.maxHeldBytes * KEPT_SHARE);
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
    const take = forwarder.backlogSpans === 0 ? limits.maxForwardBacklogSpans : room;
    for (const trace of store.takeReady(now, all, pressed, take)) {
      try {
        const judged = judgeTrace(trace.spans, judge, now, trace.partsMayStillCome, state.closing ? now : keepUntil);
        for (const run of judged.outcomes) {
          metrics.run(run.outcome, run.cause);
          // Counted from the first verdict, like runs_total: a revision does not count a run's figures again.
          if (run.lost) metrics.lost(run, run.lost);
        }
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
  }
}

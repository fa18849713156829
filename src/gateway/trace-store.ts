/**
 * Holds received spans by trace until the trace can be folded: its run span
 * arrived and no span came for the decision wait, or, for a run whose span
 * never comes (a crashed agent), until the longest hold. Bounded in traces,
 * spans and bytes; a request that does not fit is refused whole.
 */
import { recognise } from '../conventions/index.js';
import type { ConventionAdapter } from '../conventions/adapter.js';
import type { DecodedSpan } from '../otlp/otlp-json-spans.js';
import { spanViewOfDecoded } from '../otlp/otlp-json-spans.js';

/** Bounds of the store. */
export interface TraceStoreLimits {
  readonly maxTraces: number;
  readonly maxSpans: number;
  readonly maxHeldBytes: number;
}

/** Timing of releases. */
export interface TraceStoreTiming {
  readonly decisionWaitMillis: number;
  readonly maxHoldMillis: number;
}

interface HeldTrace {
  readonly spans: DecodedSpan[];
  bytes: number;
  readonly firstSeen: number;
  lastSeen: number;
  /** A run span (or a framework call at the root) arrived. */
  hasRun: boolean;
  /** Spans of a run (attempts, tools) arrived. */
  hasRunParts: boolean;
}

/** The spans held by trace, in arrival order. */
export class TraceStore {
  readonly #traces = new Map<string, HeldTrace>();
  readonly #limits: TraceStoreLimits;
  readonly #timing: TraceStoreTiming;
  readonly #adapters: readonly ConventionAdapter[] | undefined;
  #spans = 0;
  #bytes = 0;

  constructor(limits: TraceStoreLimits, timing: TraceStoreTiming, adapters?: readonly ConventionAdapter[]) {
    this.#limits = limits;
    this.#timing = timing;
    this.#adapters = adapters;
  }

  /** Traces held. */
  get traces(): number {
    return this.#traces.size;
  }

  /** Spans held. */
  get spans(): number {
    return this.#spans;
  }

  /** Approximate bytes held. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Whether `spans` (of `bytes` received bytes) fit; nothing is kept when they do not. */
  fits(spans: readonly DecodedSpan[], bytes: number): boolean {
    const newTraces = new Set(spans.map((s) => s.traceId).filter((id) => !this.#traces.has(id))).size;
    return (
      this.#traces.size + newTraces <= this.#limits.maxTraces &&
      this.#spans + spans.length <= this.#limits.maxSpans &&
      this.#bytes + bytes <= this.#limits.maxHeldBytes
    );
  }

  /** Holds `spans`; `bytes` (the request's size) is spread over them for the byte bound. */
  add(spans: readonly DecodedSpan[], bytes: number, now: number): void {
    const share = spans.length === 0 ? 0 : bytes / spans.length;
    for (const span of spans) {
      let held = this.#traces.get(span.traceId);
      if (!held) {
        held = { spans: [], bytes: 0, firstSeen: now, lastSeen: now, hasRun: false, hasRunParts: false };
        this.#traces.set(span.traceId, held);
      }
      held.spans.push(span);
      held.bytes += share;
      held.lastSeen = now;
      const role = recognise(spanViewOfDecoded(span), this.#adapters)?.role;
      if (role === 'run' || (role === 'call' && span.parentSpanId === undefined)) held.hasRun = true;
      else if (role === 'attempt' || role === 'tool' || role === 'call') held.hasRunParts = true;
      this.#spans += 1;
      this.#bytes += share;
    }
  }

  /**
   * Takes the traces ready at `now` (all of them with `all`): a trace with a
   * run span, or with no run at all, after the decision wait since its last
   * span; a trace with parts of a run but no run span, once no span came for
   * the longest hold.
   */
  takeReady(now: number, all = false): DecodedSpan[][] {
    const ready: DecodedSpan[][] = [];
    for (const [traceId, held] of this.#traces) {
      const quiet = now - held.lastSeen >= this.#timing.decisionWaitMillis;
      const waitingForRun = held.hasRunParts && !held.hasRun;
      // Measured from the last span: a long run that keeps sending is not a crashed one.
      const expired = now - held.lastSeen >= this.#timing.maxHoldMillis;
      if (!all && !(quiet && !waitingForRun) && !expired) continue;
      this.#traces.delete(traceId);
      this.#spans -= held.spans.length;
      this.#bytes -= held.bytes;
      ready.push(held.spans);
    }
    if (this.#traces.size === 0) {
      // Spread shares are fractional: settle rounding drift when empty.
      this.#spans = 0;
      this.#bytes = 0;
    }
    return ready;
  }
}

/**
 * Holds received spans by trace until the trace can be folded: no span came
 * for the decision wait and every part of a run (attempt, tool, framework
 * call) has its run span, or, for a run whose span never comes (a crashed
 * agent), no span came for the longest hold. Bounded in traces, spans and
 * bytes; a request that does not fit is refused whole.
 */
import { recognise } from '../conventions/index.js';
import type { ConventionAdapter } from '../conventions/adapter.js';
import type { DecodedSpan } from '../otlp/otlp-json-spans.js';

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
  /** Whether a part of a run waits for its run span; undefined until asked after the last span came. */
  waiting?: boolean;
}

const RUN_PARTS = new Set(['attempt', 'tool', 'call']);

/**
 * True when a part of a run (attempt, tool, framework call) has no run span
 * above it among `spans` and its ancestry ends at a span that has not arrived
 * (and was not judged already): that run span may still come. A part whose
 * ancestry ends at a root belongs to no run and waits for nothing.
 */
function waitsForRun(spans: readonly DecodedSpan[], adapters: readonly ConventionAdapter[] | undefined, judged: { has(id: string): boolean } | undefined): boolean {
  const byId = new Map<string, DecodedSpan>();
  for (const span of spans) byId.set(span.spanId, span);
  const roles = new Map<string, string | undefined>();
  const roleOf = (span: DecodedSpan): string | undefined => {
    if (!roles.has(span.spanId)) roles.set(span.spanId, recognise(span, adapters)?.role);
    return roles.get(span.spanId);
  };
  for (const span of spans) {
    if (!RUN_PARTS.has(roleOf(span) ?? '')) continue;
    let parentId = span.parentSpanId;
    for (let depth = 0; parentId !== undefined && depth < 64; depth += 1) {
      const parent = byId.get(parentId);
      if (!parent) {
        if (!judged?.has(parentId)) return true;
        break;
      }
      if (roleOf(parent) === 'run') break;
      parentId = parent.parentSpanId;
    }
  }
  return false;
}

/** The spans held by trace, in arrival order. */
export class TraceStore {
  readonly #traces = new Map<string, HeldTrace>();
  readonly #limits: TraceStoreLimits;
  readonly #timing: TraceStoreTiming;
  readonly #adapters: readonly ConventionAdapter[] | undefined;
  readonly #judged: { has(id: string): boolean } | undefined;
  #spans = 0;
  #bytes = 0;

  /**
   * @param judged span ids of runs already judged: a part under one of them waits for nothing
   */
  constructor(limits: TraceStoreLimits, timing: TraceStoreTiming, options: { readonly adapters?: readonly ConventionAdapter[]; readonly judged?: { has(id: string): boolean } } = {}) {
    this.#limits = limits;
    this.#timing = timing;
    this.#adapters = options.adapters;
    this.#judged = options.judged;
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
        held = { spans: [], bytes: 0, firstSeen: now, lastSeen: now };
        this.#traces.set(span.traceId, held);
      }
      held.spans.push(span);
      held.bytes += share;
      held.lastSeen = now;
      held.waiting = undefined;
      this.#spans += 1;
      this.#bytes += share;
    }
  }

  /**
   * Takes the traces ready at `now` (all of them with `all`): after the
   * decision wait since its last span, a trace none of whose run parts waits
   * for its run span; any trace once no span came for the longest hold.
   */
  takeReady(now: number, all = false): DecodedSpan[][] {
    const ready: DecodedSpan[][] = [];
    for (const [traceId, held] of this.#traces) {
      const quiet = now - held.lastSeen >= this.#timing.decisionWaitMillis;
      // Measured from the last span: a long run that keeps sending is not a crashed one.
      const expired = now - held.lastSeen >= this.#timing.maxHoldMillis;
      if (!all && !expired) {
        if (!quiet) continue;
        // Decided once per quiet spell: it changes only when a span arrives.
        held.waiting ??= waitsForRun(held.spans, this.#adapters, this.#judged);
        if (held.waiting) continue;
      }
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

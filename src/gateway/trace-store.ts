/**
 * Holds received spans by trace until the trace can be folded: no span came
 * for the decision wait and every part of a run (attempt, tool, framework
 * call) has its run span, or, for a run whose span never comes (a crashed
 * agent), no span came for the longest hold. Bounded in traces, spans and
 * estimated decoded bytes (the gateway adds what waits upstream); a request
 * that does not fit is refused whole.
 */
import { recognise } from '../conventions/index.js';
import type { ConventionAdapter } from '../conventions/adapter.js';
import type { DecodedSpan } from '../otlp/otlp-json-spans.js';
import { parentIsRemote } from '../otlp/otlp-json-spans.js';
import { decodedSpanBytes } from './decoded-size.js';
import type { HeldRequest } from './spill-log.js';

/** Bounds of the store. */
export interface TraceStoreLimits {
  readonly maxTraces: number;
  readonly maxSpans: number;
}

/** Timing of releases. */
export interface TraceStoreTiming {
  readonly decisionWaitMillis: number;
  readonly maxHoldMillis: number;
}

interface HeldTrace {
  readonly spans: DecodedSpan[];
  /** The stored request of each span (parallel to `spans`), when the gateway persists. */
  readonly records: (HeldRequest | undefined)[];
  readonly ids: Set<string>;
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
 * (and was not judged already) in the same process: that run span may still
 * come. A part whose ancestry ends at a root, or at a span whose parent the
 * sender's flags put in another process, belongs to no run here and waits for
 * nothing.
 */
function waitsForRun(
  spans: readonly DecodedSpan[],
  adapters: readonly ConventionAdapter[] | undefined,
  judged: { has(id: string): boolean } | undefined,
): boolean {
  const byId = new Map<string, DecodedSpan>();
  for (const span of spans) byId.set(span.spanId, span);
  const roles = new Map<string, string | undefined>();
  const roleOf = (span: DecodedSpan): string | undefined => {
    if (!roles.has(span.spanId)) roles.set(span.spanId, recognise(span, adapters)?.role);
    return roles.get(span.spanId);
  };
  for (const span of spans) {
    if (!RUN_PARTS.has(roleOf(span) ?? '')) continue;
    let child = span;
    for (let depth = 0; child.parentSpanId !== undefined && depth < 64; depth += 1) {
      const parent = byId.get(child.parentSpanId);
      if (!parent) {
        // A parent in another process (the sender's flags say so) is not a run span on its way here.
        if (!judged?.has(child.parentSpanId) && !parentIsRemote(child.flags)) return true;
        break;
      }
      if (roleOf(parent) === 'run') break;
      child = parent;
    }
  }
  return false;
}

/** A trace taken out of the store to be judged. */
export interface TakenTrace {
  readonly spans: DecodedSpan[];
  /** Parallel to `spans`. */
  readonly records: (HeldRequest | undefined)[];
  /** Taken before a sender refused with a retryable status can be back: a part of it may still come. */
  readonly partsMayStillCome: boolean;
}

/** What {@link TraceStore.add} did with a request's spans. */
export interface AddResult {
  readonly added: number;
  /** Spans already held under the same trace and span id: not held twice. */
  readonly duplicates: number;
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
  /** No trace is judged early before this (epoch ms): a refused sender is on its way back. */
  #notBefore = 0;
  #partsUntil = 0;

  /**
   * @param judged span ids of runs already judged: a part under one of them waits for nothing
   */
  constructor(
    limits: TraceStoreLimits,
    timing: TraceStoreTiming,
    options: { readonly adapters?: readonly ConventionAdapter[]; readonly judged?: { has(id: string): boolean } } = {},
  ) {
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

  /** Estimated bytes of the decoded spans held (src/gateway/decoded-size.ts). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Until when (epoch ms) a sender refused with a retryable status may bring spans of a held trace; 0 when none was. */
  get partsUntil(): number {
    return this.#partsUntil;
  }

  /** Whether spans of trace `traceId` are held. */
  holds(traceId: string): boolean {
    return this.#traces.has(traceId);
  }

  /** Traces among `spans` the store does not hold yet. */
  newTraces(spans: readonly DecodedSpan[]): number {
    const fresh = new Set<string>();
    for (const span of spans) if (!this.#traces.has(span.traceId)) fresh.add(span.traceId);
    return fresh.size;
  }

  /** Whether `spans` fit the trace and span bounds next to what is held; nothing is kept either way. */
  fits(spans: readonly DecodedSpan[]): boolean {
    return (
      this.#traces.size + this.newTraces(spans) <= this.#limits.maxTraces &&
      this.#spans + spans.length <= this.#limits.maxSpans
    );
  }

  /**
   * Holds `spans`, each with the stored request it came in (`record`). A span
   * whose trace already holds its span id is a duplicate (a sender's retry):
   * it is not held twice, and its share of the record is released.
   */
  add(spans: readonly DecodedSpan[], now: number, record?: HeldRequest): AddResult {
    let duplicates = 0;
    for (const span of spans) {
      let held = this.#traces.get(span.traceId);
      if (!held) {
        held = { spans: [], records: [], ids: new Set(), bytes: 0, firstSeen: now, lastSeen: now };
        this.#traces.set(span.traceId, held);
      }
      held.lastSeen = now;
      if (held.ids.has(span.spanId)) {
        duplicates += 1;
        record?.release();
        continue;
      }
      const bytes = decodedSpanBytes(span);
      held.ids.add(span.spanId);
      held.spans.push(span);
      held.records.push(record);
      held.bytes += bytes;
      held.waiting = undefined;
      this.#spans += 1;
      this.#bytes += bytes;
    }
    return { added: spans.length - duplicates, duplicates };
  }

  /**
   * Holds every trace until `millis` (epoch ms) at least: a request refused
   * with Retry-After may carry spans of a held trace, and judging the trace
   * before they are back would judge it without them.
   */
  holdUntil(millis: number): void {
    if (millis > this.#notBefore) this.#notBefore = millis;
    this.expectPartsUntil(millis);
  }

  /**
   * A sender refused with a retryable status may bring spans of a held trace
   * until `millis` (epoch ms): a trace taken before then is judged knowing a
   * part of it may still come (see {@link TakenTrace.partsMayStillCome}),
   * though it is not held for them (a refusal for memory must not hold).
   */
  expectPartsUntil(millis: number): void {
    if (millis > this.#partsUntil) this.#partsUntil = millis;
  }

  /**
   * Takes the traces ready at `now` (all of them with `all`): after the
   * decision wait since its last span (and past any {@link holdUntil}, unless
   * `pressed` by the bounds), a trace none of whose run parts waits for its
   * run span; any trace once no span came for the longest hold. At most
   * `budget` spans are taken (a trace that does not fit stays held for a
   * later pass), except that one trace larger than the whole budget is
   * taken alone when nothing else was.
   */
  takeReady(now: number, all = false, pressed = false, budget = Number.POSITIVE_INFINITY): TakenTrace[] {
    const ready: TakenTrace[] = [];
    // Taken while a refused sender may still bring spans (pressed by the bounds, or at shutdown): judged as such.
    const partsMayStillCome = now < this.#partsUntil;
    const refusedSendersAway = !pressed && now < this.#notBefore;
    let taken = 0;
    for (const [traceId, held] of this.#traces) {
      if (taken >= budget) break;
      const quiet = now - held.lastSeen >= this.#timing.decisionWaitMillis && !refusedSendersAway;
      // Measured from the last span: a long run that keeps sending is not a crashed one.
      const expired = now - held.lastSeen >= this.#timing.maxHoldMillis;
      if (!all && !expired) {
        if (!quiet) continue;
        // Decided once per quiet spell: it changes only when a span arrives.
        held.waiting ??= waitsForRun(held.spans, this.#adapters, this.#judged);
        if (held.waiting) continue;
      }
      if (taken + held.spans.length > budget && taken > 0) continue;
      taken += held.spans.length;
      this.#traces.delete(traceId);
      this.#spans -= held.spans.length;
      this.#bytes -= held.bytes;
      ready.push({ spans: held.spans, records: held.records, partsMayStillCome });
    }
    return ready;
  }
}

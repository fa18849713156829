/**
 * The spans of traces judged while a part of them could still come (a sender
 * the gateway refused with a retryable status could be back), kept so that a
 * part arriving after the verdict is folded with everything its run already
 * had and the run gets a corrected verdict (docs/gateway.md, "Late parts").
 * Bounded in time (until the refused senders can no longer be back) and in
 * bytes (the oldest trace goes first); what it holds counts toward
 * `limits.maxHeldBytes` like any held span.
 */
import type { AttributeRecord } from '../derive/incident-attributes.js';
import type { DecodedSpan } from '../otlp/otlp-json-spans.js';
import { decodedSpanBytes } from './decoded-size.js';

/** A judged trace kept for a correction. */
export interface KeptTrace {
  /** Every span of the trace judged so far (the run spans and parts the verdicts came from). */
  readonly spans: readonly DecodedSpan[];
  /** The verdict delivered for each run, by the span that carries it (`incident.*` keys as written); a correction replaces it. */
  readonly verdicts: Map<string, AttributeRecord>;
  /** Span ids of the runs judged in it (stand-ins' missing ids included): a late fold must judge them again, not skip them. */
  readonly runIds: readonly string[];
  /** Corrections already made, by carrier span id: the next one is numbered after them. */
  readonly revisions: Map<string, number>;
}

interface Entry extends KeptTrace {
  readonly bytes: number;
  readonly until: number;
}

/** Judged traces kept, by trace id, oldest first. */
export class RevisableTraces {
  readonly #traces = new Map<string, Entry>();
  #bytes = 0;
  /** Traces let go before their time to stay under the bound: a late part of one is forwarded uncorrected. */
  evicted = 0;

  /** Estimated bytes of the spans kept (src/gateway/decoded-size.ts). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Traces kept. */
  get size(): number {
    return this.#traces.size;
  }

  /** The kept trace `traceId`, taken out (a fold of its late part keeps it again with what it added). */
  take(traceId: string): KeptTrace | undefined {
    const entry = this.#traces.get(traceId);
    if (!entry) return undefined;
    this.#traces.delete(traceId);
    this.#bytes -= entry.bytes;
    return entry;
  }

  /** Keeps `trace` until `until` (epoch ms), replacing what was kept for it. */
  keep(traceId: string, trace: KeptTrace, until: number): void {
    this.take(traceId);
    let bytes = 0;
    for (const span of trace.spans) bytes += decodedSpanBytes(span);
    this.#traces.set(traceId, { ...trace, bytes, until });
    this.#bytes += bytes;
  }

  /**
   * Takes out the traces kept until `now` or earlier: they are judged a last
   * time. The caller asks only once no refused sender can be back, whenever
   * it refused them (a refusal after a trace was kept extends its wait).
   * A trace `ready` says no (a part of it is held, not yet judged) stays.
   */
  expire(now: number, ready: (traceId: string) => boolean = () => true): KeptTrace[] {
    const expired: KeptTrace[] = [];
    for (const [traceId, entry] of this.#traces) {
      // A part of the trace that came and waits to be judged is folded with it first (judgeTrace takes it from here).
      if (entry.until > now || !ready(traceId)) continue;
      this.take(traceId);
      expired.push(entry);
    }
    return expired;
  }

  /** Lets go of the oldest traces until at most `maxBytes` are kept; counted in {@link evicted}. */
  shrinkTo(maxBytes: number): void {
    for (const traceId of this.#traces.keys()) {
      if (this.#bytes <= maxBytes) return;
      this.take(traceId);
      this.evicted += 1;
    }
  }
}

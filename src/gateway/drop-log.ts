/**
 * Log lines for spans the gateway dropped, with their trace ids, rate-limited
 * so a refusing upstream cannot flood stderr: at most {@link LINES_PER_WINDOW}
 * lines per {@link WINDOW_MILLIS}; the next line after a quiet window says
 * how many were left out. Written through the OpenTelemetry diag logger (the
 * CLI writes it to stderr as JSON lines).
 */
import { diag } from '@opentelemetry/api';

/** Lines written per window. @default 10 */
const LINES_PER_WINDOW = 10;
/** The window. @default 10_000 */
const WINDOW_MILLIS = 10_000;
/** Trace ids written per line; the rest are counted. @default 20 */
const MAX_TRACE_IDS = 20;

/** One drop: why, how many spans, which traces. */
export interface DropRecord {
  readonly reason: string;
  readonly spans: number;
  readonly traceIds: readonly string[];
  /** What upstream said, or the last failure. */
  readonly detail: string;
}

/** A rate-limited writer of drop lines. */
export class DropLog {
  #windowStart = 0;
  #lines = 0;
  #suppressed = 0;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Writes `drop` as one structured line, unless this window's lines are spent (then counted for the next line). */
  write(drop: DropRecord): void {
    const now = this.#now();
    if (now - this.#windowStart >= WINDOW_MILLIS) {
      this.#windowStart = now;
      this.#lines = 0;
    }
    if (this.#lines >= LINES_PER_WINDOW) {
      this.#suppressed += 1;
      return;
    }
    this.#lines += 1;
    const unique = [...new Set(drop.traceIds)];
    const line = {
      event: 'spans_dropped',
      reason: drop.reason,
      spans: drop.spans,
      trace_ids: unique.slice(0, MAX_TRACE_IDS),
      ...(unique.length > MAX_TRACE_IDS ? { more_trace_ids: unique.length - MAX_TRACE_IDS } : {}),
      detail: drop.detail,
      ...(this.#suppressed > 0 ? { lines_suppressed_before: this.#suppressed } : {}),
    };
    this.#suppressed = 0;
    diag.error(`agent-incidents gateway: ${JSON.stringify(line)}`);
  }
}

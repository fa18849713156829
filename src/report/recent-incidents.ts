/**
 * The most recent incidents of a report, at most a limit of them, kept while
 * the input streams by: memory is bounded by the limit, not by the input.
 */
import type { ReportRun } from './report-model.js';

/** Orders incidents most recent first; ties by trace, then span id, so a report is reproducible. */
function mostRecentFirst(a: ReportRun, b: ReportRun): number {
  return (
    (b.startUnixMillis ?? 0) - (a.startUnixMillis ?? 0) ||
    (a.traceId < b.traceId ? -1 : a.traceId > b.traceId ? 1 : a.spanId < b.spanId ? -1 : 1)
  );
}

/** Keeps the `limit` most recent incidents offered. */
export class RecentIncidents {
  #kept: ReportRun[] = [];
  /** Start of the oldest incident that still made the cut at the last trim; older ones are not kept once full. */
  #cutoff = Number.NEGATIVE_INFINITY;
  #offered = 0;

  constructor(private readonly limit: number) {}

  /** True when an incident that started at `startUnixMillis` may be kept (so its timeline is worth building). */
  wants(startUnixMillis: number | undefined): boolean {
    return this.limit > 0 && (startUnixMillis ?? 0) >= this.#cutoff;
  }

  /** Counts an incident; keeps it when {@link wants} said so. */
  offer(run: ReportRun | undefined): void {
    this.#offered += 1;
    if (run === undefined) return;
    this.#kept.push(run);
    // Trimming at twice the limit sorts O(limit log limit) once per `limit` offers.
    if (this.#kept.length >= 2 * this.limit) this.#trim();
  }

  /** Takes back an incident offered earlier (its verdict was replaced), whether it was kept or not. */
  remove(traceId: string, spanId: string): void {
    this.#offered -= 1;
    const at = this.#kept.findIndex((run) => run.traceId === traceId && run.spanId === spanId);
    if (at !== -1) this.#kept.splice(at, 1);
  }

  #trim(): void {
    this.#kept.sort(mostRecentFirst);
    this.#kept.length = Math.min(this.#kept.length, this.limit);
    if (this.#kept.length === this.limit) this.#cutoff = this.#kept[this.limit - 1]?.startUnixMillis ?? 0;
  }

  /** The incidents kept, most recent first, and how many were offered but not kept. */
  result(): { incidents: ReportRun[]; omitted: number } {
    this.#trim();
    return { incidents: [...this.#kept], omitted: this.#offered - this.#kept.length };
  }
}

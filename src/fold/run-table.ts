/**
 * Open-run bookkeeping of the fold: which runs are open, which open spans
 * belong to them, and the facts gathered so far. Bounded in count: past the
 * bound the oldest run's facts are dropped (the edge still exports its spans).
 */
import type { OpenChild, RunState } from './open-run-state.js';

/**
 * Runs by span id in start order (oldest first), plus an index from every open
 * descendant span to its nearest run.
 */
export class RunTable<H> {
  readonly #runs = new Map<string, RunState<H>>();
  readonly #owners = new Map<string, RunState<H>>();
  #evicted = 0;

  /** Open runs. */
  get size(): number {
    return this.#runs.size;
  }

  /** Spans indexed (runs and their open descendants). */
  get indexedSpans(): number {
    return this.#owners.size;
  }

  /** Runs dropped by {@link evictOldest}. */
  get evicted(): number {
    return this.#evicted;
  }

  /** The run started by span `spanId`, if it is open. */
  run(spanId: string): RunState<H> | undefined {
    return this.#runs.get(spanId);
  }

  /** The run that span `spanId` belongs to (itself, for a run span). */
  owner(spanId: string | undefined): RunState<H> | undefined {
    return spanId === undefined ? undefined : this.#owners.get(spanId);
  }

  /** The oldest open run. */
  oldest(): RunState<H> | undefined {
    return this.#runs.values().next().value;
  }

  /** Every open run, oldest first (a snapshot, safe to finalize while iterating). */
  all(): RunState<H>[] {
    return [...this.#runs.values()];
  }

  /** Tracks a new run. */
  addRun(state: RunState<H>): void {
    this.#runs.set(state.spanId, state);
    this.#owners.set(state.spanId, state);
    state.parent?.open.set(state.spanId, {
      handle: state.handle,
      parentSpanId: state.parentSpanId,
      role: 'run',
      adapter: state.adapter,
      startMillis: state.startMillis,
      truncated: false,
    });
  }

  /** Tracks an open descendant span of `run`. */
  addSpan(run: RunState<H>, spanId: string, open: OpenChild<H>): void {
    run.open.set(spanId, open);
    this.#owners.set(spanId, run);
  }

  /** Stops tracking descendant span `spanId` of `run`; returns its entry. */
  removeSpan(run: RunState<H>, spanId: string): OpenChild<H> | undefined {
    const entry = run.open.get(spanId);
    run.open.delete(spanId);
    this.#owners.delete(spanId);
    return entry;
  }

  /** Stops tracking `run` and every span index entry that points at it. */
  removeRun(run: RunState<H>): void {
    this.#runs.delete(run.spanId);
    this.#owners.delete(run.spanId);
    for (const spanId of run.open.keys()) {
      if (this.#owners.get(spanId) === run) this.#owners.delete(spanId);
    }
    run.parent?.open.delete(run.spanId);
  }

  /** Drops the oldest run's facts to make room; counted in {@link evicted}. */
  evictOldest(): void {
    const oldest = this.oldest();
    if (!oldest) return;
    this.removeRun(oldest);
    this.#evicted += 1;
  }
}

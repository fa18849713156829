/**
 * Open-run bookkeeping for the SDK processor: which runs are open, which open
 * spans belong to them, and the facts gathered so far. Bounded in count; the
 * processor bounds it in age.
 */
import type { Span } from '@opentelemetry/sdk-trace-base';
import type { ConventionAdapter } from '../conventions/adapter.js';
import type { SpanRole } from '../conventions/span-view.js';
import type { AttemptRecord, Fact } from '../model/facts.js';

/** An open span of a run. */
export interface OpenSpan {
  readonly span: Span;
  readonly role: SpanRole;
  readonly adapter?: ConventionAdapter;
  readonly startMillis: number;
  /** Set when the processor ends the span because its run ended first. */
  truncated: boolean;
  /** An attempt inside another attempt, read as part of its parent (never re-recognised). */
  readonly demoted?: boolean;
}

/** What the processor knows about one open run. */
export interface RunState {
  readonly spanId: string;
  readonly span: Span;
  readonly adapter: ConventionAdapter;
  readonly parent?: RunState;
  readonly startMillis: number;
  readonly facts: Fact[];
  readonly attempts: AttemptRecord[];
  /** Open descendant spans (nested runs included), by span id. */
  readonly open: Map<string, OpenSpan>;
  /** Next sequence number for facts without one of their own. */
  nextSeq: number;
  progressUnknown: boolean;
  /** Attempts whose convention could not tell whether the provider made progress. */
  readonly progressUnknownAttempts: string[];
  openChildren: boolean;
  /**
   * Attempts cut off: still open when the run ended (the processor ended
   * them), or ended with no finish and no error (the convention says stopped).
   */
  readonly truncatedAttempts: string[];
  /** Set when the processor ends the run span itself (age limit, flush, shutdown). */
  neverEnded: boolean;
}

/**
 * Runs by span id in start order (oldest first), plus an index from every open
 * descendant span to its nearest run.
 */
export class RunTable {
  readonly #runs = new Map<string, RunState>();
  readonly #owners = new Map<string, RunState>();

  /** Open runs. */
  get size(): number {
    return this.#runs.size;
  }

  /** Spans indexed (runs and their open descendants). */
  get indexedSpans(): number {
    return this.#owners.size;
  }

  /** The run started by span `spanId`, if it is open. */
  run(spanId: string): RunState | undefined {
    return this.#runs.get(spanId);
  }

  /** The run that span `spanId` belongs to (itself, for a run span). */
  owner(spanId: string | undefined): RunState | undefined {
    return spanId === undefined ? undefined : this.#owners.get(spanId);
  }

  /** The oldest open run. */
  oldest(): RunState | undefined {
    return this.#runs.values().next().value;
  }

  /** Every open run, oldest first (a snapshot, safe to finalize while iterating). */
  all(): RunState[] {
    return [...this.#runs.values()];
  }

  /** Tracks a new run. */
  addRun(state: RunState): void {
    this.#runs.set(state.spanId, state);
    this.#owners.set(state.spanId, state);
    state.parent?.open.set(state.spanId, { span: state.span, role: 'run', adapter: state.adapter, startMillis: state.startMillis, truncated: false });
  }

  /** Tracks an open descendant span of `run`. */
  addSpan(run: RunState, spanId: string, open: OpenSpan): void {
    run.open.set(spanId, open);
    this.#owners.set(spanId, run);
  }

  /** Stops tracking descendant span `spanId` of `run`; returns its entry. */
  removeSpan(run: RunState, spanId: string): OpenSpan | undefined {
    const entry = run.open.get(spanId);
    run.open.delete(spanId);
    this.#owners.delete(spanId);
    return entry;
  }

  /** Stops tracking `run` and every span index entry that points at it. */
  removeRun(run: RunState): void {
    this.#runs.delete(run.spanId);
    this.#owners.delete(run.spanId);
    for (const spanId of run.open.keys()) {
      if (this.#owners.get(spanId) === run) this.#owners.delete(spanId);
    }
    run.parent?.open.delete(run.spanId);
  }
}

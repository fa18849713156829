/**
 * The run-folding core: every edge (the SDK processor, the runtime recorder,
 * the gateway and `report`) drives it with the spans it sees, and it yields
 * the facts and the verdict of each run. No I/O, no OpenTelemetry SDK types:
 * spans come in as plain views (docs/conventions.md says how each is read).
 *
 * Spans are placed by structure: a span belongs to the run of its nearest run
 * ancestor, a fact to the attempt its span descends from or names
 * (`agent_incidents.attempt.number`), and a span still open when its run ends
 * is cut off there. Timestamps only order facts within a run; no verdict
 * depends on comparing the clocks of two spans.
 */
import type { ConventionAdapter } from '../conventions/adapter.js';
import { recognise } from '../conventions/index.js';
import type { SpanRole, SpanView } from '../conventions/span-view.js';
import type { Policy } from '../derive/policy.js';
import { NATIVE_ATTR } from '../model/native-convention.js';
import type { RunFacts } from '../model/facts.js';
import type { AttemptVerdict, Incident } from '../model/incident.js';
import { addAttempt, attemptAbove, isAttempt, lateRole, underToolOrAttempt } from './attempt-placement.js';
import { collectChild } from './collect-child.js';
import type { LiveSpan, RunState } from './open-run-state.js';
import { startedRunState } from './open-run-state.js';
import { peekRun } from './peek-run.js';
import { runFactsOf } from './run-facts.js';
import { RunTable } from './run-table.js';
import { judgeEndedRun, judgeUntrackedRun } from './run-verdict.js';

/** Options of a {@link RunFolder}. */
export interface RunFolderOptions {
  /** The verdict rules' options. */
  readonly policy: Policy;
  /** Conventions to read, in order. */
  readonly adapters: readonly ConventionAdapter[];
  /** Runs tracked at once; past it the oldest run's facts are dropped. */
  readonly maxOpenRuns: number;
}

/** What is known of a span when it starts; its name and attributes are read from its handle. */
export interface SpanStart {
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly startMillis: number;
  /**
   * When the edge began tracking the span, on the edge's own clock (epoch
   * ms). A run's age is measured from it, not from the span's start time: a
   * span started in the past (a retroactive or replayed span) is not old on
   * arrival. @default startMillis
   */
  readonly trackedMillis?: number;
}

/** What ending a span gave: the verdict of a run, or of a failed attempt. */
export type Folded =
  | { readonly kind: 'run'; readonly incident: Incident; readonly facts: RunFacts; readonly tracked: boolean }
  | { readonly kind: 'attempt'; readonly verdict: AttemptVerdict };

/**
 * Folds the spans of many runs at once, as they start and end. `H` is the
 * edge's handle of a span: the fold reads its current name and attributes
 * (instrumentations may set them late) and hands it back when the edge must
 * end it.
 */
export class RunFolder<H extends LiveSpan> {
  readonly #options: RunFolderOptions;
  readonly #runs = new RunTable<H>();

  constructor(options: RunFolderOptions) {
    this.#options = options;
  }

  /** Runs tracked now. */
  get openRuns(): number {
    return this.#runs.size;
  }

  /** Spans indexed now (runs and their open descendants). */
  get trackedSpans(): number {
    return this.#runs.indexedSpans;
  }

  /** Runs whose facts were dropped because `maxOpenRuns` was reached. */
  get evictedRuns(): number {
    return this.#runs.evicted;
  }

  /** True when span `spanId` is the span of an open run. */
  isRun(spanId: string): boolean {
    return this.#runs.run(spanId) !== undefined;
  }

  /** True when span `spanId` is a tracked run or one of its open spans. */
  isTracked(spanId: string | undefined): boolean {
    return this.#runs.owner(spanId) !== undefined;
  }

  /** The open run tracked longest: its handle, start and when tracking began. */
  oldestRun():
    | { readonly handle: H; readonly spanId: string; readonly startMillis: number; readonly trackedMillis: number }
    | undefined {
    return this.#runs.oldest();
  }

  /** Every open run's handle, oldest first (a snapshot). */
  openRunHandles(): { readonly handle: H; readonly spanId: string }[] {
    return this.#runs.all().map((run) => ({ handle: run.handle, spanId: run.spanId }));
  }

  /** Handles of the runs tracked for longer than `maxAgeMillis` at `now`, oldest first. */
  runsOlderThan(now: number, maxAgeMillis: number): { readonly handle: H; readonly spanId: string }[] {
    return this.#runs
      .all()
      .filter((run) => now - run.trackedMillis > maxAgeMillis)
      .map((run) => ({ handle: run.handle, spanId: run.spanId }));
  }

  /**
   * A span started. A run span (or a framework's call span outside a run)
   * starts a run; a span under a tracked run is indexed as part of it; any
   * other span is ignored.
   */
  start(start: SpanStart, handle: H, options: { readonly policy?: Policy } = {}): void {
    const parent = this.#runs.owner(start.parentSpanId);
    const match = recognise(handle, this.#options.adapters);
    // A framework call is part of the run it sits in, unless a tool or an
    // attempt lies between them (a sub-agent called by a tool is a run of its own).
    const partOfRun = match?.role === 'call' && parent !== undefined && !underToolOrAttempt(parent, start.parentSpanId);
    if (match?.role === 'run' || (match?.role === 'call' && !partOfRun)) {
      this.#addRun(start, handle, match.adapter, parent, options.policy);
      return;
    }
    if (!parent) return;
    let role: SpanRole = match?.role ?? 'other';
    // An instrumentation's request span inside a runtime's own attempt span
    // (OpenInference under RunRecorder) is part of that attempt, not another one.
    const demoted = role === 'attempt' && isAttempt(parent, start.parentSpanId);
    if (demoted) role = 'other';
    this.#runs.addSpan(parent, start.spanId, {
      handle,
      parentSpanId: start.parentSpanId,
      role,
      adapter: match?.adapter,
      startMillis: start.startMillis,
      truncated: false,
      demoted,
    });
    if (role === 'attempt') {
      addAttempt(parent, start.spanId, start.startMillis, handle.attributes[NATIVE_ATTR.ATTEMPT_NUMBER]);
      parent.attemptParents.set(start.spanId, start.parentSpanId);
    }
  }

  /**
   * Starts tracking an untracked span as a run if it is recognised as one now
   * (OpenInference sets a span's kind after starting it); true when it is.
   */
  startLateRun(start: SpanStart, handle: H): boolean {
    if (this.#runs.owner(start.spanId)) return false;
    const match = recognise(handle, this.#options.adapters);
    if (match?.role !== 'run') return false;
    this.#addRun(start, handle, match.adapter, this.#runs.owner(start.parentSpanId));
    return true;
  }

  /**
   * The run of span `runSpanId` is ending: marks every span of it still open
   * as cut off at the run's end and returns their handles, newest first (a
   * grandchild before its parent). The edge ends each one, which comes back
   * through {@link end}. `isOpen` filters spans that ended without the fold
   * hearing of it.
   */
  cutOpenSpans(runSpanId: string, isOpen: (handle: H) => boolean = () => true): H[] {
    const run = this.#runs.run(runSpanId);
    if (!run || run.open.size === 0) return [];
    const open = [...run.open.entries()].sort((a, b) => b[1].startMillis - a[1].startMillis);
    const cut: H[] = [];
    for (const [spanId, entry] of open) {
      if (!isOpen(entry.handle)) continue;
      entry.truncated = true;
      // Only spans that carry facts leave the verdict short of them; structure spans do not.
      const late = entry.role === 'other' ? lateRole(run, entry, this.#options.adapters) : undefined;
      if (entry.role !== 'other' || late !== undefined) run.openChildren = true;
      // An attempt recognised only now is cut off too; end() registers it.
      if (entry.role === 'attempt' || late?.role === 'attempt') run.truncatedAttempts.push(spanId);
      const nested = entry.role === 'run' ? this.#runs.run(spanId) : undefined;
      // A sub-agent still open when its parent ends never ended (docs/attributes.md#missing-fact-markers).
      if (nested) nested.neverEnded = true;
      cut.push(entry.handle);
    }
    return cut;
  }

  /** The run span `runSpanId` never ended: the edge ends it now, and its verdict says so. */
  markNeverEnded(runSpanId: string): void {
    const run = this.#runs.run(runSpanId);
    if (run) run.neverEnded = true;
  }

  /** Part of run `runSpanId`'s facts were lost before they reached the fold: its verdict says so and fails closed. */
  markEvidenceTruncated(runSpanId: string): void {
    const run = this.#runs.run(runSpanId);
    if (run) run.evidenceTruncated = true;
  }

  /**
   * A nested run under span `spanId` was judged before this fold saw the span
   * (its spans arrived earlier): its side effects count for the run that owns
   * `spanId`, as if it had ended here. Call it right after starting `spanId`.
   */
  nestedRunJudged(
    spanId: string,
    sideEffects: 'read_only' | 'unsafe' | 'unknown',
    evidenceTruncated: boolean,
    timeMillis: number,
  ): void {
    const run = this.#runs.owner(spanId);
    if (!run) return;
    run.facts.push({
      kind: 'child_run_side_effects',
      sideEffects,
      timeMillis,
      seq: run.nextSeq++,
      attempt: attemptAbove(run, spanId),
    });
    if (evidenceTruncated) run.evidenceTruncated = true;
  }

  /** Forgets run `runSpanId` without a verdict (its span ended where the fold could not see it). */
  forget(runSpanId: string): void {
    const run = this.#runs.run(runSpanId);
    if (run) this.#runs.removeRun(run);
  }

  /**
   * A span ended, with everything it recorded. For a run span, call
   * {@link cutOpenSpans} and end those first. Returns the verdict written for
   * a run span, or for an attempt that failed; undefined otherwise. Total:
   * garbage in a span gives an `unknown` verdict, never an exception.
   */
  end(view: SpanView, handle: H): Folded | undefined {
    const run = this.#runs.run(view.spanId);
    if (run) {
      const incident = this.#finishRun(run, view);
      return { kind: 'run', incident, facts: runFactsOf(run), tracked: true };
    }
    const owner = this.#runs.owner(view.spanId);
    if (owner) {
      const verdict = collectChild(owner, view, this.#runs, this.#options);
      return verdict ? { kind: 'attempt', verdict } : undefined;
    }
    const match = recognise(handle, this.#options.adapters);
    if (match?.role === 'run' || match?.role === 'call') {
      const judged = judgeUntrackedRun(view, match.adapter, this.#options.policy);
      return { kind: 'run', incident: judged.incident, facts: judged.facts, tracked: false };
    }
    return undefined;
  }

  /**
   * The facts of open run `runSpanId` as they stand, without ending anything:
   * its open tools count as started and running, its open attempts as they
   * are so far, its open nested runs with their side effects so far. `viewOf`
   * gives the current view of an open span. Undefined for an unknown run.
   */
  peek(runSpanId: string, viewOf: (handle: H) => SpanView): RunFacts | undefined {
    const run = this.#runs.run(runSpanId);
    return run ? peekRun(run, viewOf, this.#runs, this.#options) : undefined;
  }

  #addRun(
    start: SpanStart,
    handle: H,
    adapter: ConventionAdapter,
    parent: RunState<H> | undefined,
    policy?: Policy,
  ): void {
    if (this.#runs.size >= this.#options.maxOpenRuns) this.#runs.evictOldest();
    this.#runs.addRun(
      startedRunState({
        spanId: start.spanId,
        handle,
        adapter,
        parent,
        parentSpanId: start.parentSpanId,
        startMillis: start.startMillis,
        trackedMillis: start.trackedMillis ?? start.startMillis,
        policy,
      }),
    );
  }

  #finishRun(run: RunState<H>, view: SpanView): Incident {
    try {
      return judgeEndedRun(run, view, this.#options);
    } finally {
      // Whatever happened above, the run's memory is released.
      this.#runs.removeRun(run);
    }
  }
}

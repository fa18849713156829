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
import type { ConventionAdapter, ExtractContext, Extraction } from '../conventions/adapter.js';
import { recognise } from '../conventions/index.js';
import type { SpanRole, SpanView } from '../conventions/span-view.js';
import { lostFacts, numberAttr } from '../conventions/span-view.js';
import { deriveAttemptVerdict, deriveIncident } from '../derive/derive-incident.js';
import type { Policy } from '../derive/policy.js';
import { attemptAt, isTerminal } from '../derive/timeline.js';
import { ATTR_INCIDENT_TRUNCATED } from '../model/attributes.js';
import type { AttemptRecord, Fact, FactDraft, RunFacts } from '../model/facts.js';
import type { AttemptVerdict, Incident } from '../model/incident.js';
import { NATIVE_ATTR } from '../model/native-convention.js';
import type { LiveSpan, OpenChild, RunState } from './run-state.js';
import { SEQ_BASE } from './run-state.js';
import { RunTable } from './run-table.js';
import { insertTries, triesToAdd, tryFacts } from './tries.js';

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
    const partOfRun =
      match?.role === 'call' && parent !== undefined && !this.#underToolOrAttempt(parent, start.parentSpanId);
    if (match?.role === 'run' || (match?.role === 'call' && !partOfRun)) {
      this.#addRun(start, handle, match.adapter, parent, options.policy);
      return;
    }
    if (!parent) return;
    let role: SpanRole = match?.role ?? 'other';
    // An instrumentation's request span inside a runtime's own attempt span
    // (OpenInference under RunRecorder) is part of that attempt, not another one.
    const demoted = role === 'attempt' && this.#isAttempt(parent, start.parentSpanId);
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
      const late = entry.role === 'other' ? this.#lateRole(run, entry) : undefined;
      if (entry.role !== 'other' || late !== undefined) run.openChildren = true;
      // An attempt recognised only now is cut off too; end() registers it.
      if (entry.role === 'attempt' || late?.role === 'attempt') run.truncatedAttempts.push(spanId);
      const nested = entry.role === 'run' ? this.#runs.run(spanId) : undefined;
      // A sub-agent still open inside a run that never ended never ended either.
      if (nested && run.neverEnded) nested.neverEnded = true;
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
      attempt: this.#attemptAbove(run, spanId),
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
    if (owner) return this.#collectChild(owner, view);
    const match = recognise(handle, this.#options.adapters);
    if (match?.role === 'run' || match?.role === 'call') {
      const judged = this.#untrackedRun(view, match.adapter);
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
    return run ? this.#peek(run, viewOf) : undefined;
  }

  #peek(run: RunState<H>, viewOf: (handle: H) => SpanView): RunFacts {
    const facts: Fact[] = [...run.facts];
    const attempts = [...run.attempts];
    let seq = run.nextSeq;
    const take = (extraction: Extraction): void => {
      for (const fact of extraction.facts)
        facts.push(Number.isFinite(fact.seq) ? fact : ({ ...fact, seq: seq++ } as Fact));
    };
    const progressUnknownAttempts = [...run.progressUnknownAttempts];
    let evidenceTruncated = run.evidenceTruncated || lostFacts(viewOf(run.handle), false);
    for (const [spanId, entry] of run.open) {
      if (entry.role === 'run') {
        const nested = this.#runs.run(spanId);
        if (!nested) continue;
        const peeked = this.#peek(nested, viewOf);
        const sideEffects = deriveIncident(peeked, nested.policy ?? this.#options.policy).sideEffects;
        if (sideEffects !== 'none')
          facts.push({
            kind: 'child_run_side_effects',
            sideEffects,
            timeMillis: entry.startMillis,
            seq: seq++,
            attempt: this.#attemptAbove(run, entry.parentSpanId),
          });
        if (peeked.evidenceTruncated) evidenceTruncated = true;
        continue;
      }
      const adapter = entry.adapter ?? this.#options.adapters[0];
      if (!adapter) continue;
      const view = viewOf(entry.handle);
      if (lostFacts(view, entry.role === 'attempt' || entry.role === 'tool')) evidenceTruncated = true;
      const attempt = entry.role === 'call' ? undefined : this.#attemptOf(run, view, entry.role);
      // An open tool is still running: read it as cut off now (started, not completed).
      const extraction = adapter.extract(view, entry.role, this.#context(run, attempt, entry.role === 'tool'));
      if (entry.role === 'attempt' && attempt !== undefined) {
        this.#addTries(
          run,
          attempts,
          attempt,
          view,
          extraction,
          (fact) => facts.push({ ...fact, seq: seq++ } as Fact),
          (key) => progressUnknownAttempts.push(key),
        );
      }
      take(extraction);
      if (extraction.progressUnknown && entry.role === 'attempt' && attempt !== undefined)
        progressUnknownAttempts.push(attempt);
    }
    const own = run.adapter.extract(viewOf(run.handle), 'run', this.#context(run, undefined, false));
    take(own);
    return {
      facts,
      attempts,
      evidenceTruncated,
      progressUnknown: run.progressUnknown || progressUnknownAttempts.length > run.progressUnknownAttempts.length,
      progressUnknownAttempts,
    };
  }

  #addRun(
    start: SpanStart,
    handle: H,
    adapter: ConventionAdapter,
    parent: RunState<H> | undefined,
    policy?: Policy,
  ): void {
    if (this.#runs.size >= this.#options.maxOpenRuns) this.#runs.evictOldest();
    this.#runs.addRun({
      spanId: start.spanId,
      handle,
      adapter,
      parent,
      parentSpanId: start.parentSpanId,
      startMillis: start.startMillis,
      trackedMillis: start.trackedMillis ?? start.startMillis,
      policy,
      facts: [],
      attempts: [],
      attemptParents: new Map(),
      open: new Map(),
      nextSeq: SEQ_BASE,
      progressUnknown: false,
      progressUnknownAttempts: [],
      openChildren: false,
      truncatedAttempts: [],
      neverEnded: false,
      evidenceTruncated: false,
    });
  }

  /** True when a tool or an attempt span lies between the span whose parent is `parentSpanId` and the span of `run`. */
  #underToolOrAttempt(run: RunState<H>, parentSpanId: string | undefined): boolean {
    let id = parentSpanId;
    for (let depth = 0; id !== undefined && id !== run.spanId && depth < 64; depth += 1) {
      const entry = run.open.get(id);
      if (!entry) return false;
      if (entry.role === 'tool' || entry.role === 'attempt') return true;
      id = entry.parentSpanId;
    }
    return false;
  }

  /** True when `spanId` is an attempt of `run`. */
  #isAttempt(run: RunState<H>, spanId: string | undefined): boolean {
    return spanId !== undefined && run.attempts.some((a) => a.key === spanId);
  }

  /**
   * The attempt or tool role of a span that had none at its start: some
   * instrumentations (OpenInference) set their attributes after starting it.
   */
  #lateRole(
    run: RunState<H>,
    entry: OpenChild<H>,
  ): { role: 'attempt' | 'tool'; adapter: ConventionAdapter } | undefined {
    if (entry.demoted) return undefined;
    const late = recognise(entry.handle, this.#options.adapters);
    if (!late || (late.role !== 'attempt' && late.role !== 'tool')) return undefined;
    if (late.role === 'attempt' && this.#isAttempt(run, entry.parentSpanId)) return undefined;
    return { role: late.role, adapter: late.adapter };
  }

  #context(run: RunState<H>, attempt: string | undefined, truncated: boolean): ExtractContext {
    return {
      attempt,
      truncated,
      trustedReadOnlyTools: (run.policy ?? this.#options.policy).trustedReadOnlyTools,
      attemptKeyOf: (number) => run.attempts.find((a) => a.number === number)?.key,
    };
  }

  /** The nearest attempt at or above span `spanId` within `run`, by structure. */
  #attemptAbove(run: RunState<H>, spanId: string | undefined): string | undefined {
    let id = spanId;
    for (let depth = 0; id !== undefined && id !== run.spanId && depth < 64; depth += 1) {
      if (this.#isAttempt(run, id)) return id;
      const entry = run.open.get(id);
      if (!entry) return undefined;
      const declared =
        entry.role === 'attempt' ? undefined : numberAttr(entry.handle.attributes, NATIVE_ATTR.ATTEMPT_NUMBER);
      const named = declared === undefined ? undefined : run.attempts.find((a) => a.number === declared)?.key;
      if (named !== undefined) return named;
      id = entry.parentSpanId;
    }
    return undefined;
  }

  /**
   * The attempt a descendant span belongs to: the attempt it descends from,
   * the one it names (`agent_incidents.attempt.number`), the one it links to,
   * or, for conventions that show none of these, the attempt running when it
   * started.
   */
  #attemptOf(run: RunState<H>, view: SpanView, role: SpanRole): string | undefined {
    if (role === 'attempt') return view.spanId;
    const above = this.#attemptAbove(run, view.parentSpanId);
    if (above !== undefined) return above;
    const declared = numberAttr(view.attributes, NATIVE_ATTR.ATTEMPT_NUMBER);
    const named = declared === undefined ? undefined : run.attempts.find((a) => a.number === declared)?.key;
    if (named !== undefined) return named;
    const linked = view.links.find((l) => this.#isAttempt(run, l.spanId));
    if (linked) return linked.spanId;
    return attemptAt(run.attempts, view.startMillis)?.key;
  }

  /**
   * The tries before the last one inside attempt span `key` (docs/conventions.md#retries-inside-one-span):
   * inserted into `attempts` as attempts of their own, their facts handed to
   * `emit`, each said to have unknown progress (the span shows only its last
   * try's). An attempt with a declared number is native: it has no tries.
   */
  #addTries(
    run: RunState<H>,
    attempts: AttemptRecord[],
    key: string,
    view: SpanView,
    extraction: Extraction,
    emit: (fact: FactDraft) => void,
    unsure: (key: string) => void,
  ): void {
    if (extraction.earlierTries === undefined && extraction.statedTries === undefined) return;
    if (numberAttr(view.attributes, NATIVE_ATTR.ATTEMPT_NUMBER) !== undefined) return;
    const tries = triesToAdd(
      extraction.earlierTries ?? [],
      extraction.statedTries,
      this.#sameCallBefore(run, attempts, key),
      view.startMillis,
    );
    const keys = insertTries(attempts, key, tries);
    const boundary = extraction.facts.find((f) => f.kind === 'side_effect_boundary' && f.attempt === key);
    for (const fact of tryFacts(tries, keys, boundary)) emit(fact);
    for (const k of keys) unsure(k);
  }

  /**
   * Attempt spans of the same call before attempt `key`: the attempts right
   * before it under the same parent span that did not finish (AI SDK 7's
   * `streamText` starts a span per try and leaves the failed ones open).
   */
  #sameCallBefore(run: RunState<H>, attempts: readonly AttemptRecord[], key: string): number {
    const at = attempts.findIndex((a) => a.key === key);
    const parent = run.attemptParents.get(key);
    let count = 0;
    for (let i = at - 1; i >= 0; i -= 1) {
      const before = (attempts[i] as AttemptRecord).key;
      if (!run.attemptParents.has(before) || run.attemptParents.get(before) !== parent) break;
      if (run.facts.some((f) => f.attempt === before && f.kind === 'attempt_finished')) break;
      count += 1;
    }
    return count;
  }

  #absorb(run: RunState<H>, extraction: Extraction, attempt?: string): void {
    for (const fact of extraction.facts) {
      // Adapters hand over fresh objects: number them in place rather than copy.
      if (!Number.isFinite(fact.seq)) (fact as { seq: number }).seq = run.nextSeq++;
      run.facts.push(fact);
    }
    if (extraction.progressUnknown) {
      run.progressUnknown = true;
      if (attempt !== undefined) run.progressUnknownAttempts.push(attempt);
    }
  }

  /** A run-level error read from a span's status counts only when no fact ended the run yet. */
  #absorbStatusError(run: RunState<H>, extraction: Extraction, timeMillis: number): void {
    const error = extraction.statusError;
    if (!error || run.facts.some(isTerminal)) return;
    const fact: Fact =
      error.kind === 'unknown'
        ? { kind: 'run_error', code: error.code, timeMillis, seq: run.nextSeq++ }
        : { kind: 'provider_error', error, timeMillis, seq: run.nextSeq++ };
    run.facts.push(fact);
  }

  #collectChild(run: RunState<H>, view: SpanView): Folded | undefined {
    const entry = this.#runs.removeSpan(run, view.spanId);
    let role = entry?.role ?? 'other';
    let adapter = entry?.adapter;
    const late = entry !== undefined && role === 'other' ? this.#lateRole(run, entry) : undefined;
    if (late && entry) {
      role = late.role;
      adapter = late.adapter;
      if (role === 'attempt') {
        addAttempt(run, view.spanId, entry.startMillis, undefined);
        run.attemptParents.set(view.spanId, entry.parentSpanId);
      }
    }
    // A span that lost events may have lost fact events, whatever its role.
    if (lostFacts(view, role === 'attempt' || role === 'tool')) run.evidenceTruncated = true;
    // Spans of no convention without events carry no facts: skip them.
    if (role === 'other' && view.events.length === 0) return undefined;
    adapter ??= this.#options.adapters[0];
    if (!adapter) return undefined;
    // Cut off by its run's end: here, or upstream (a recorder or a processor that
    // ended the span itself marked it), which reads the same.
    const cutUpstream = entry?.truncated !== true && view.attributes[ATTR_INCIDENT_TRUNCATED] === true;
    const truncated = entry?.truncated === true || cutUpstream;
    if (cutUpstream && role !== 'other') run.openChildren = true;
    const attempt = role === 'call' ? undefined : this.#attemptOf(run, view, role);
    const extraction = adapter.extract(view, role, this.#context(run, attempt, truncated));
    if (role === 'attempt' && attempt !== undefined) {
      this.#addTries(
        run,
        run.attempts,
        attempt,
        view,
        extraction,
        (fact) => run.facts.push({ ...fact, seq: run.nextSeq++ } as Fact),
        (key) => {
          run.progressUnknown = true;
          run.progressUnknownAttempts.push(key);
        },
      );
    }
    this.#absorb(run, extraction, role === 'attempt' ? attempt : undefined);
    if (
      role === 'attempt' &&
      attempt !== undefined &&
      (extraction.unfinished || cutUpstream) &&
      !run.truncatedAttempts.includes(attempt)
    ) {
      run.truncatedAttempts.push(attempt);
    }
    if (role === 'call') this.#absorbStatusError(run, extraction, view.endMillis ?? view.startMillis);
    if (
      role === 'attempt' &&
      run.facts.some((f) => f.attempt === view.spanId && (f.kind === 'provider_error' || f.kind === 'watchdog_fired'))
    ) {
      const verdict = deriveAttemptVerdict(runFactsOf(run), view.spanId, run.policy ?? this.#options.policy);
      if (verdict) return { kind: 'attempt', verdict };
    }
    return undefined;
  }

  #finishRun(run: RunState<H>, view: SpanView): Incident {
    try {
      if (lostFacts(view, false)) run.evidenceTruncated = true;
      if (view.attributes[ATTR_INCIDENT_TRUNCATED] === true) {
        // Ended by a processor or a recorder, not by its owner: a top-level run
        // never ended; a nested one was cut off when its parent ended.
        if (run.parent) run.parent.openChildren = true;
        if (!run.parent || neverEnded(run.parent)) run.neverEnded = true;
      }
      const extraction = run.adapter.extract(view, 'run', this.#context(run, undefined, false));
      this.#absorb(run, extraction);
      this.#absorbStatusError(run, extraction, view.endMillis ?? view.startMillis);
      const incident = deriveIncident(runFactsOf(run), run.policy ?? this.#options.policy);
      this.#passSideEffectsUp(run, incident, view.endMillis ?? view.startMillis);
      return incident;
    } finally {
      // Whatever happened above, the run's memory is released.
      this.#runs.removeRun(run);
    }
  }

  /**
   * A run whose facts were evicted (or that started before the fold saw it):
   * judged from what its own span shows, and the evidence is said to be cut off.
   */
  #untrackedRun(view: SpanView, adapter: ConventionAdapter): { incident: Incident; facts: RunFacts } {
    const extraction = adapter.extract(view, 'run', {
      truncated: false,
      trustedReadOnlyTools: this.#options.policy.trustedReadOnlyTools,
      attemptKeyOf: () => undefined,
    });
    const facts = extraction.facts.map((f, i) => (Number.isFinite(f.seq) ? f : { ...f, seq: SEQ_BASE + i }));
    const run: RunFacts = { facts, attempts: [], evidenceTruncated: true };
    return { incident: deriveIncident(run, this.#options.policy), facts: run };
  }

  /** A nested run's side effects become a fact of its parent, placed by structure (the tool or attempt it ran under). */
  #passSideEffectsUp(run: RunState<H>, incident: Incident, endMillis: number): void {
    const parent = run.parent;
    if (!parent || incident.sideEffects === 'none') return;
    parent.facts.push({
      kind: 'child_run_side_effects',
      sideEffects: incident.sideEffects,
      timeMillis: endMillis,
      seq: parent.nextSeq++,
      attempt: this.#attemptAbove(parent, run.parentSpanId),
    });
    // Facts lost in a nested run may have been side effects of the parent's too.
    if (run.evidenceTruncated) parent.evidenceTruncated = true;
  }
}

/** True when `run` never ended: the edge said so, or its span says it was ended for its owner (`incident.truncated`). */
function neverEnded<H extends LiveSpan>(run: RunState<H>): boolean {
  for (let at: RunState<H> | undefined = run, depth = 0; at !== undefined && depth < 64; at = at.parent, depth += 1) {
    if (at.neverEnded) return true;
    if (at.handle.attributes[ATTR_INCIDENT_TRUNCATED] !== true) return false;
    if (at.parent === undefined) return true;
  }
  return false;
}

/** The {@link RunFacts} of an open run, as they stand. */
function runFactsOf<H>(run: RunState<H>): RunFacts {
  return {
    facts: run.facts,
    attempts: run.attempts,
    neverEnded: run.neverEnded,
    openChildren: run.openChildren,
    truncatedAttempts: run.truncatedAttempts,
    progressUnknown: run.progressUnknown,
    progressUnknownAttempts: run.progressUnknownAttempts,
    evidenceTruncated: run.evidenceTruncated,
  };
}

/** Registers an attempt; without a declared number, attempts are numbered in start order. */
function addAttempt<H>(run: RunState<H>, key: string, startMillis: number, declared: unknown): void {
  if (typeof declared === 'number' && Number.isInteger(declared) && declared > 0) {
    run.attempts.push({ key, number: declared, startMillis });
    return;
  }
  // Usually the newest; an attempt recognised only at its end may have started before others.
  let at = run.attempts.length;
  while (at > 0 && (run.attempts[at - 1] as AttemptRecord).startMillis > startMillis) at -= 1;
  run.attempts.splice(at, 0, { key, number: at + 1, startMillis });
  for (let i = at + 1; i < run.attempts.length; i += 1) {
    const later = run.attempts[i] as AttemptRecord;
    run.attempts[i] = { key: later.key, number: i + 1, startMillis: later.startMillis };
  }
}

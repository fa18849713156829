/**
 * IncidentSpanProcessor: the only code that touches the OpenTelemetry SDK. It
 * tracks agent runs from `onStart`, reads facts from every span of a run as it
 * ends, writes the run's incident in the run span's `onEnding` (so every
 * processor's `onEnd`, whatever its position, sees it) and sanitizes every span.
 */
import type { Context, Counter } from '@opentelemetry/api';
import { diag, metrics, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ExtractContext, Extraction } from '../conventions/adapter.js';
import { recognise } from '../conventions/index.js';
import type { SpanView } from '../conventions/span-view.js';
import { deriveAttemptVerdict, deriveIncident } from '../derive/derive-incident.js';
import { attemptVerdictAttributes, incidentAttributes } from '../derive/incident-attributes.js';
import { attemptAt, isTerminal } from '../derive/timeline.js';
import * as K from '../model/attributes.js';
import type { AttemptRecord, Fact, RunFacts } from '../model/facts.js';
import type { Incident } from '../model/incident.js';
import { GEN_AI, NATIVE_ATTR } from '../model/native-convention.js';
import type { IncidentSpanProcessorOptions, ResolvedOptions } from './options.js';
import { resolveOptions } from './options.js';
import type { OpenSpan, RunState } from './run-table.js';
import { RunTable } from './run-table.js';
import type { Sanitizer } from '../sanitize/sanitizer.js';
import { createSanitizer } from '../sanitize/sanitizer.js';
import type { RedactionTally } from '../sanitize/scrubber.js';
import { createTally } from '../sanitize/scrubber.js';
import { sanitizeSpanInPlace } from './sanitize-span.js';
import { hrTimeToMillis, spanViewOf } from './span-view-of.js';

/** Counters of the processor's own behaviour, for tests and health checks. */
export interface IncidentProcessorStats {
  /** Runs currently tracked. */
  readonly openRuns: number;
  /** Spans currently indexed (runs and their open descendants). */
  readonly trackedSpans: number;
  /** Runs whose facts were dropped because `maxOpenRuns` was reached. */
  readonly evictedRuns: number;
  /** Run spans the processor ended itself (age limit, flush, shutdown). */
  readonly runsFinalizedOpen: number;
  /** Runs whose incident was written. */
  readonly runsFinished: number;
  /** Internal errors caught in hooks (each hook reports its first through `diag`). */
  readonly internalErrors: number;
}

// Facts read from spans carry no sequence of their own; place them after any
// recorder-assigned sequence at the same instant.
const SEQ_BASE = 1_000_000_000;

/**
 * A `SpanProcessor` that adds incident attributes (DESIGN §2) to agent run
 * spans and sanitizes every span. Register it with any tracer provider; put it
 * first so `shutdown` can finalize open runs before exporters shut down.
 *
 * @example
 * const provider = new NodeTracerProvider({
 *   spanProcessors: [new IncidentSpanProcessor(), new BatchSpanProcessor(new OTLPTraceExporter())],
 * });
 */
export class IncidentSpanProcessor implements SpanProcessor {
  readonly #options: ResolvedOptions;
  readonly #sanitizer: Sanitizer;
  #redactionCounter: Counter | undefined;
  readonly #runs = new RunTable();
  readonly #reported = new Set<string>();
  #counter: Counter | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #shutdown = false;
  #evictedRuns = 0;
  #runsFinalizedOpen = 0;
  #runsFinished = 0;
  #internalErrors = 0;

  /** Throws a `TypeError` naming the option when `options` is invalid. */
  constructor(options: IncidentSpanProcessorOptions = {}) {
    this.#options = resolveOptions(options);
    try {
      this.#sanitizer = createSanitizer(this.#options.sanitization);
    } catch (error) {
      throw new TypeError(`IncidentSpanProcessor: invalid option sanitization: ${(error as Error).message}`);
    }
    if (this.#sanitizer.mode === 'off') {
      diag.warn('IncidentSpanProcessor: sanitization is off; prompts, outputs, tool arguments and secrets are exported as recorded.');
    }
    if (this.#options.sweepIntervalMillis > 0) {
      this.#timer = setInterval(() => this.#fenced('sweep', () => this.#sweep(Date.now())), this.#options.sweepIntervalMillis);
      // The sweep must never keep a host process alive.
      this.#timer.unref?.();
    }
  }

  /** A snapshot of the processor's counters. */
  stats(): IncidentProcessorStats {
    return {
      openRuns: this.#runs.size,
      trackedSpans: this.#runs.indexedSpans,
      evictedRuns: this.#evictedRuns,
      runsFinalizedOpen: this.#runsFinalizedOpen,
      runsFinished: this.#runsFinished,
      internalErrors: this.#internalErrors,
    };
  }

  onStart(span: Span, parentContext: Context): void {
    if (this.#shutdown) return;
    try {
      this.#start(span, parentContext);
    } catch (error) {
      this.#report('onStart', error);
    }
  }

  onEnding(span: Span): void {
    if (!this.#shutdown) {
      try {
        this.#ending(span);
      } catch (error) {
        this.#report('onEnding', error);
      }
    }
    // Sanitization never stops, not even after shutdown: other processors may still export.
    if (this.#sanitizer.mode === 'off') return;
    try {
      const tally = createTally();
      sanitizeSpanInPlace(span, this.#sanitizer, tally);
      if (tally.changed > 0) {
        writeAttributes(span, { [K.ATTR_INCIDENT_REDACTIONS]: tally.changed });
        this.#countRedactions(tally);
      }
    } catch (error) {
      this.#report('sanitize', error);
    }
  }

  onEnd(_span: ReadableSpan): void {
    // Everything happens in onEnding, while the span can still be changed.
  }

  /** Finalizes every open run (they are exported as `incomplete`). */
  forceFlush(): Promise<void> {
    if (!this.#shutdown) this.#fenced('forceFlush', () => this.#finalizeAll());
    return Promise.resolve();
  }

  /** Finalizes every open run and stops the sweep timer; afterwards runs are no longer tracked, but spans are still sanitized. */
  shutdown(): Promise<void> {
    if (this.#shutdown) return Promise.resolve();
    this.#fenced('shutdown', () => this.#finalizeAll());
    this.#shutdown = true;
    if (this.#timer) clearInterval(this.#timer);
    return Promise.resolve();
  }

  #start(span: Span, parentContext: Context | undefined): void {
    const now = Date.now();
    const oldest = this.#runs.oldest();
    if (oldest && now - oldest.startMillis > this.#options.maxRunAgeMillis) this.#sweep(now);

    const spanId = span.spanContext().spanId;
    const parent = this.#runs.owner(span.parentSpanContext?.spanId) ?? this.#lateRun(span, parentContext);
    const match = recognise(span, this.#options.adapters);
    const startMillis = hrTimeToMillis(span.startTime);
    // A framework call is part of the run it sits in, unless a tool or an
    // attempt lies between them (a sub-agent called by a tool is a run of its own).
    const partOfRun = match?.role === 'call' && parent !== undefined && !this.#underToolOrAttempt(parent, span);
    if (match?.role === 'run' || (match?.role === 'call' && !partOfRun)) {
      this.#addRun(span, match.adapter, parent, startMillis);
      return;
    }
    if (!parent) return;
    let role = match?.role ?? 'other';
    // An instrumentation's request span inside a runtime's own attempt span
    // (OpenInference under RunRecorder) is part of that attempt, not another one.
    const demoted = role === 'attempt' && this.#insideAttempt(parent, span);
    if (demoted) role = 'other';
    const open: OpenSpan = { span, role, adapter: match?.adapter, startMillis, truncated: false, demoted };
    this.#runs.addSpan(parent, spanId, open);
    if (open.role === 'attempt') this.#addAttempt(parent, spanId, startMillis, span.attributes[NATIVE_ATTR.ATTEMPT_NUMBER]);
  }

  #addRun(span: Span, adapter: RunState['adapter'], parent: RunState | undefined, startMillis: number): RunState {
    if (this.#runs.size >= this.#options.maxOpenRuns) this.#evictOldest();
    const run: RunState = {
      spanId: span.spanContext().spanId,
      span,
      adapter,
      parent,
      startMillis,
      facts: [],
      attempts: [],
      open: new Map(),
      nextSeq: SEQ_BASE,
      progressUnknown: false,
      progressUnknownAttempts: [],
      openChildren: false,
      truncatedAttempts: [],
      neverEnded: false,
    };
    this.#runs.addRun(run);
    return run;
  }

  /**
   * The parent span as a run, when it had no role at its start but has one
   * now: OpenInference's tracer sets a span's kind after starting it.
   */
  #lateRun(span: Span, parentContext: Context | undefined): RunState | undefined {
    const parentId = span.parentSpanContext?.spanId;
    if (!parentContext || parentId === undefined || this.#runs.owner(parentId)) return undefined;
    const parentSpan = trace.getSpan(parentContext) as Span | undefined;
    if (!parentSpan || parentSpan.spanContext().spanId !== parentId || !('attributes' in parentSpan) || parentSpan.ended) return undefined;
    const match = recognise(parentSpan, this.#options.adapters);
    if (match?.role !== 'run') return undefined;
    const outer = this.#runs.owner(parentSpan.parentSpanContext?.spanId);
    return this.#addRun(parentSpan, match.adapter, outer, hrTimeToMillis(parentSpan.startTime));
  }

  /** True when a tool or an attempt span lies between `span` and the span of `run`. */
  #underToolOrAttempt(run: RunState, span: Span): boolean {
    let id = span.parentSpanContext?.spanId;
    for (let depth = 0; id !== undefined && id !== run.spanId && depth < 64; depth += 1) {
      const entry = run.open.get(id);
      if (!entry) return false;
      if (entry.role === 'tool' || entry.role === 'attempt') return true;
      id = entry.span.parentSpanContext?.spanId;
    }
    return false;
  }

  /**
   * The attempt or tool role of a span that had none at its start: some
   * instrumentations (OpenInference) set their attributes after starting it.
   */
  #lateRole(run: RunState, entry: OpenSpan): { role: 'attempt' | 'tool'; adapter: OpenSpan['adapter'] } | undefined {
    if (entry.demoted) return undefined;
    const late = recognise(entry.span, this.#options.adapters);
    if (!late || (late.role !== 'attempt' && late.role !== 'tool')) return undefined;
    if (late.role === 'attempt' && this.#insideAttempt(run, entry.span)) return undefined;
    return { role: late.role, adapter: late.adapter };
  }

  /** True when the span's parent is an attempt of `run`. */
  #insideAttempt(run: RunState, span: Span): boolean {
    const parentId = span.parentSpanContext?.spanId;
    return parentId !== undefined && run.attempts.some((a) => a.key === parentId);
  }

  /** Registers an attempt; without a declared number, attempts are numbered in start order. */
  #addAttempt(run: RunState, key: string, startMillis: number, declared: unknown): void {
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

  #ending(span: Span): void {
    const spanId = span.spanContext().spanId;
    const run = this.#runs.run(spanId);
    if (run) {
      this.#finishRun(run, span);
      return;
    }
    const owner = this.#runs.owner(spanId);
    if (owner) {
      this.#collectChild(owner, span, spanId);
      return;
    }
    const match = recognise(span, this.#options.adapters);
    if (match?.role === 'run' || match?.role === 'call') this.#finishUntrackedRun(span, match.adapter);
  }

  #context(run: RunState, attempt: string | undefined, truncated: boolean): ExtractContext {
    return {
      attempt,
      truncated,
      trustedReadOnlyTools: this.#options.policy.trustedReadOnlyTools,
      attemptKeyOf: (number) => run.attempts.find((a) => a.number === number)?.key,
    };
  }

  /** The attempt a descendant span belongs to: its parent attempt, a linked attempt, or the attempt running when it started. */
  #attemptOf(run: RunState, view: SpanView, role: OpenSpan['role']): string | undefined {
    if (role === 'attempt') return view.spanId;
    const isAttempt = (id: string | undefined) => id !== undefined && run.attempts.some((a) => a.key === id);
    if (isAttempt(view.parentSpanId)) return view.parentSpanId;
    const linked = view.links.find((l) => isAttempt(l.spanId));
    if (linked) return linked.spanId;
    return attemptAt(run.attempts, view.startMillis)?.key;
  }

  #absorb(run: RunState, extraction: Extraction, attempt?: string): void {
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
  #absorbStatusError(run: RunState, extraction: Extraction, timeMillis: number): void {
    const error = extraction.statusError;
    if (!error || run.facts.some(isTerminal)) return;
    const fact: Fact =
      error.kind === 'unknown'
        ? { kind: 'run_error', code: error.code, timeMillis, seq: run.nextSeq++ }
        : { kind: 'provider_error', error, timeMillis, seq: run.nextSeq++ };
    run.facts.push(fact);
  }

  #collectChild(run: RunState, span: Span, spanId: string): void {
    const entry = this.#runs.removeSpan(run, spanId);
    let role = entry?.role ?? 'other';
    let adapter = entry?.adapter;
    const late = entry !== undefined && role === 'other' ? this.#lateRole(run, entry) : undefined;
    if (late && entry) {
      role = late.role;
      adapter = late.adapter;
      if (role === 'attempt') this.#addAttempt(run, spanId, entry.startMillis, undefined);
    }
    // Spans of no convention without events carry no facts: skip the view.
    if (role === 'other' && span.events.length === 0) return;
    adapter ??= this.#options.adapters[0];
    if (!adapter) return;
    const view = spanViewOf(span);
    const attempt = role === 'call' ? undefined : this.#attemptOf(run, view, role);
    const extraction = adapter.extract(view, role, this.#context(run, attempt, entry?.truncated ?? false));
    this.#absorb(run, extraction, role === 'attempt' ? attempt : undefined);
    if (role === 'attempt' && extraction.unfinished && attempt !== undefined) run.truncatedAttempts.push(attempt);
    if (role === 'call') this.#absorbStatusError(run, extraction, view.endMillis ?? view.startMillis);
    if (role === 'attempt' && run.facts.some((f) => f.attempt === spanId && (f.kind === 'provider_error' || f.kind === 'watchdog_fired'))) {
      const verdict = deriveAttemptVerdict(this.#runFacts(run), spanId, this.#options.policy);
      if (verdict) writeAttributes(span, attemptVerdictAttributes(verdict));
    }
  }

  #runFacts(run: RunState): RunFacts {
    return {
      facts: run.facts,
      attempts: run.attempts,
      neverEnded: run.neverEnded,
      openChildren: run.openChildren,
      truncatedAttempts: run.truncatedAttempts,
      progressUnknown: run.progressUnknown,
      progressUnknownAttempts: run.progressUnknownAttempts,
    };
  }

  #finishRun(run: RunState, span: Span): void {
    try {
      this.#truncateOpenChildren(run, span);
      const view = spanViewOf(span);
      const extraction = run.adapter.extract(view, 'run', this.#context(run, undefined, false));
      this.#absorb(run, extraction);
      this.#absorbStatusError(run, extraction, view.endMillis ?? view.startMillis);
      const incident = deriveIncident(this.#runFacts(run), this.#options.policy);
      this.#writeIncident(span, incident);
      this.#passSideEffectsUp(run, incident, view.endMillis ?? view.startMillis);
    } finally {
      // Whatever happened above, the run's memory is released.
      this.#runs.removeRun(run);
    }
  }

  #finishUntrackedRun(span: Span, adapter: RunState['adapter']): void {
    // A run whose facts were evicted (or that started before this processor):
    // judge what its own span shows and say the evidence was cut off.
    const view = spanViewOf(span);
    const extraction = adapter.extract(view, 'run', {
      truncated: false,
      trustedReadOnlyTools: this.#options.policy.trustedReadOnlyTools,
      attemptKeyOf: () => undefined,
    });
    const facts = extraction.facts.map((f, i) => (Number.isFinite(f.seq) ? f : { ...f, seq: SEQ_BASE + i }));
    this.#writeIncident(span, deriveIncident({ facts, attempts: [], evidenceTruncated: true }, this.#options.policy));
  }

  #truncateOpenChildren(run: RunState, span: Span): void {
    if (run.open.size === 0) return;
    // Newest first, so a grandchild ends before its parent.
    const open = [...run.open.entries()].sort((a, b) => b[1].startMillis - a[1].startMillis);
    for (const [spanId, entry] of open) {
      if (entry.span.ended) continue;
      entry.truncated = true;
      // Only spans that carry facts leave the verdict short of them; structure spans do not.
      const late = entry.role === 'other' ? this.#lateRole(run, entry) : undefined;
      if (entry.role !== 'other' || late !== undefined) run.openChildren = true;
      // An attempt recognised only now is cut off too; #collectChild registers it as it ends below.
      if (late?.role === 'attempt') run.truncatedAttempts.push(spanId);
      if (entry.role === 'attempt') run.truncatedAttempts.push(spanId);
      const nested = entry.role === 'run' ? this.#runs.run(spanId) : undefined;
      if (nested && run.neverEnded) {
        // A sub-agent still open inside a run that never ended never ended either.
        nested.neverEnded = true;
        this.#runsFinalizedOpen += 1;
      }
      writeAttributes(entry.span, { [K.ATTR_INCIDENT_TRUNCATED]: true });
      // Re-entrant: this runs every processor's onEnding/onEnd for the child
      // now, so it is exported before its run, stamped at the run's end.
      entry.span.end(span.endTime);
    }
  }

  #writeIncident(span: Span, incident: Incident): void {
    writeAttributes(span, incidentAttributes(incident));
    const mutable = span as { status: { code: SpanStatusCode; message?: string } };
    if (incident.outcome === 'failed' || incident.outcome === 'incomplete') {
      if (span.status.code !== SpanStatusCode.ERROR) {
        mutable.status = { code: SpanStatusCode.ERROR, message: `${incident.cause}${incident.causeDetail ? ` (${incident.causeDetail})` : ''}` };
      }
      writeAttributes(span, { [K.ATTR_ERROR_TYPE]: incident.cause ?? 'unknown_interruption' });
    } else if (incident.outcome === 'cancelled') {
      // A user stop is a choice, not an error: it must not inflate error rates.
      if (span.status.code === SpanStatusCode.ERROR) mutable.status = { code: SpanStatusCode.UNSET };
      delete (span.attributes as Record<string, unknown>)[K.ATTR_ERROR_TYPE];
    }
    this.#runsFinished += 1;
    this.#countRun(span, incident);
  }

  #countRun(span: Span, incident: Incident): void {
    this.#counter ??= this.#meter().createCounter(K.METRIC_AGENT_RUNS, { description: 'Finished agent runs, by incident outcome and cause.', unit: '{run}' });
    const attributes: Record<string, string> = { [K.ATTR_INCIDENT_OUTCOME]: incident.outcome };
    if (incident.outcome !== 'success') {
      if (incident.cause) attributes[K.ATTR_INCIDENT_CAUSE] = incident.cause;
      if (incident.phase) attributes[K.ATTR_INCIDENT_PHASE] = incident.phase;
      if (incident.retrySafety) attributes[K.ATTR_INCIDENT_RETRY_SAFETY] = incident.retrySafety;
    }
    // The action is a closed list; the strategy name is left out, as the runtime names it.
    if (incident.recovery) attributes[K.ATTR_INCIDENT_RECOVERY_ACTION] = incident.recovery.action;
    const provider = span.attributes[GEN_AI.PROVIDER_NAME];
    if (typeof provider === 'string') {
      attributes[GEN_AI.PROVIDER_NAME] = this.#options.metricProviderNames.has(provider) ? provider : '_OTHER';
    }
    this.#counter.add(1, attributes);
  }

  #countRedactions(tally: RedactionTally): void {
    this.#redactionCounter ??= this.#meter().createCounter(K.METRIC_REDACTIONS, {
      description: 'Values removed or scrubbed from exported spans, by kind (never the values).',
      unit: '{redaction}',
    });
    for (const [kind, n] of tally.byKind) this.#redactionCounter.add(n, { [K.ATTR_REDACTION_KIND]: kind });
  }

  #meter() {
    return (this.#options.meterProvider ?? metrics.getMeterProvider()).getMeter('agent-incidents');
  }

  #passSideEffectsUp(run: RunState, incident: Incident, endMillis: number): void {
    const parent = run.parent;
    if (!parent || incident.sideEffects === 'none') return;
    parent.facts.push({
      kind: 'child_run_side_effects',
      sideEffects: incident.sideEffects,
      timeMillis: endMillis,
      seq: parent.nextSeq++,
      attempt: attemptAt(parent.attempts, endMillis)?.key,
    });
  }

  #finalizeOpen(run: RunState): void {
    if (run.span.ended) {
      // Ended without reaching our onEnding (registered after the fact): just forget it.
      this.#runs.removeRun(run);
      return;
    }
    run.neverEnded = true;
    this.#runsFinalizedOpen += 1;
    run.span.end();
  }

  #sweep(now: number): void {
    for (let run = this.#runs.oldest(); run && now - run.startMillis > this.#options.maxRunAgeMillis; run = this.#runs.oldest()) {
      this.#finalizeOpen(run);
    }
  }

  #finalizeAll(): void {
    // Oldest first: a parent run finalizes its still-open nested runs itself.
    for (const run of this.#runs.all()) {
      if (this.#runs.run(run.spanId)) this.#finalizeOpen(run);
    }
  }

  #evictOldest(): void {
    const oldest = this.#runs.oldest();
    if (!oldest) return;
    this.#runs.removeRun(oldest);
    this.#evictedRuns += 1;
    if (this.#evictedRuns === 1) {
      diag.warn(`IncidentSpanProcessor: maxOpenRuns (${this.#options.maxOpenRuns}) reached; dropping the facts of the oldest runs (their spans are still exported). Further evictions are counted, not logged.`);
    }
  }

  #fenced(hook: string, body: () => unknown): void {
    try {
      body();
    } catch (error) {
      this.#report(hook, error);
    }
  }

  /** Counts an internal error; logs the first of each hook through diag. */
  #report(hook: string, error: unknown): void {
    this.#internalErrors += 1;
    if (!this.#reported.has(hook)) {
      this.#reported.add(hook);
      diag.error(`IncidentSpanProcessor: internal error in ${hook}; the span is passed on unchanged. Further errors in ${hook} are counted, not logged.`, error);
    }
  }
}

/**
 * Writes attributes straight into the ending span. Incident keys must survive
 * the span's attribute count limit (new keys past it are silently dropped by
 * `setAttribute`), so they bypass it; they are few and bounded.
 */
function writeAttributes(span: Span, attributes: Record<string, unknown>): void {
  Object.assign(span.attributes as Record<string, unknown>, attributes);
}

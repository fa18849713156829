// Over 300 lines: one class, the SDK's span processor contract (start, ending, end, flush, shutdown) with
// the fencing each hook needs, kept together so that no hook's error handling drifts from the others'.
/**
 * IncidentSpanProcessor: the SDK edge of the fold. It hands every span it sees
 * start and end to the run-folding core (src/fold/), writes the verdict the
 * core gives on the run span in its `onEnding` (so every processor's `onEnd`,
 * whatever its position, sees it), ends the spans of a run still open when the
 * run ends, and sanitizes every span.
 */
import type { Context, SpanStatusCode } from '@opentelemetry/api';
import { diag, metrics, trace } from '@opentelemetry/api';
import { attemptVerdictAttributes, incidentAttributes, runSpanStatus } from '../derive/incident-attributes.js';
import { recordedSpanOf, recordingStarting } from '../fold/recorded-spans.js';
import type { Folded, SpanStart } from '../fold/run-folder.js';
import { RunFolder } from '../fold/run-folder.js';
import * as K from '../model/attributes.js';
import type { Incident } from '../model/incident.js';
import { GEN_AI } from '../model/native-convention.js';
import type { IncidentSpanProcessorOptions, ResolvedOptions } from './options.js';
import { resolveOptions } from './options.js';
import type { Sanitizer } from '../sanitize/sanitizer.js';
import { createSanitizer, sanitizeAttributeMap } from '../sanitize/sanitizer.js';
import type { RedactionTally } from '../sanitize/scrubber.js';
import { createTally } from '../sanitize/scrubber.js';
import type { SanitizableSpan } from '../sanitize/sanitize-span.js';
import { redactSpanInPlace, sanitizeSpanInPlace } from '../sanitize/sanitize-span.js';
import { AdoptedRuns } from './adopted-runs.js';
import type { IncidentProcessorStats } from './processor-stats.js';
import { RunCounters } from './run-counters.js';
import type { SdkReadableSpan, SdkSpan, SdkSpanProcessor } from './sdk-span.js';
import type { WrittenAttributes } from './written-attributes.js';
import { writeAttributes } from './written-attributes.js';
import { hrTimeToMillis, spanViewOf } from './span-view-of.js';

/**
 * A `SpanProcessor` that adds incident attributes (docs/attributes.md) to agent run
 * spans and sanitizes every span. Register it with any tracer provider; put it
 * first so `shutdown` can finalize open runs before exporters shut down. It
 * sanitizes in its `onEnding`: what a processor after it adds in its own
 * `onEnding` is not sanitized (docs/sanitization.md, section 7).
 *
 * @example
 * // OpenTelemetry JS 3 (2.x: `new NodeTracerProvider(…)` and `new BatchSpanProcessor(exporter)`)
 * const sdk = new NodeSDK({
 *   spanProcessors: [new IncidentSpanProcessor(), new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
 * });
 */
export class IncidentSpanProcessor implements SdkSpanProcessor {
  readonly #options: ResolvedOptions;
  readonly #sanitizer: Sanitizer;
  readonly #folder: RunFolder<SdkSpan>;
  readonly #adopted: AdoptedRuns;
  readonly #reported = new Set<string>();
  readonly #counters = new RunCounters(() =>
    (this.#options.meterProvider ?? metrics.getMeterProvider()).getMeter('agent-incidents'),
  );
  #timer: ReturnType<typeof setInterval> | undefined;
  #shutdown = false;
  #runsFinalizedOpen = 0;
  /** A never-ended run is being ended: its open nested runs never ended either. */
  #finalizing = false;
  /** Whether the SDK calls `onEnding` (set at its first call); until then `onEnd` does its work. */
  #sdkCallsOnEnding = false;
  #runsFinished = 0;
  #internalErrors = 0;
  /** One tally, emptied before each span: sanitization never re-enters, and a Map per span was measurable garbage. */
  readonly #tally: RedactionTally = createTally();

  /** Throws a `TypeError` naming the option when `options` is invalid. */
  constructor(options: IncidentSpanProcessorOptions = {}) {
    this.#options = resolveOptions(options);
    try {
      this.#sanitizer = createSanitizer(this.#options.sanitization);
    } catch (error) {
      throw new TypeError(`IncidentSpanProcessor: invalid option sanitization: ${(error as Error).message}`);
    }
    this.#folder = new RunFolder<SdkSpan>({
      policy: this.#options.policy,
      adapters: this.#options.adapters,
      maxOpenRuns: this.#options.maxOpenRuns,
    });
    this.#adopted = new AdoptedRuns(this.#options.policy, this.#options.adapters);
    if (this.#sanitizer.mode === 'off') {
      diag.warn(
        'IncidentSpanProcessor: sanitization is off; prompts, outputs, tool arguments and secrets are exported as recorded.',
      );
    }
    if (this.#options.sweepIntervalMillis > 0) {
      this.#timer = setInterval(
        () => this.#fenced('sweep', () => this.#sweep(Date.now())),
        this.#options.sweepIntervalMillis,
      );
      // The sweep must never keep a host process alive.
      this.#timer.unref?.();
    }
  }

  /** A snapshot of the processor's counters. */
  stats(): IncidentProcessorStats {
    return {
      openRuns: this.#folder.openRuns + this.#adopted.size,
      trackedSpans: this.#folder.trackedSpans,
      evictedRuns: this.#evictedRuns(),
      runsFinalizedOpen: this.#runsFinalizedOpen,
      runsFinished: this.#runsFinished,
      internalErrors: this.#internalErrors,
      runsAdopted: this.#adopted.adopted,
      runsGivenBack: this.#adopted.givenBack,
    };
  }

  /** Tracks the span in its run (a run span starts a run); never throws. */
  onStart(span: SdkSpan, parentContext: Context): void {
    if (this.#shutdown) return;
    try {
      this.#start(span, parentContext);
    } catch (error) {
      this.#report('onStart', error);
    }
  }

  /** Folds the ending span, writes its run's verdict when it is a run span, and sanitizes it; never throws. */
  onEnding(span: SdkSpan): void {
    this.#sdkCallsOnEnding = true;
    this.#onEnding(span);
  }

  #onEnding(span: SdkSpan): void {
    let written: WrittenAttributes | undefined;
    if (!this.#shutdown) {
      try {
        written = this.#ending(span);
      } catch (error) {
        this.#report('onEnding', error);
      }
    }
    // Sanitization never stops, not even after shutdown: other processors may still export.
    if (this.#sanitizer.mode === 'off') {
      if (written) writeAttributes(span, written.set, written.remove);
      return;
    }
    try {
      const tally = this.#tally;
      tally.changed = 0;
      tally.byKind.clear();
      sanitizeSpanInPlace(span as unknown as SanitizableSpan, this.#sanitizer, tally);
      // The verdict's attributes go through the same rules, on their own: the
      // span's map is then copied once, with them, rather than once to add them
      // and once more to sanitize it all.
      const set = written ? sanitizeAttributeMap(written.set, this.#sanitizer, tally) : undefined;
      if (tally.changed > 0) {
        writeAttributes(span, { ...set, [K.ATTR_INCIDENT_REDACTIONS]: tally.changed }, written?.remove);
        this.#counters.redactions(tally);
      } else if (written && set) writeAttributes(span, set, written.remove);
    } catch (error) {
      this.#report('sanitize', error);
      // Fail closed: nothing of a span that could not be sanitized leaves as it was.
      try {
        redactSpanInPlace(span as unknown as SanitizableSpan, this.#tally);
      } catch {
        // Nothing more can be done with this span.
      }
      // The verdict itself is closed values: write it even so.
      if (written) writeAttributes(span, written.set, written.remove);
    }
  }

  /**
   * Everything happens in `onEnding`, while the span can still be changed. An
   * SDK without that hook (sdk-trace-base before 2.3) calls only `onEnd`: the
   * processor then does the same work here, on the ended span's own fields,
   * so processors registered after it still see the verdict and the
   * sanitized span. Detected per processor, at the first span that ends.
   */
  onEnd(span: SdkReadableSpan): void {
    if (this.#sdkCallsOnEnding) return;
    this.#onEnding(span as SdkSpan);
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

  #start(span: SdkSpan, parentContext: Context | undefined): void {
    const now = Date.now();
    if (now - this.#oldestTrackedMillis() > this.#options.maxRunAgeMillis) this.#sweep(now);
    const evicted = this.#evictedRuns();
    const parentSpanId = span.parentSpanContext?.spanId;
    const start: SpanStart = {
      spanId: span.spanContext().spanId,
      parentSpanId,
      startMillis: hrTimeToMillis(span.startTime),
      trackedMillis: now,
    };
    // Fold once: a run a recorder folds is taken from its fold, as long as it can be (./adopted-runs.ts).
    const recording = recordingStarting();
    const adoptedParent = this.#adopted.runOf(parentSpanId);
    if (adoptedParent) {
      if (this.#adopted.join(adoptedParent, span, start, recording)) return;
      this.#adopted.giveBack(adoptedParent, this.#folder);
    } else {
      if (parentSpanId !== undefined && !this.#folder.isTracked(parentSpanId))
        this.#lateRun(parentSpanId, parentContext);
      if (recording !== undefined && !this.#folder.isTracked(parentSpanId) && this.#adopted.adoptable(recording)) {
        // Adopted runs count against maxOpenRuns like the others; the oldest adopted run makes room first.
        if (this.#folder.openRuns + this.#adopted.size >= this.#options.maxOpenRuns) this.#adopted.evictOldest();
        if (this.#folder.openRuns + this.#adopted.size < this.#options.maxOpenRuns) {
          this.#adopted.adopt(span, start, recording);
          this.#warnOnFirstEviction(evicted);
          return;
        }
      }
    }
    const runs = this.#folder.openRuns;
    this.#folder.start(start, span);
    if (this.#folder.openRuns > runs && this.#folder.openRuns + this.#adopted.size > this.#options.maxOpenRuns)
      this.#adopted.evictOldest();
    this.#warnOnFirstEviction(evicted);
  }

  /** Runs whose facts were dropped to stay within maxOpenRuns, folded here or adopted. */
  #evictedRuns(): number {
    return this.#folder.evictedRuns + this.#adopted.evicted;
  }

  #warnOnFirstEviction(evictedBefore: number): void {
    if (evictedBefore > 0 || this.#evictedRuns() === 0) return;
    diag.warn(
      `IncidentSpanProcessor: maxOpenRuns (${this.#options.maxOpenRuns}) reached; dropping the facts of the oldest runs (their spans are still exported). Further evictions are counted, not logged.`,
    );
  }

  /** When the run tracked longest began to be tracked, adopted or not (infinity with none). */
  #oldestTrackedMillis(): number {
    return Math.min(
      this.#folder.oldestRun()?.trackedMillis ?? Infinity,
      this.#adopted.oldest()?.trackedMillis ?? Infinity,
    );
  }

  /**
   * The parent span as a run, when it had no role at its start but has one
   * now: OpenInference's tracer sets a span's kind after starting it.
   */
  #lateRun(parentSpanId: string, parentContext: Context | undefined): void {
    if (!parentContext) return;
    const parent = trace.getSpan(parentContext) as SdkSpan | undefined;
    if (!parent || parent.spanContext().spanId !== parentSpanId || !('attributes' in parent) || parent.ended) return;
    this.#folder.startLateRun(
      {
        spanId: parentSpanId,
        parentSpanId: parent.parentSpanContext?.spanId,
        startMillis: hrTimeToMillis(parent.startTime),
      },
      parent,
    );
  }

  /** Folds the ending span; returns the attributes its verdict writes, if any (onEnding writes them after sanitizing). */
  #ending(span: SdkSpan): WrittenAttributes | undefined {
    const spanId = span.spanContext().spanId;
    const adopted = this.#adopted.runOf(spanId);
    if (adopted) {
      const recorded = recordedSpanOf(span);
      if (this.#adopted.end(adopted, span, spanId, recorded)) return this.#written(span, recorded?.folded);
      this.#adopted.giveBack(adopted, this.#folder);
    }
    if (this.#folder.isRun(spanId)) this.#cutOpenSpans(spanId, span);
    return this.#written(span, this.#folder.end(spanViewOf(span), span));
  }

  /** The attributes a span's fold result writes: a run's incident, a failed attempt's verdict. */
  #written(span: SdkSpan, folded: Folded | undefined): WrittenAttributes | undefined {
    if (folded?.kind === 'run') return this.#writeIncident(span, folded.incident);
    if (folded?.kind === 'attempt') return { set: attemptVerdictAttributes(folded.verdict) };
    return undefined;
  }

  /**
   * Ends the spans of the run still open, at the run's end, marked
   * `incident.truncated`: re-entrant, each goes through every processor's
   * onEnding and onEnd now, so it is exported before its run.
   */
  #cutOpenSpans(runSpanId: string, runSpan: SdkSpan): void {
    for (const open of this.#folder.cutOpenSpans(runSpanId, (s) => !s.ended)) {
      // A sub-agent still open inside a run that never ended never ended either.
      if (this.#finalizing && this.#folder.isRun(open.spanContext().spanId)) this.#runsFinalizedOpen += 1;
      writeAttributes(open, { [K.ATTR_INCIDENT_TRUNCATED]: true });
      open.end(runSpan.endTime);
    }
  }

  /** Applies the run's status and counts the run; returns its incident attributes (and `error.type` when the span has none). */
  #writeIncident(span: SdkSpan, incident: Incident): WrittenAttributes {
    const set = incidentAttributes(incident);
    const change = runSpanStatus(incident, { code: span.status.code, errorType: span.attributes[K.ATTR_ERROR_TYPE] });
    if (change.status)
      (span as { status: { code: SpanStatusCode; message?: string } }).status = change.status as {
        code: SpanStatusCode;
        message?: string;
      };
    if (change.errorType !== undefined) set[K.ATTR_ERROR_TYPE] = change.errorType;
    this.#runsFinished += 1;
    this.#counters.run(incident, span.attributes[GEN_AI.PROVIDER_NAME], this.#options.metricProviderNames);
    return { set };
  }

  /** Ends a run span that never ended, as never ended: `incident.truncated` says the processor ended it, not its owner. */
  #finalizeOpen(span: SdkSpan, spanId: string): void {
    if (span.ended) {
      // Ended without reaching our onEnding (registered after the fact): just forget it.
      this.#folder.forget(spanId);
      return;
    }
    this.#folder.markNeverEnded(spanId);
    this.#runsFinalizedOpen += 1;
    writeAttributes(span, { [K.ATTR_INCIDENT_TRUNCATED]: true });
    this.#finalizing = true;
    try {
      span.end();
    } finally {
      this.#finalizing = false;
    }
  }

  #sweep(now: number): void {
    for (const run of this.#adopted.all()) {
      if (now - run.trackedMillis > this.#options.maxRunAgeMillis) this.#adopted.giveBack(run, this.#folder);
    }
    for (const { handle, spanId } of this.#folder.runsOlderThan(now, this.#options.maxRunAgeMillis)) {
      if (this.#folder.isRun(spanId)) this.#finalizeOpen(handle, spanId);
    }
  }

  #finalizeAll(): void {
    // The processor ends these runs itself, so it folds them itself.
    for (const run of this.#adopted.all()) this.#adopted.giveBack(run, this.#folder);
    // Oldest first: a parent run finalizes its still-open nested runs itself.
    for (const { handle, spanId } of this.#folder.openRunHandles()) {
      if (this.#folder.isRun(spanId)) this.#finalizeOpen(handle, spanId);
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
      diag.error(
        `IncidentSpanProcessor: internal error in ${hook}; the span is passed on unchanged. Further errors in ${hook} are counted, not logged.`,
        error,
      );
    }
  }
}

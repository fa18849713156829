/**
 * Fold once: the runs the processor takes from a `RunRecorder`'s fold instead
 * of folding the same spans again (docs/attributes.md#fold-once). A run is
 * adopted when it starts, if a recorder records its span with the policy and
 * conventions the processor folds with, and outside any run the processor
 * tracks. Each span of it must then be one the recorder owns and folded, and
 * what the processor sees of it when it ends must be the view the recorder
 * folded (name, status, attributes, events, links, dropped counts). Anything
 * else — a span the recorder did not record (an instrumentation's span under
 * an attempt), an adopted or changed span, a run ended by the processor's own
 * sweep — gives the run back to the processor's fold: every span seen so far is
 * replayed into it, in order, and the run goes on as any other.
 */
import type { ConventionAdapter } from '../conventions/adapter.js';
import type { AttributeView, SpanView } from '../conventions/span-view.js';
import type { Policy } from '../derive/policy.js';
import type { RecordedSpan, Recording } from '../fold/recorded-spans.js';
import type { SpanStart } from '../fold/run-folder.js';
import type { SdkSpan } from './sdk-span.js';

/** A span's start or end, as the processor would have folded it. */
type Step =
  | { readonly start: SpanStart; readonly span: SdkSpan }
  | {
      readonly end: SpanView;
      readonly span: SdkSpan;
      /** The events as the span ended, when they are read from the live span (sanitizing changes them later). */
      readonly events: SpanView['events'] | undefined;
      readonly start?: undefined;
    };

/** One adopted run and the recorded runs nested in it (they share its recorder's fold). */
export interface AdoptedRun {
  readonly spanId: string;
  readonly span: SdkSpan;
  readonly startMillis: number;
  readonly trackedMillis: number;
  readonly session: object;
  /** Starts and ends of its spans so far, to replay into the processor's fold if it gives the run back. */
  readonly steps: Step[];
  /** How many of its spans are open (the run span included); their ids are the started ones not ended. */
  open: number;
}

/**
 * Steps kept per adopted run before it is given back to the processor's fold:
 * the replay log holds the ended spans' views until the run ends, so a run of
 * many spans is folded as it goes instead. @default 64
 */
export const MAX_ADOPTED_STEPS = 64;

/** The processor's adopted runs: which span belongs to which, and whether a span may stay adopted. */
export class AdoptedRuns {
  /** Every open span of an adopted run, by span id. */
  readonly #bySpan = new Map<string, AdoptedRun>();
  /** Adopted runs by their run span id, oldest first. */
  readonly #runs = new Map<string, AdoptedRun>();
  readonly #policy: Policy;
  readonly #adapters: readonly ConventionAdapter[];
  /** Policies found equal to the processor's (by identity), so each is compared once. */
  readonly #samePolicies = new WeakSet<Policy>();
  /** Runs whose verdict was the recorder's. */
  adopted = 0;
  /** Runs given back to the processor's fold. */
  givenBack = 0;
  /** Adopted runs dropped to stay within `maxOpenRuns`. */
  evicted = 0;

  constructor(policy: Policy, adapters: readonly ConventionAdapter[]) {
    this.#policy = policy;
    this.#adapters = adapters;
  }

  /** Adopted runs open now. */
  get size(): number {
    return this.#runs.size;
  }

  /** The adopted run span `spanId` belongs to, while it is open. */
  runOf(spanId: string | undefined): AdoptedRun | undefined {
    return spanId === undefined ? undefined : this.#bySpan.get(spanId);
  }

  /** The adopted run tracked longest. */
  oldest(): AdoptedRun | undefined {
    for (const run of this.#runs.values()) return run;
    return undefined;
  }

  /**
   * Drops the oldest adopted run to make room, as the processor's fold drops its oldest run: its
   * spans are not tracked any more, and its run span, when it ends, is judged alone (`evidence_truncated`).
   */
  evictOldest(): void {
    const oldest = this.oldest();
    if (!oldest) return;
    this.#runs.delete(oldest.spanId);
    forgetSpans(this.#bySpan, oldest);
    this.evicted += 1;
  }

  /** Every adopted run, oldest first (a snapshot). */
  all(): AdoptedRun[] {
    return [...this.#runs.values()];
  }

  /**
   * Whether a run span a recorder is starting may be adopted: it starts a fold of its own, with the
   * processor's policy and conventions.
   */
  adoptable(recording: Recording): boolean {
    return recording.top && recording.adapters === this.#adapters && this.#samePolicy(recording.policy);
  }

  /** Adopts the run of `span`, which a recorder is starting now. */
  adopt(span: SdkSpan, start: SpanStart, recording: Recording): void {
    const run: AdoptedRun = {
      spanId: start.spanId,
      span,
      startMillis: start.startMillis,
      trackedMillis: start.trackedMillis ?? start.startMillis,
      session: recording.session,
      steps: [{ start, span }],
      open: 1,
    };
    this.#runs.set(start.spanId, run);
    this.#bySpan.set(start.spanId, run);
  }

  /**
   * Adds a span starting under `run`, if it may stay adopted (the run's recorder is starting it, in
   * the run's fold); false when the run must be given back.
   */
  join(run: AdoptedRun, span: SdkSpan, start: SpanStart, recording: Recording | undefined): boolean {
    if (
      recording === undefined ||
      recording.session !== run.session ||
      !this.#samePolicy(recording.policy) ||
      run.steps.length >= MAX_ADOPTED_STEPS
    )
      return false;
    run.steps.push({ start, span });
    run.open += 1;
    this.#bySpan.set(start.spanId, run);
    return true;
  }

  /**
   * A span of `run` ends: true when the recorder folded it and the span is what
   * it folded (then its result is the recorder's), false when the run must be
   * given back. An adopted run span ends only with nothing of it still open.
   */
  end(run: AdoptedRun, span: SdkSpan, spanId: string, recorded: RecordedSpan | undefined): boolean {
    if (
      recorded === undefined ||
      recorded.session !== run.session ||
      !recorded.endFolded ||
      !sameAsRecorded(recorded.view, span)
    )
      return false;
    if (spanId === run.spanId && run.open > 1) return false;
    const view = recorded.view;
    run.steps.push({ end: view, span, events: (view.droppedEventsCount ?? 0) > 0 ? view.events : undefined });
    run.open -= 1;
    this.#bySpan.delete(spanId);
    if (spanId === run.spanId) {
      this.#runs.delete(spanId);
      this.adopted += 1;
    }
    return true;
  }

  /**
   * Forgets `run` and replays its steps so far into the processor's fold, in order: each start as the
   * processor would have started it, each end with the recorder's view under the span's own ids.
   */
  giveBack(
    run: AdoptedRun,
    fold: { start(start: SpanStart, span: SdkSpan): void; end(view: SpanView, span: SdkSpan): unknown },
  ): void {
    this.#runs.delete(run.spanId);
    forgetSpans(this.#bySpan, run);
    this.givenBack += 1;
    for (const step of run.steps) {
      if (step.start) fold.start(step.start, step.span);
      else fold.end(endedView(step.end, step.span, step.events), step.span);
    }
  }

  #samePolicy(policy: Policy): boolean {
    if (policy === this.#policy || this.#samePolicies.has(policy)) return true;
    const same = samePolicy(policy, this.#policy);
    if (same) this.#samePolicies.add(policy);
    return same;
  }
}

/** Forgets every span of `run` (deleting an id that already ended is a no-op). */
function forgetSpans(bySpan: Map<string, AdoptedRun>, run: AdoptedRun): void {
  for (const step of run.steps) if (step.start) bySpan.delete(step.start.spanId);
}

/** Whether two policies say the same: every option equal (lists element by element). */
export function samePolicy(a: Policy, b: Policy): boolean {
  const keys = Object.keys(a) as (keyof Policy)[];
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => sameValue(a[key], b[key]));
}

/** The recorder's view of an ended span under the span's own ids, as the processor's fold keys spans. */
function endedView(view: SpanView, span: SdkSpan, events: SpanView['events'] | undefined): SpanView {
  return {
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    name: view.name,
    startMillis: view.startMillis,
    endMillis: view.endMillis,
    attributes: view.attributes,
    events: events ?? view.events,
    links: view.links,
    statusCode: view.statusCode,
    statusMessage: view.statusMessage,
    scopeName: view.scopeName,
    droppedEventsCount: view.droppedEventsCount,
    droppedAttributesCount: view.droppedAttributesCount,
  };
}

/**
 * Whether the span, as it ends, is what the recorder's view holds in every
 * field the fold reads: name, status, attributes, events (names and
 * attributes), links, dropped counts. Times are the recorder's clock on both.
 * Allocates nothing.
 */
export function sameAsRecorded(view: SpanView, span: SdkSpan): boolean {
  if (view.name !== span.name) return false;
  if (view.statusCode !== span.status.code || (view.statusMessage ?? undefined) !== (span.status.message ?? undefined))
    return false;
  if ((view.droppedEventsCount ?? 0) !== (span.droppedEventsCount ?? 0)) return false;
  if ((view.droppedAttributesCount ?? 0) !== (span.droppedAttributesCount ?? 0)) return false;
  if (view.scopeName !== span.instrumentationScope?.name) return false;
  if (!sameAttributes(view.attributes, span.attributes)) return false;
  const events = view.events;
  if (events.length !== span.events.length) return false;
  for (let i = 0; i < events.length; i += 1) {
    const event = events[i]!;
    const spanEvent = span.events[i]!;
    if (event.name !== spanEvent.name || !sameAttributes(event.attributes, spanEvent.attributes)) return false;
  }
  const links = view.links ?? [];
  if (links.length !== span.links.length) return false;
  for (let i = 0; i < links.length; i += 1) {
    const link = links[i]!;
    const spanLink = span.links[i]!;
    if (link.spanId !== spanLink.context.spanId || !sameAttributes(link.attributes, spanLink.attributes)) return false;
  }
  return true;
}

/** Two attribute maps with the same keys and values (arrays element by element); allocates nothing. */
function sameAttributes(a: AttributeView | undefined, b: AttributeView | undefined): boolean {
  if (a === b) return true;
  const left = a ?? {};
  const right = b ?? {};
  let count = 0;
  for (const key in left) {
    if (!Object.hasOwn(left, key)) continue;
    if (!Object.hasOwn(right, key) || !sameValue(left[key], right[key])) return false;
    count += 1;
  }
  for (const key in right) if (Object.hasOwn(right, key)) count -= 1;
  return count === 0;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

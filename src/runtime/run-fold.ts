/**
 * A run's place in the fold (./fold-session.ts): the views of the spans it
 * records, the child spans still open, and how the run's end cuts them off,
 * nested runs included. It keeps the in-process verdict the one every reader
 * of the exported spans gives: the same views through the same fold.
 */
import type { Attributes, Context, Link, Span } from '@opentelemetry/api';
import { trace } from '@opentelemetry/api';
import type { EventView } from '../conventions/span-view.js';
import type { Policy } from '../derive/policy.js';
import type { RunFacts } from '../model/facts.js';
import type { Incident } from '../model/incident.js';
import { ADAPTERS } from '../conventions/index.js';
import type { Recording } from '../fold/recorded-spans.js';
import { startRecorded } from '../fold/recorded-spans.js';
import { FoldSession, RecordedView, sessionIn, withSession } from './fold-session.js';
import type { OpenSpan } from './run-channel.js';

/** The run span as the fold first sees it. */
export interface RunSpanStart {
  /** Starts the run span (the fold starts it, so that a span processor knows it is recorded). */
  readonly startSpan: () => Span;
  /** The links the run span starts with. */
  readonly links: readonly Link[];
  readonly name: string;
  readonly attributes: Attributes;
  readonly startMillis: number;
  /** The context the run span was started under: under another run's, the run is nested in it. */
  readonly parent: Context;
  readonly policy: Policy;
  /** Ends the run as cut off when its parent run ends first, at `endMillis`. */
  readonly cutByParent: (endMillis: number) => void;
}

/** What a child span of the run starts with: its name, attributes, start time and links. */
export interface ChildSpanStart {
  readonly name: string;
  readonly attributes: Attributes;
  readonly startMillis: number;
  readonly links: Link[];
}

/** One run's views in its fold session. */
export class RunFold {
  /** The run span's view. */
  readonly view: RecordedView;
  /** The context under the run span, carrying the session for nested runs. */
  readonly context: Context;
  readonly #session: FoldSession;
  readonly #runSpan: Span;
  /** How the spans this run starts are folded: start each with `startRecorded(recording, …)`. */
  readonly recording: Recording;
  /** Views of the child spans recorded, by their OpenTelemetry span. */
  readonly #views = new Map<Span, RecordedView>();
  readonly #open = new Set<OpenSpan>();
  /** The verdict and facts at the run's end. */
  #final: { readonly incident: Incident; readonly facts: RunFacts } | undefined;
  #cut = false;

  constructor(run: RunSpanStart) {
    // A run started under another run's context is nested in it: it joins that fold.
    const place = sessionIn(run.parent);
    this.#session = place?.session ?? new FoldSession();
    this.recording = { session: this.#session, policy: run.policy, adapters: ADAPTERS, top: false };
    this.#runSpan = startRecorded(place ? this.recording : { ...this.recording, top: true }, run.startSpan);
    const id = this.#session.nextId();
    const parentId = place ? (this.#session.idOf(trace.getSpan(run.parent)) ?? place.runId) : undefined;
    this.view = new RecordedView(
      this.#session,
      this.#runSpan,
      { spanId: id, parentSpanId: parentId },
      run.name,
      run.attributes,
      run.startMillis,
    );
    this.view.addLinks(run.links);
    this.#session.bind(this.#runSpan, id);
    this.#session.folder.start(this.view, this.view, { policy: run.policy });
    this.#session.addRun(id, { cut: run.cutByParent });
    this.context = withSession(trace.setSpan(run.parent, this.#runSpan), { session: this.#session, runId: id });
  }

  /** The run span. */
  get span(): Span {
    return this.#runSpan;
  }

  /** The verdict and facts the fold gave at the run's end, once it ended. */
  get final(): { readonly incident: Incident; readonly facts: RunFacts } | undefined {
    return this.#final;
  }

  /**
   * Starts a child span of the run with `startSpan`, as recorded (so that a span processor takes this
   * fold rather than folding it again), and tracks its view, with the links it started with.
   */
  startChild(startSpan: () => Span, span: ChildSpanStart): { readonly span: Span; readonly view: RecordedView } {
    const started = startRecorded(this.recording, startSpan);
    const view = this.track(started, span.name, span.attributes, span.startMillis);
    view.addLinks(span.links);
    return { span: started, view };
  }

  /** Starts tracking the view of a child span of the run. */
  track(span: Span, name: string, attributes: Attributes, startMillis: number): RecordedView {
    const view = new RecordedView(
      this.#session,
      span,
      { spanId: this.#session.nextId(), parentSpanId: this.view.spanId },
      name,
      attributes,
      startMillis,
    );
    this.#session.bind(span, view.spanId);
    this.#views.set(span, view);
    this.#session.folder.start(view, view);
    return view;
  }

  /** Adds `event`, written on `span`, to the span's view while it is tracked. */
  eventWritten(span: Span, event: EventView): void {
    const view = span === this.#runSpan ? this.view : this.#views.get(span);
    view?.recorded.push(event);
  }

  /** A child span opened. */
  opened(handle: OpenSpan): void {
    this.#open.add(handle);
  }

  /** A child span ended at `endMillis`: its view ends in the fold (unless the run was cut first). */
  spanEnded(handle: OpenSpan, endMillis: number): void {
    this.#open.delete(handle);
    if (handle.isTool) this.toolActivity();
    this.#views.delete(handle.span);
    if (this.#cut) return;
    handle.view.endMillis = endMillis;
    handle.view.foldedAs(this.#session.folder.end(handle.view, handle.view));
  }

  /** A tool of the run started or ended: the open attempts' next tool events are news again. */
  toolActivity(): void {
    for (const handle of this.#open) handle.toolActivity?.();
  }

  /** The run's facts: final once it ended, else as they stand (open tools count as running). */
  facts(): RunFacts {
    if (this.#final) return this.#final.facts;
    return this.#session.folder.peek(this.view.spanId, (v) => v) ?? { facts: [], attempts: [] };
  }

  /**
   * Cuts off at `endMillis` everything of the run still open: child spans, their views, nested runs. The
   * fold hears of each cut before its span ends, so the span's end finds its result (./fold-session.ts).
   */
  cutOpen(endMillis: number): void {
    this.#cut = true;
    this.#session.removeRun(this.view.spanId);
    const open = [...this.#open];
    this.#open.clear();
    this.#views.clear();
    const folder = this.#session.folder;
    for (const view of folder.cutOpenSpans(this.view.spanId)) {
      const nested = folder.isRun(view.spanId) ? this.#session.run(view.spanId) : undefined;
      if (nested) {
        nested.cut(endMillis);
        continue;
      }
      view.markCut();
      view.endMillis = endMillis;
      view.foldedAs(folder.end(view, view));
    }
    for (const handle of open) handle.cutAt(endMillis);
  }

  /** Ends the run span's view at `endMillis`; the fold's verdict becomes final. */
  endRun(endMillis: number): void {
    this.view.endMillis = endMillis;
    const folded = this.#session.folder.end(this.view, this.view);
    this.view.foldedAs(folded);
    if (folded?.kind === 'run') this.#final = { incident: folded.incident, facts: folded.facts };
  }
}

/**
 * The fold a run recorder keeps its verdict in, shared with the recorders of
 * its nested runs (sub-agents): a child recorder started anywhere under a run's
 * context finds the session through the OpenTelemetry context and joins it,
 * so its side effects reach the parent's verdict as they reach the exported
 * one, by the same fold. Each recorded span is a plain view the recorder
 * keeps up to date: the same view the processor reads from the SDK span.
 */
import type { AttributeValue, Context, HrTime, Link, Span, SpanStatusCode } from '@opentelemetry/api';
import { createContextKey } from '@opentelemetry/api';
import type { AttributeView, EventView, LinkView, SpanView } from '../conventions/span-view.js';
import { ADAPTERS } from '../conventions/index.js';
import { DEFAULT_POLICY } from '../derive/policy.js';
import type { RecordedSpan } from '../fold/recorded-spans.js';
import { registerRecordedSpan } from '../fold/recorded-spans.js';
import type { Folded } from '../fold/run-folder.js';
import { RunFolder } from '../fold/run-folder.js';
import { ATTR_INCIDENT_TRUNCATED } from '../model/attributes.js';
import { hrTimeToMillis } from '../model/hr-time.js';

/** A count the SDK keeps on its spans (`droppedEventsCount`…); 0 for a span without one (no SDK). */
function droppedOf(span: Span, key: 'droppedEventsCount' | 'droppedAttributesCount'): number {
  const value = (span as unknown as Record<string, unknown>)[key];
  return typeof value === 'number' ? value : 0;
}

/** The events an SDK span kept, as views; undefined for a span that does not expose them. */
function keptEvents(span: Span): EventView[] | undefined {
  const events = (
    span as {
      readonly events?: readonly {
        name: string;
        time: HrTime;
        attributes?: AttributeView;
        droppedAttributesCount?: number;
      }[];
    }
  ).events;
  return events?.map((e) => ({
    name: e.name,
    timeMillis: hrTimeToMillis(e.time),
    attributes: e.attributes,
    droppedAttributesCount: e.droppedAttributesCount,
  }));
}

/** The instrumentation scope's name of an SDK span; undefined for a span without one (no SDK). */
function scopeNameOf(span: Span): string | undefined {
  const name = (span as { readonly instrumentationScope?: { readonly name?: unknown } }).instrumentationScope?.name;
  return typeof name === 'string' ? name : undefined;
}

/**
 * A span as the recorder recorded it, kept up to date while it is open. Its
 * dropped counts, and once the span dropped events its events, are read from
 * the live SDK span: facts the SDK's span limits drop from the exported span
 * make the exported verdict fail closed, so they make the in-process one fail
 * closed too (it is never less cautious). It is also the span's record for
 * the SDK processor (../fold/recorded-spans.ts): what the fold gave at its end.
 */
export class RecordedView implements SpanView, RecordedSpan {
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  name: string;
  /** The attributes as recorded, for a span that does not expose its own (no SDK). */
  readonly #recordedAttributes: Record<string, unknown>;
  /** The events the recorder wrote; `events` is what the span kept of them (span limits drop the oldest). */
  readonly recorded: EventView[] = [];
  readonly links: LinkView[] = [];
  readonly startMillis: number;
  readonly scopeName: string | undefined;
  endMillis: number | undefined = undefined;
  statusCode = 0;
  statusMessage: string | undefined = undefined;
  readonly session: FoldSession;
  endFolded = false;
  folded: Folded | undefined = undefined;
  readonly #span: Span;

  constructor(
    session: FoldSession,
    span: Span,
    ids: { readonly spanId: string; readonly parentSpanId: string | undefined },
    name: string,
    attributes: Record<string, unknown>,
    startMillis: number,
  ) {
    this.#span = span;
    this.session = session;
    this.spanId = ids.spanId;
    this.parentSpanId = ids.parentSpanId;
    this.name = name;
    this.#recordedAttributes = { ...attributes };
    this.startMillis = startMillis;
    this.scopeName = scopeNameOf(span);
    registerRecordedSpan(span, this);
  }

  /**
   * The span's attributes: an SDK span's own map, live, so the fold reads what
   * every reader of the span reads (what others set on it included, what the
   * SDK's limits dropped left out); the recorded ones for a span of no SDK.
   */
  get attributes(): Record<string, unknown> {
    const live = (this.#span as { readonly attributes?: unknown }).attributes;
    return typeof live === 'object' && live !== null ? (live as Record<string, unknown>) : this.#recordedAttributes;
  }

  get view(): SpanView {
    return this;
  }

  get events(): readonly EventView[] {
    return this.droppedEventsCount > 0 ? (keptEvents(this.#span) ?? this.recorded) : this.recorded;
  }

  get droppedEventsCount(): number {
    return droppedOf(this.#span, 'droppedEventsCount');
  }

  get droppedAttributesCount(): number {
    return droppedOf(this.#span, 'droppedAttributesCount');
  }

  /** Sets an attribute on the span and in its view: the view stays what a reader of the span reads. */
  setAttribute(key: string, value: AttributeValue): void {
    this.#span.setAttribute(key, value);
    this.#recordedAttributes[key] = Array.isArray(value) ? [...(value as unknown[])] : value;
  }

  /** Marks the span cut off by its run's end (`incident.truncated`), in the view too; nothing on a span no longer recording. */
  markCut(): void {
    if (this.#span.isRecording()) this.setAttribute(ATTR_INCIDENT_TRUNCATED, true);
  }

  /** Sets the span's status, and the view's. */
  setStatus(code: SpanStatusCode, message?: string): void {
    this.#span.setStatus({ code, message });
    this.statusCode = code;
    this.statusMessage = message;
  }

  /** Records `error` as the span's `exception` event, and the event the SDK wrote in the view. */
  recordException(error: Error, time?: HrTime): void {
    this.#span.recordException(error, time);
    const written = keptEvents(this.#span)?.at(-1);
    if (written?.name === 'exception') this.recorded.push(written);
  }

  /** Adds the links the span started with to the view. */
  addLinks(links: readonly Link[]): void {
    for (const link of links) this.links.push({ spanId: link.context.spanId, attributes: link.attributes });
  }

  /** The fold ended the span's view and gave `folded`. */
  foldedAs(folded: Folded | undefined): void {
    this.endFolded = true;
    this.folded = folded;
  }
}

/** What a nested recorder must do when its parent run ends while it is still open. */
export interface NestedRun {
  /** Ends the run as cut off by its parent's end, at `endMillis`. */
  cut(endMillis: number): void;
}

/** One fold shared by a run and its nested runs. */
export class FoldSession {
  readonly folder = new RunFolder<RecordedView>({
    policy: DEFAULT_POLICY,
    adapters: ADAPTERS,
    maxOpenRuns: Number.POSITIVE_INFINITY,
  });
  readonly #ids = new WeakMap<object, string>();
  readonly #runs = new Map<string, NestedRun>();
  #next = 0;

  /** A fresh id for a recorded span (recorders run without an SDK too, where span ids are all zero). */
  nextId(): string {
    this.#next += 1;
    return `s${this.#next}`;
  }

  /** Remembers that the OpenTelemetry span `span` is recorded under `id`. */
  bind(span: Span, id: string): void {
    this.#ids.set(span, id);
  }

  /** The id `span` is recorded under, if it is. */
  idOf(span: Span | undefined): string | undefined {
    return span === undefined ? undefined : this.#ids.get(span);
  }

  /** Registers the recorder of run `id`, so a parent that ends first can cut it off. */
  addRun(id: string, run: NestedRun): void {
    this.#runs.set(id, run);
  }

  /** Forgets run `id`. */
  removeRun(id: string): void {
    this.#runs.delete(id);
  }

  /** The recorder of run `id`, while it is open. */
  run(id: string): NestedRun | undefined {
    return this.#runs.get(id);
  }
}

const SESSION = createContextKey('agent-incidents fold session');

/** Where a context sits: its session, and the run it belongs to. */
export interface SessionPlace {
  readonly session: FoldSession;
  readonly runId: string;
}

/** The session and run `context` belongs to, if a recorder made it. */
export function sessionIn(context: Context): SessionPlace | undefined {
  return context.getValue(SESSION) as SessionPlace | undefined;
}

/** `context` with `place` set, for everything started under the run. */
export function withSession(context: Context, place: SessionPlace): Context {
  return context.setValue(SESSION, place);
}

/**
 * The fold a run recorder keeps its verdict in, shared with the recorders of
 * its nested runs (sub-agents): a child recorder started anywhere under a run's
 * context finds the session through the OpenTelemetry context and joins it,
 * so its side effects reach the parent's verdict as they reach the exported
 * one, by the same fold. Each recorded span is a plain view the recorder
 * keeps up to date: the same view the processor reads from the SDK span.
 */
import type { Context, Span } from '@opentelemetry/api';
import { createContextKey } from '@opentelemetry/api';
import type { AttributeView, EventView, LinkView, SpanView } from '../conventions/span-view.js';
import { ADAPTERS } from '../conventions/index.js';
import { DEFAULT_POLICY } from '../derive/policy.js';
import { RunFolder } from '../fold/run-folder.js';

/** A span as the recorder recorded it, kept up to date while it is open. */
export interface RecordedView extends SpanView {
  name: string;
  readonly attributes: Record<string, unknown> & AttributeView;
  /** The events the recorder wrote; `events` is what the span kept of them (span limits drop the oldest). */
  readonly recorded: EventView[];
  readonly links: LinkView[];
  endMillis?: number;
  statusCode: number;
  statusMessage?: string;
}

/** What a nested recorder must do when its parent run ends while it is still open. */
export interface NestedRun {
  /** Ends the run as cut off by its parent's end, at `endMillis`. */
  cut(endMillis: number): void;
}

/** One fold shared by a run and its nested runs. */
export class FoldSession {
  readonly folder = new RunFolder<RecordedView>({ policy: DEFAULT_POLICY, adapters: ADAPTERS, maxOpenRuns: Number.POSITIVE_INFINITY });
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

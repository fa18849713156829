/**
 * ToolRecorder: one tool execution (an `execute_tool` span) and how it
 * ended. Its run (./run-channel.ts) writes its events and ends its view.
 */
import type { Span } from '@opentelemetry/api';
import { SpanStatusCode } from '@opentelemetry/api';
import { GEN_AI } from '../model/native-convention.js';
import { toHrTime } from './clock.js';
import { toolFailureOf } from './error-events.js';
import { toolExecutionInterruptedEvent } from './fact-events.js';
import type { RecordedView } from './fold-session.js';
import type { OpenSpan, RunChannel } from './run-channel.js';
import { errorTypeOf, markCut } from './span-access.js';

/** The package-private way to the private constructor (set by the class's static block). */
let create: (run: RunChannel, span: Span, view: RecordedView, owned: boolean) => ToolRecorder;

/**
 * A new recorder of a tool execution of the run behind `run`, on `span` (its
 * view `view`); `owned` is false for an adopted span, which its owner ends.
 * It registers itself with the run as open. Package-private: `RunRecorder`
 * calls it; users get tools from `RunRecorder.startTool` / `adoptTool`.
 */
export function newToolRecorder(run: RunChannel, span: Span, view: RecordedView, owned: boolean): ToolRecorder {
  return create(run, span, view, owned);
}

/** Records one tool execution. Every method is a no-op once the tool ended. */
export class ToolRecorder {
  static {
    create = (run, span, view, owned) => new ToolRecorder(run, span, view, owned);
  }

  /** The tool span (`execute_tool`). */
  readonly span: Span;
  readonly #view: RecordedView;
  readonly #run: RunChannel;
  /** False for an adopted span: its owner sets its status and ends it. */
  readonly #owned: boolean;
  /** This tool as its run sees it while it is open. */
  readonly #handle: OpenSpan;
  #ended = false;

  // Private: only the run creates tools (newToolRecorder), handing each its channel.
  private constructor(run: RunChannel, span: Span, view: RecordedView, owned: boolean) {
    this.#run = run;
    this.span = span;
    this.#view = view;
    this.#owned = owned;
    this.#handle = { span, view, isTool: true, cutAt: (endMillis) => this.#cutAt(endMillis) };
    run.opened(this.#handle);
  }

  /** Whether the tool execution ended. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Records that the tool finished and ends its span. */
  complete(): void {
    if (this.#ended) return;
    this.#end(this.#run.now());
  }

  /** Records that the tool failed (classified into a closed kind) and ends its span. */
  fail(error: unknown): void {
    if (this.#ended) return;
    const failure = toolFailureOf(error);
    this.#run.record(this.span, failure.event.name, failure.event.attributes);
    if (this.#owned) {
      if (error instanceof Error) this.#view.recordException(error);
      this.#view.setStatus(SpanStatusCode.ERROR, failure.message);
      if (errorTypeOf(this.span) === undefined) this.#view.setAttribute(GEN_AI.ERROR_TYPE, failure.errorType);
    }
    this.#end(this.#run.now());
  }

  /** Records that the running tool was interrupted (aborted) and ends its span. */
  interrupt(): void {
    if (this.#ended) return;
    const event = toolExecutionInterruptedEvent();
    this.#run.record(this.span, event.name, event.attributes);
    if (this.#owned) {
      this.#view.setStatus(SpanStatusCode.ERROR, 'tool execution interrupted');
    }
    this.#end(this.#run.now());
  }

  /** Cut off by the run's end: still running as far as anyone can tell. */
  #cutAt(endMillis: number): void {
    if (this.#ended) return;
    this.#ended = true;
    markCut(this.span, this.#owned, endMillis);
  }

  #end(time: number): void {
    this.#ended = true;
    // Folded before the span ends, so the SDK processor finds the fold's result at the end (fold once).
    this.#run.spanEnded(this.#handle, time);
    if (this.#owned) this.span.end(toHrTime(time));
  }
}

/**
 * AttemptRecorder: one provider attempt (a `chat` span) and the facts of its
 * stream. It encodes each fact (./fact-events.ts), writes it only when it is
 * news to a reader (./attempt-news.ts), and tells its run (./run-channel.ts)
 * when it ends.
 */
import type { Span } from '@opentelemetry/api';
import { SpanStatusCode } from '@opentelemetry/api';
import type { ToolSideEffects, WatchdogPhase } from '../model/enums.js';
import type { AttemptUsage } from '../model/recovery.js';
import { GEN_AI, NATIVE_ATTR as A, NATIVE_EVENT as E } from '../model/native-convention.js';
import { AttemptNews } from './attempt-news.js';
import { toHrTime } from './clock.js';
import { providerFailureOf } from './error-events.js';
import type { BoundaryInput, FactEvent } from './fact-events.js';
import {
  attemptFinishedEvent,
  pendingToolInterruptedEvent,
  providerProgressEvent,
  reasoningOutputStartedEvent,
  sideEffectBoundaryEvent,
  textOutputStartedEvent,
  toolCallMaterializedEvent,
  toolInputCompletedEvent,
  toolInputStartedEvent,
  watchdogFiredEvent,
} from './fact-events.js';
import type { RecordedView } from './fold-session.js';
import type { OpenSpan, RunChannel } from './run-channel.js';
import { errorTypeOf, markCut } from './span-access.js';

/** Where each figure of an attempt's usage is written on its span. */
const USAGE_ATTRIBUTES: readonly (readonly [keyof AttemptUsage, string])[] = [
  ['inputTokens', GEN_AI.USAGE_INPUT_TOKENS],
  ['outputTokens', GEN_AI.USAGE_OUTPUT_TOKENS],
  ['reasoningTokens', GEN_AI.USAGE_REASONING_TOKENS],
  ['cachedInputTokens', GEN_AI.USAGE_CACHE_READ_INPUT_TOKENS],
  ['costUsd', A.USAGE_COST_USD],
];

/** The package-private way to the private constructor (set by the class's static block). */
let create: (run: RunChannel, span: Span, view: RecordedView, number: number, owned: boolean) => AttemptRecorder;

/**
 * A new recorder of attempt `number` of the run behind `run`, on `span` (its
 * view `view`); `owned` is false for an adopted span, which its owner ends.
 * It registers itself with the run as open. Package-private: `RunRecorder`
 * calls it; users get attempts from `RunRecorder.startAttempt` / `adoptAttempt`.
 */
export function newAttemptRecorder(
  run: RunChannel,
  span: Span,
  view: RecordedView,
  number: number,
  owned: boolean,
): AttemptRecorder {
  return create(run, span, view, number, owned);
}

/** Records one provider attempt. Every method is a no-op once the attempt ended. */
export class AttemptRecorder {
  static {
    create = (run, span, view, number, owned) => new AttemptRecorder(run, span, view, number, owned);
  }

  /** The attempt span (`chat`). */
  readonly span: Span;
  /** 1-based number of the attempt within its run. */
  readonly number: number;
  readonly #view: RecordedView;
  readonly #run: RunChannel;
  readonly #news = new AttemptNews();
  /** False for an adopted span: its owner sets its status and ends it. */
  readonly #owned: boolean;
  /** This attempt as its run sees it while it is open. */
  readonly #handle: OpenSpan;
  #ended = false;
  /** What the attempt reported it used, merged over its reports. */
  #usage: AttemptUsage | undefined;

  // Private: only the run creates attempts (newAttemptRecorder), handing each its channel.
  private constructor(run: RunChannel, span: Span, view: RecordedView, number: number, owned: boolean) {
    this.#run = run;
    this.span = span;
    this.#view = view;
    this.number = number;
    this.#owned = owned;
    this.#handle = {
      span,
      view,
      isTool: false,
      cutAt: (endMillis) => this.#cutAt(endMillis),
      toolActivity: () => this.#news.toolActivity(),
    };
    run.opened(this.#handle);
  }

  /** Whether the attempt ended (finished, failed or watchdog). */
  get ended(): boolean {
    return this.#ended;
  }

  /** Records the tools exposed to this request (its side-effect boundary). */
  recordBoundary(boundary: BoundaryInput): void {
    this.#record(sideEffectBoundaryEvent(boundary));
  }

  /**
   * Records the first real provider output of this attempt that is not text,
   * reasoning or a tool call (those imply progress themselves), such as a
   * source or a tool result; `chunkType` names it (informational). Recorded once.
   * The methods below record what a stream shows whatever its vocabulary; for
   * AI SDK stream parts, `recordStreamPart` in `agent-incidents/ai-sdk` picks the method.
   */
  providerProgress(chunkType?: string): void {
    this.#recordOnce(E.PROVIDER_PROGRESS, providerProgressEvent(chunkType));
  }

  /** Records that visible text output started (recorded once). */
  textOutput(): void {
    this.#recordOnce(E.TEXT_OUTPUT_STARTED, textOutputStartedEvent());
  }

  /** Records that reasoning output started (recorded once). */
  reasoningOutput(): void {
    this.#recordOnce(E.REASONING_OUTPUT_STARTED, reasoningOutputStartedEvent());
  }

  /** Records that the model started streaming a tool call's input. */
  toolInputStarted(toolName?: string, options: { readonly providerExecuted?: boolean } = {}): void {
    if (this.#ended) return;
    this.#record(toolInputStartedEvent(toolName, options.providerExecuted));
    this.#news.toolInputSeen();
  }

  /**
   * Records that a tool call's input finished streaming. Not recorded when it
   * would change nothing a reader concludes (another call's input is already
   * streaming, or a call is already complete): parallel tool calls must not
   * spend the span's event limit on events that say nothing new.
   */
  toolInputCompleted(toolName?: string): void {
    if (this.#ended || !this.#news.isToolInputCompletedNews()) return;
    this.#record(toolInputCompletedEvent(toolName));
    this.#news.toolInputSeen();
  }

  /** Records a complete tool call (it may not run yet), with its side-effect class. */
  toolCallMaterialized(call: {
    readonly name?: string;
    readonly callId?: string;
    /** @default 'unknown' */
    readonly sideEffects?: ToolSideEffects;
    readonly providerExecuted?: boolean;
  }): void {
    const event = toolCallMaterializedEvent(call);
    if (this.#ended) return;
    // A call of a kind already complete, right after another complete call, says nothing new to a reader.
    const kind = `${String(event.attributes[A.TOOL_SIDE_EFFECTS])}/${String(event.attributes[A.TOOL_PROVIDER_EXECUTED])}`;
    if (!this.#news.isCallNews(kind)) return;
    this.#record(event);
    this.#news.callSeen(kind);
  }

  /** Cleanup evidence: a tool part that never ran was closed. Not terminal; recorded once per tool name. */
  pendingToolInterrupted(toolName?: string): void {
    this.#recordOnce(`${E.PENDING_TOOL_INTERRUPTED}:${toolName ?? ''}`, pendingToolInterruptedEvent(toolName));
  }

  /** Records that a local watchdog fired, and ends the attempt as failed. */
  watchdogFired(options: { readonly phase: WatchdogPhase; readonly budgetMillis?: number }): void {
    this.#record(watchdogFiredEvent(options));
    this.#end(SpanStatusCode.ERROR, `watchdog_timeout (${options.phase})`, 'watchdog_timeout');
  }

  /**
   * Records the error that ended the attempt (classified from its cause chain:
   * `TypeError: terminated` → `UND_ERR_SOCKET`) and ends the attempt as failed.
   */
  fail(error: unknown, options: { readonly retryAfterMillis?: number } = {}): void {
    if (this.#ended) return;
    const failure = providerFailureOf(error, options.retryAfterMillis, () => this.#run.now());
    this.#record(failure.event);
    this.#run.attemptEnded(this.number, { retryAfterMillis: failure.retryAfterMillis, usage: this.#usage });
    if (this.#owned && error instanceof Error) this.#view.recordException(error, toHrTime(this.#run.now()));
    this.#end(SpanStatusCode.ERROR, failure.message, failure.errorType);
  }

  /**
   * Ends the attempt with no fact of its own: what stopped it was recorded on
   * the run (a user cancel aborted the request).
   */
  close(): void {
    this.#end(SpanStatusCode.UNSET);
  }

  /**
   * Records what the attempt has used so far, as the provider reports it:
   * mid-stream (Anthropic's `message_start`, a usage chunk) or at the end.
   * Figures are totals for the attempt; a later report replaces the figures
   * it gives and keeps the others. Written on the span as `gen_ai.usage.*`
   * and `agent_incidents.usage.cost_usd`, so an attempt cut off later still
   * shows what it had used (docs/attributes.md#lost-usage). Ignored once the
   * attempt ended.
   */
  usage(usage: AttemptUsage): void {
    if (this.#ended) return;
    const merged: { -readonly [K in keyof AttemptUsage]: AttemptUsage[K] } = { ...this.#usage };
    for (const [figure, key] of USAGE_ATTRIBUTES) {
      const value = usage[figure];
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) continue;
      merged[figure] = value;
      this.#view.setAttribute(key, value);
    }
    this.#usage = merged;
  }

  /** Records that the attempt's stream finished normally and ends the attempt; `usage` as {@link AttemptRecorder.usage} takes it. */
  finish(options: { readonly finishReasons?: readonly string[]; readonly usage?: AttemptUsage } = {}): void {
    if (this.#ended) return;
    // The recorder's own fold reads what it writes as every reader does (docs/conventions.md#finish-reasons-by-meaning).
    if (options.finishReasons) this.#view.setAttribute(GEN_AI.FINISH_REASONS, [...options.finishReasons]);
    if (options.usage) this.usage(options.usage);
    this.#record(attemptFinishedEvent());
    this.#run.attemptEnded(this.number, { usage: this.#usage, finished: true });
    this.#end(SpanStatusCode.UNSET);
  }

  /** Writes `event` once per `key`; what a reader sees then moves away from tool input. */
  #recordOnce(key: string, event: FactEvent): void {
    if (this.#news.firstOf(key)) this.#record(event);
  }

  #record(event: FactEvent): void {
    if (this.#ended) return;
    this.#run.record(this.span, event.name, event.attributes);
  }

  #end(code: SpanStatusCode, message?: string, errorType?: string): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#run.attemptEnded(this.number, { usage: this.#usage });
    const endMillis = this.#run.now();
    if (this.#owned && code === SpanStatusCode.ERROR) {
      this.#view.setStatus(code, message);
      // An `error.type` already on the span is someone else's (docs/attributes.md#span-status-and-errortype).
      if (errorType && errorTypeOf(this.span) === undefined) this.#view.setAttribute(GEN_AI.ERROR_TYPE, errorType);
    }
    // Folded before the span ends, so the SDK processor finds the fold's result at the end (fold once).
    this.#run.spanEnded(this.#handle, endMillis);
    if (this.#owned) this.span.end(toHrTime(endMillis));
  }

  /** Cut off by the run's end: an owned span ends there, an adopted one is marked for its owner. */
  #cutAt(endMillis: number): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#run.attemptEnded(this.number, { usage: this.#usage });
    markCut(this.span, this.#owned, endMillis);
  }
}

/**
 * What one run knows while its calls go on, shared by the parts that observe
 * them (attempts, tools, AI SDK 7's span wiring): internal, not exported.
 */
import type { Span, Tracer } from '@opentelemetry/api';
import { diag } from '@opentelemetry/api';
import type { CancelOrigin } from '../model/enums.js';
import type { AttemptRecorder } from '../runtime/attempt-recorder.js';
import type { RunRecorder } from '../runtime/run-recorder.js';
import type { ToolRecorder } from '../runtime/tool-recorder.js';
import type { TimeoutSetting } from './abort-reason.js';
import type { AgentRunOptions } from './options.js';
import type { ToolClassSources } from './tool-classes.js';

/** One provider request being observed. */
export interface ObservedAttempt {
  readonly recorder: AttemptRecorder;
  /** Real output arrived (a chunk watchdog then fired on a silent stream, not on connect). */
  progressSeen: boolean;
}

/** One AI SDK call of the run (`streamText` / `generateText`), from `callOptions`. */
export interface CallState {
  readonly sources: ToolClassSources;
  readonly timeout: TimeoutSetting;
  readonly maxRetries: number;
  /** Pre-stream failures in a row (the SDK retries them within one step). */
  failuresInARow: number;
  /** The call's latest attempt. */
  current?: ObservedAttempt;
  /** The call's abort signal is watched (every attempt of a call gets the same one). */
  watching: boolean;
  /** The abort signal the SDK gave the call's first attempt: aborted, a tool stopped was interrupted. */
  signal?: AbortSignal;
  /** Tools of this call running now: a run-wide timeout only matters while one runs. */
  runningTools: number;
  /** The call finished: a timer of its signal firing later means nothing. */
  finished: boolean;
  /** Stops watching the call's abort signal. */
  unwatch?: () => void;
}

/** The state of one run. */
export class RunState {
  readonly attempts: AttemptRecorder[] = [];
  /** `ai` 6: tools by call id, between `onToolCallStart` and `onToolCallFinish`. */
  readonly tools = new Map<string, ToolRecorder>();
  /** `ai` 7: tools executing now (`executeTool`), interrupted when the run is stopped. */
  readonly toolsRunning = new Set<ToolRecorder>();
  /** SDK spans the SDK may leave open (its call spans), ended with the run. */
  readonly sdkSpans: Span[] = [];
  /** Calls of this run, so the run's end can stop watching their signals. */
  readonly calls: CallState[] = [];
  /** SDK spans adopted as attempts: `ai` 7's generateText retries inside one `chat` span, which only the first adopts. */
  readonly adopted = new WeakSet<Span>();
  /** The tracer `ai` 7's SDK spans go to (the run's, marking framework calls); made on first use. */
  sdkTracer?: Tracer;
  /** A call's model could not be observed: its errors are not known to be setup failures. */
  unobserved = false;
  cancelOrigin: CancelOrigin;
  #cancelRecorded = false;

  constructor(
    readonly recorder: RunRecorder,
    readonly options: AgentRunOptions,
    readonly trustedReadOnly: readonly string[],
    /** Aborts when the caller stops or the run is cancelled. */
    readonly signal: AbortSignal,
  ) {
    this.cancelOrigin = options.cancelOrigin ?? 'user_stop';
    // A stop is the run's cancel from the moment it fires, and it interrupts the tools running then:
    // recorded now, not when an attempt's signal or the run's end reports it (between model calls no
    // attempt's signal fires). AI SDK 7's span integration ends a running tool's span at the abort,
    // before the tool itself stops: recorded later, the interruption is lost and the span reads as a
    // tool that finished (by the SDK's millisecond start times, even before the stop).
    if (!signal.aborted) {
      signal.addEventListener('abort', () => quietly(() => this.#stopped()), { once: true });
    }
  }

  #stopped(): void {
    if (this.recorder.ended) return;
    this.recordCancel(this.cancelOrigin);
    for (const tool of this.toolsRunning) tool.interrupt();
  }

  /** Records the run's user cancel, once. */
  recordCancel(origin: CancelOrigin): void {
    if (this.#cancelRecorded) return;
    this.#cancelRecorded = true;
    this.recorder.userCancel(origin);
  }
}

/** Runs an observer; what it throws never reaches the caller's AI SDK call. */
export function quietly(body: () => void): void {
  try {
    body();
  } catch (error) {
    diag.debug('agent-incidents/ai-sdk: an observer failed; the call goes on unobserved', error);
  }
}

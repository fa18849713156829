// Over 300 lines: RunRecorder is the runtime's one public entry, and each method's JSDoc is its contract.
/**
 * RunRecorder: the runtime side of the native convention. It starts the run,
 * attempt and tool spans with GenAI attributes (./genai-spans.ts), adopts the
 * ones an instrumentation started, records the run's own facts as span events
 * (./fact-events.ts), and keeps a view of each span it records in the fold
 * core (./run-fold.ts), so the verdict it gives in-process is the one the
 * processor and the gateway give the exported spans. Its attempts and tools
 * (./attempt-recorder.ts, ./tool-recorder.ts) talk to it through a
 * package-private channel (./run-channel.ts); its ledger (./run-ledger.ts)
 * keeps the attempt history and usage a recovery strategy reads.
 */
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import { context as otelContext, SpanKind, trace } from '@opentelemetry/api';
import { deriveIncident } from '../derive/derive-incident.js';
import type { Policy } from '../derive/policy.js';
import { resolvePolicy } from '../derive/policy.js';
import { isTerminal } from '../derive/timeline.js';
import { ATTR_INCIDENT_TRUNCATED } from '../model/attributes.js';
import type {
  CancelOrigin,
  LifecycleKind,
  ProcessCloseReason,
  ToolSideEffects,
  WatchdogPhase,
} from '../model/enums.js';
import type { Incident } from '../model/incident.js';
import type {
  AttemptHistoryEntry,
  RecoverableRun,
  RecoveryActionRecord,
  RunSnapshot,
  RunStopReason,
} from '../model/recovery.js';
import { GEN_AI, NATIVE_ATTR as A } from '../model/native-convention.js';
import type { AttemptRecorder } from './attempt-recorder.js';
import { newAttemptRecorder } from './attempt-recorder.js';
import { anchoredClock, toHrTime } from './clock.js';
import { providerFailureOf, setupFailureEvent } from './error-events.js';
import type { BoundaryInput, FactEvent } from './fact-events.js';
import {
  lifecycleCloseEvent,
  processExitEvent,
  recoveryActionEvent,
  retryIssuedEvent,
  userCancelEvent,
  watchdogFiredEvent,
} from './fact-events.js';
import { attemptAttributesOf, attemptNameOf, runSpanOf, toolAttributesOf, toolNameOf } from './genai-spans.js';
import type { RunChannel } from './run-channel.js';
import type { ChildSpanStart } from './run-fold.js';
import { RunFold } from './run-fold.js';
import { RunLedger } from './run-ledger.js';
import type { RunRecorderOptions } from './run-options.js';
import { addLinkAfterStart, nameOf, startMillisOf } from './span-access.js';
import type { ToolRecorder } from './tool-recorder.js';
import { newToolRecorder } from './tool-recorder.js';

export type { ContinuedRun, RunRecorderOptions } from './run-options.js';

/** Records one run. Create it with {@link RunRecorder.start}. */
export class RunRecorder implements RecoverableRun {
  /** The run span (`invoke_agent`). */
  readonly span: Span;
  readonly #tracer: Tracer;
  readonly #clock: () => number;
  readonly #policy: Policy;
  readonly #options: RunRecorderOptions;
  readonly #fold: RunFold;
  readonly #ledger: RunLedger;
  /** What the run's attempts and tools may ask of it. */
  readonly #channel: RunChannel;
  readonly #stop = new AbortController();
  readonly #startMillis: number;
  #endMillis: number | undefined;
  /** The sequence number of the last fact event written (`agent_incidents.seq`). */
  #seq = 0;
  #ended = false;

  private constructor(options: RunRecorderOptions) {
    this.#options = options;
    this.#tracer = options.tracer ?? trace.getTracer('agent-incidents');
    this.#clock = options.clock ?? anchoredClock();
    this.#policy = resolvePolicy(options.policy);
    this.#ledger = new RunLedger(this.#clock);
    const { name, attributes, links } = runSpanOf(options);
    const parent = options.parentContext ?? otelContext.active();
    this.#startMillis = this.#clock();
    this.#fold = new RunFold({
      startSpan: () =>
        this.#tracer.startSpan(
          name,
          { kind: SpanKind.INTERNAL, attributes, links, startTime: toHrTime(this.#startMillis) },
          parent,
        ),
      links: links ?? [],
      name,
      attributes,
      startMillis: this.#startMillis,
      parent,
      policy: this.#policy,
      cutByParent: (endMillis) => {
        if (!this.#ended) this.#finish(endMillis, true);
      },
    });
    this.span = this.#fold.span;
    this.#channel = {
      now: () => this.now(),
      record: (span, eventName, eventAttributes) => this.#write(span, eventName, eventAttributes),
      attemptEnded: (number, details) => this.#ledger.attemptEnded(number, details),
      opened: (handle) => this.#fold.opened(handle),
      spanEnded: (handle, endMillis) => this.#fold.spanEnded(handle, endMillis),
    };
  }

  /**
   * Starts a run: an `invoke_agent` span with GenAI attributes.
   * @example
   * const run = RunRecorder.start({ agentName: 'coder', providerName: 'openai' });
   * const attempt = run.startAttempt({ boundary: { tools: [{ name: 'read', sideEffects: 'read_only' }] } });
   */
  static start(options: RunRecorderOptions = {}): RunRecorder {
    return new RunRecorder(options);
  }

  /** Context with the run span active, for spans the runtime starts itself. */
  get context(): Context {
    return this.#fold.context;
  }

  /** Whether {@link RunRecorder.end} was called. */
  get ended(): boolean {
    return this.#ended;
  }

  /**
   * Aborted when a user cancel or a lifecycle close is recorded, with a
   * {@link RunStopReason}: what a retry backoff waits on, so a stop during the
   * wait abandons the retry instead of turning into a recovered run.
   */
  get signal(): AbortSignal {
    return this.#stop.signal;
  }

  /** Starts a provider attempt (`chat` span) and records its side-effect boundary. */
  startAttempt(options: { readonly model?: string; readonly boundary?: BoundaryInput } = {}): AttemptRecorder {
    const number = this.#ledger.nextNumber;
    const model = options.model ?? this.#options.model;
    const retryLink = this.#ledger.takeRetryLink();
    const providerName = this.#options.providerName;
    const attributes = attemptAttributesOf({ number, providerName, model, retryOf: retryLink?.number });
    const startMillis = this.#clock();
    const name = attemptNameOf(model);
    const links = retryLink ? [retryLink.link] : [];
    const { span, view } = this.#startChild(SpanKind.CLIENT, { name, attributes, startMillis, links });
    this.#ledger.attemptStarted({ key: view.spanId, number, startMillis, spanContext: span.spanContext() });
    const attempt = newAttemptRecorder(this.#channel, span, view, number, true);
    if (options.boundary) attempt.recordBoundary(options.boundary);
    return attempt;
  }

  /**
   * Adopts a provider-attempt span that an instrumentation started (the AI
   * SDK's `ai.streamText.doStream`), so its facts are recorded on it instead
   * of on a new span. The recorder never ends or sets the status of an
   * adopted span: its owner does.
   */
  adoptAttempt(span: Span, options: { readonly boundary?: BoundaryInput } = {}): AttemptRecorder {
    const number = this.#ledger.nextNumber;
    // The span says it is recorded natively, so readers trust its events over its own attributes.
    span.setAttribute(A.ATTEMPT_NUMBER, number);
    const attributes: Attributes = { [GEN_AI.OPERATION_NAME]: 'chat', [A.ATTEMPT_NUMBER]: number };
    const retryLink = this.#ledger.takeRetryLink();
    if (retryLink) {
      span.setAttribute(A.RETRY_OF_ATTEMPT, retryLink.number);
      attributes[A.RETRY_OF_ATTEMPT] = retryLink.number;
      addLinkAfterStart(span, retryLink.link);
    }
    const startMillis = startMillisOf(span) ?? this.#clock();
    const view = this.#fold.track(span, nameOf(span) ?? 'chat', attributes, startMillis);
    this.#ledger.attemptStarted({ key: view.spanId, number, startMillis, spanContext: span.spanContext() });
    const attempt = newAttemptRecorder(this.#channel, span, view, number, false);
    if (options.boundary) attempt.recordBoundary(options.boundary);
    return attempt;
  }

  /**
   * Adopts a tool-execution span that an instrumentation started (the AI
   * SDK's `ai.toolCall`): writes the tool's side-effect class on it, and the
   * number of the attempt that called it (`agent_incidents.attempt.number`,
   * with a link), so every reader places it by that and not by time. The
   * recorder never ends an adopted span.
   */
  adoptTool(
    span: Span,
    options: { readonly name: string; readonly sideEffects?: ToolSideEffects; readonly attempt?: AttemptRecorder },
  ): ToolRecorder {
    const sideEffects = options.sideEffects ?? 'unknown';
    span.setAttribute(A.TOOL_SIDE_EFFECTS, sideEffects);
    const attemptNumber = options.attempt?.number;
    const attributes = toolAttributesOf({ name: options.name, sideEffects, attemptNumber });
    if (options.attempt) {
      span.setAttribute(A.ATTEMPT_NUMBER, options.attempt.number);
      addLinkAfterStart(span, { context: options.attempt.span.spanContext() });
    }
    const name = nameOf(span) ?? toolNameOf(options.name);
    const view = this.#fold.track(span, name, attributes, startMillisOf(span) ?? this.#clock());
    const tool = newToolRecorder(this.#channel, span, view, false);
    this.#fold.toolActivity();
    return tool;
  }

  /**
   * Starts a tool execution (`execute_tool` span). With `attempt`, the span
   * names the attempt that called it (`agent_incidents.attempt.number`, and a
   * link); without, readers place it in the attempt running when it started.
   */
  startTool(options: {
    readonly name: string;
    readonly callId?: string;
    /** @default 'unknown' */
    readonly sideEffects?: ToolSideEffects;
    readonly attempt?: AttemptRecorder;
  }): ToolRecorder {
    const attributes = toolAttributesOf({
      name: options.name,
      sideEffects: options.sideEffects ?? 'unknown',
      callId: options.callId,
      attemptNumber: options.attempt?.number,
    });
    const startMillis = this.#clock();
    const name = toolNameOf(options.name);
    const links = options.attempt ? [{ context: options.attempt.span.spanContext() }] : [];
    const { span, view } = this.#startChild(SpanKind.INTERNAL, { name, attributes, startMillis, links });
    const tool = newToolRecorder(this.#channel, span, view, true);
    this.#fold.toolActivity();
    return tool;
  }

  /**
   * Records that an automatic retry of `attempt` (a recorder or its number;
   * undefined for a run that failed before any attempt) was issued, before
   * its backoff. The next attempt started links to it
   * (`agent_incidents.link.type` = `retry_of`), unless a stop came first.
   */
  retryIssued(attempt: AttemptRecorder | number | undefined, options: { readonly delayMillis?: number } = {}): void {
    // Undefined: the whole run is retried (it failed before any attempt); nothing to link.
    const number = typeof attempt === 'object' ? attempt.number : attempt;
    this.#record(retryIssuedEvent(number, options.delayMillis));
    if (!this.#ended && !this.#stop.signal.aborted) this.#ledger.retryIssued(number);
  }

  /**
   * Records what a recovery strategy did (`agent_incidents.recovery_action`
   * on the run span, with the redacted snapshot when given). The processor
   * folds the last one into `incident.recovery.*`, as {@link RunRecorder.incident} does.
   */
  recoveryAction(record: RecoveryActionRecord): void {
    this.#record(recoveryActionEvent(record));
  }

  /** Each attempt so far with its own verdict: the attempt history a recovery strategy reads. */
  attemptHistory(): AttemptHistoryEntry[] {
    return this.#ledger.history(this.#fold.facts(), this.#policy);
  }

  /** A redacted snapshot of the run now: counts, tokens, cost, durations and the verdict's enums. */
  snapshot(): RunSnapshot {
    const incident = this.incident();
    return this.#ledger.snapshot(incident, (this.#endMillis ?? this.#clock()) - this.#startMillis);
  }

  /**
   * Records that a run-wide watchdog fired while no attempt was streaming
   * (a total budget that ran out while a tool ran). A watchdog on a
   * streaming attempt belongs to the attempt: {@link AttemptRecorder.watchdogFired}.
   */
  watchdogFired(options: { readonly phase: WatchdogPhase; readonly budgetMillis?: number }): void {
    this.#record(watchdogFiredEvent(options));
  }

  /** Records that the user (or the client) cancelled the run. */
  userCancel(origin: CancelOrigin = 'user_stop'): void {
    this.#record(userCancelEvent(origin));
    this.#abort({ cause: 'user_cancel' });
  }

  /**
   * Records a local lifecycle close (reload, dispose, shutdown). `initiatedAt`
   * (epoch ms or Date) orders it before failures it caused that were recorded first.
   */
  lifecycleClose(options: { readonly kind: LifecycleKind; readonly initiatedAt?: number | Date }): void {
    this.#record(lifecycleCloseEvent(options));
    this.#abort({ cause: 'local_lifecycle_close' });
  }

  /** Records that building the provider request failed before any attempt. */
  setupFailure(error: unknown): void {
    this.#record(setupFailureEvent(error));
  }

  /**
   * Records the error the run failed with when nothing on record explains it
   * (a call the runtime could not observe, its own code): classified like an
   * attempt's error, as `agent_incidents.provider_error` on the run span, so a
   * run whose caller got an error never reads success. Ignored once a failure,
   * stop or close is on record (docs/conventions.md#fact-events).
   */
  fail(error: unknown): void {
    if (this.#fold.facts().facts.some(isTerminal)) return;
    this.#record(providerFailureOf(error, undefined, this.#clock).event);
  }

  /** Records that the agent process exited. */
  processExit(options: {
    readonly exitCode?: number;
    readonly signal?: string;
    readonly closeReason?: ProcessCloseReason;
  }): void {
    this.#record(processExitEvent(options));
  }

  /**
   * The verdict from what was recorded so far, computed by the same pure
   * functions the processor uses on the exported spans.
   */
  incident(): Incident {
    const final = this.#fold.final;
    if (final) return final.incident;
    return deriveIncident(this.#fold.facts(), this.#policy);
  }

  /**
   * Ends the run span (once) and returns the final verdict. Spans of the run
   * still open (attempts, tools, nested runs) are cut off here: the recorder
   * ends the ones it owns at the run's end, marked `incident.truncated`, and
   * marks the adopted ones for their owner to end, so every reader of the
   * exported spans sees them cut off as this verdict does.
   */
  end(): Incident {
    if (!this.#ended) this.#finish(this.#clock(), false);
    return this.incident();
  }

  /**
   * The run's clock now, in epoch milliseconds: the time base of its events,
   * for a time the runtime records itself (`lifecycleClose`'s `initiatedAt`).
   */
  now(): number {
    return this.#clock();
  }

  /** Starts an owned child span of the run span, and its view in the fold. */
  #startChild(kind: SpanKind, child: ChildSpanStart): ReturnType<RunFold['startChild']> {
    const { name, attributes, startMillis, links } = child;
    const options = { kind, attributes, links, startTime: toHrTime(startMillis) };
    return this.#fold.startChild(() => this.#tracer.startSpan(name, options, this.context), child);
  }

  /** Writes one of the run's own facts on the run span. */
  #record(event: FactEvent): void {
    this.#write(this.span, event.name, event.attributes);
  }

  /** Writes a native fact event on `span` now (numbered in the run's order), and in its view. */
  #write(span: Span, name: string, attributes: Attributes): void {
    // The time is read first, as it always was: a test clock counts its reads.
    const timeMillis = this.#clock();
    if (this.#ended) return;
    const seq = ++this.#seq;
    const eventAttributes = { ...attributes, [A.SEQ]: seq };
    span.addEvent(name, eventAttributes, toHrTime(timeMillis));
    this.#fold.eventWritten(span, { name, timeMillis, attributes: eventAttributes });
  }

  /**
   * Ends the run at `endMillis`: cuts off what is still open, then ends the
   * run span's view and the span. `byParent`: the run is nested and its parent
   * ended first, so the run span is marked `incident.truncated` too.
   */
  #finish(endMillis: number, byParent: boolean): void {
    this.#ended = true;
    this.#endMillis = endMillis;
    this.#fold.cutOpen(endMillis);
    if (byParent) {
      this.#fold.view.setAttribute(ATTR_INCIDENT_TRUNCATED, true);
    }
    this.#fold.endRun(endMillis);
    this.span.end(toHrTime(endMillis));
  }

  #abort(reason: RunStopReason): void {
    if (this.#ended || this.#stop.signal.aborted) return;
    // An abandoned retry links nothing: a later attempt the user asks for is not its retry.
    this.#ledger.retryAbandoned();
    this.#stop.abort(reason);
  }
}

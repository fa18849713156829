/**
 * RunRecorder: the runtime side of the native convention. It starts the run,
 * attempt and tool spans with GenAI attributes, records every fact as a span
 * event, and keeps a view of each span it records in the fold core
 * (src/fold/), so the verdict it gives in-process is the one the processor
 * and the gateway give the exported spans: the same views through the same
 * fold. Nested runs (sub-agents) share their parent's fold.
 */
import type { Attributes, Context, HrTime, Link, Span, SpanContext, Tracer } from '@opentelemetry/api';
import { context as otelContext, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  classifyError,
  classifyToolError,
  describeError,
  retryAfterMillis,
  safeCode,
  toolErrorCode,
} from '../derive/classify-error.js';
import { deriveAttemptVerdict, deriveIncident } from '../derive/derive-incident.js';
import type { Policy, PolicyInput } from '../derive/policy.js';
import { resolvePolicy } from '../derive/policy.js';
import { ATTR_INCIDENT_TRUNCATED } from '../model/attributes.js';
import type {
  CancelOrigin,
  LifecycleKind,
  ProcessCloseReason,
  ToolSideEffects,
  WatchdogPhase,
} from '../model/enums.js';
import type { RunFacts } from '../model/facts.js';
import { hrTimeToMillis } from '../model/hr-time.js';
import type { Incident } from '../model/incident.js';
import type {
  AttemptHistoryEntry,
  AttemptUsage,
  RecoverableRun,
  RecoveryActionRecord,
  RunSnapshot,
  RunStopReason,
} from '../model/recovery.js';
import { GEN_AI, NATIVE_ATTR as A, NATIVE_EVENT as E, OPERATION } from '../model/native-convention.js';
import type { FoldSession } from './fold-session.js';
import { FoldSession as Session, RecordedView, sessionIn, withSession } from './fold-session.js';

/** One tool exposed to a provider request. */
export interface BoundaryToolInput {
  readonly name: string;
  /** @default 'unknown' */
  readonly sideEffects?: ToolSideEffects;
  /** The provider runs this tool itself. @default false */
  readonly providerExecuted?: boolean;
}

/** The side-effect boundary of a request: every tool it exposes. */
export interface BoundaryInput {
  readonly tools: readonly BoundaryToolInput[];
  /** The request reaches an external system whose effects are not classified. @default false */
  readonly external?: boolean;
}

/** Options of {@link RunRecorder.start}. */
export interface RunRecorderOptions {
  /** @default trace.getTracer('agent-incidents') */
  readonly tracer?: Tracer;
  /** `gen_ai.agent.name`; also names the run span `invoke_agent <name>`. */
  readonly agentName?: string;
  /** `gen_ai.provider.name` of the run and its attempts. */
  readonly providerName?: string;
  /** `gen_ai.request.model` default for attempts. */
  readonly model?: string;
  /** `gen_ai.conversation.id`. */
  readonly conversationId?: string;
  /** Parent context of the run span. @default the active context */
  readonly parentContext?: Context;
  /** Policy of the in-process verdict; see `Policy` for defaults. */
  readonly policy?: PolicyInput;
  /**
   * The run this one continues after a failure: a resume from a checkpoint
   * or a reassigned task. The run span links to it. @default none
   */
  readonly continues?: ContinuedRun;
  /** Clock in epoch milliseconds (sub-millisecond precision). @default `Date.now()` at the run start, advanced by `performance.now()`, as the OpenTelemetry SDK times spans */
  readonly clock?: () => number;
}

/** The failed run a new run continues ({@link RunRecorderOptions.continues}). */
export interface ContinuedRun {
  /** Span context of the failed run's span (persist `run.span.spanContext()` with the checkpoint). */
  readonly spanContext: SpanContext;
  /** How this run continues it. */
  readonly as: 'resume' | 'reassign';
  /** 1-based number of this resume (`agent_incidents.resume.attempt`). */
  readonly resumeAttempt?: number;
  /** Reassignment cycles before this execution (`agent_incidents.task.retry_count`). */
  readonly taskRetryCount?: number;
}

const LINK_TYPES = { resume: 'resume_of', reassign: 'reassign_of' } as const;

function hr(millis: number): HrTime {
  const seconds = Math.floor(millis / 1000);
  return [seconds, Math.round((millis - seconds * 1000) * 1e6)];
}

/**
 * A clock anchored to the wall clock now and advanced by the monotonic one,
 * as the OpenTelemetry SDK times its spans. `performance.timeOrigin` alone
 * drifts from `Date.now()` in a long-lived process, and fact events would then
 * misorder against the spans of instrumentations in the same run.
 */
function anchoredClock(): () => number {
  const anchor = Date.now() - performance.now();
  return () => anchor + performance.now();
}

/** The start time of an SDK span in epoch milliseconds, when the span exposes it. */
function startMillisOf(span: Span): number | undefined {
  const start = hrTimeToMillis((span as { readonly startTime?: unknown }).startTime);
  return Number.isFinite(start) ? start : undefined;
}

/** The name of an SDK span, when the span exposes it. */
function nameOf(span: Span): string | undefined {
  const name = (span as { readonly name?: unknown }).name;
  return typeof name === 'string' ? name : undefined;
}

/** Stream part types (AI SDK `fullStream`) that are provider progress. */
const TEXT_PARTS = new Set(['text-start', 'text-delta', 'text']);
const REASONING_PARTS = new Set(['reasoning-start', 'reasoning-delta', 'reasoning']);
const OTHER_PROGRESS_PARTS = new Set(['tool-input-delta', 'tool-result', 'tool-error', 'source', 'file']);

/** A recorder handle of a span of the run: its OpenTelemetry span and its view in the fold. */
interface Handle {
  readonly ended: boolean;
  readonly span: Span;
  /** @internal */
  readonly view: RecordedView;
  /** @internal Ends the handle as cut off by the run's end, at `endMillis`. */
  cutAt(endMillis: number): void;
}

/** A fresh view of a span the recorder starts or adopts. */
function viewOf(
  span: Span,
  spanId: string,
  parentSpanId: string | undefined,
  name: string,
  attributes: Attributes,
  startMillis: number,
): RecordedView {
  return new RecordedView(span, spanId, parentSpanId, name, attributes, startMillis);
}

/** Records one run. Create it with {@link RunRecorder.start}. */
export class RunRecorder implements RecoverableRun {
  /** The run span (`invoke_agent`). */
  readonly span: Span;
  readonly #tracer: Tracer;
  readonly #clock: () => number;
  readonly #policy: Policy;
  readonly #options: RunRecorderOptions;
  readonly #context: Context;
  readonly #session: FoldSession;
  /** The run span's view in the fold. */
  readonly #view: RecordedView;
  /** Views of the spans recorded, by their OpenTelemetry span. */
  readonly #views = new Map<Span, RecordedView>();
  readonly #attempts: { readonly key: string; readonly number: number; readonly startMillis: number }[] = [];
  readonly #open = new Set<Handle>();
  /** The verdict and facts at the run's end. */
  #final: { readonly incident: Incident; readonly facts: RunFacts } | undefined;
  /** Per attempt number: its span context, end time, retry-after and usage. */
  readonly #attemptState = new Map<
    number,
    {
      spanContext: SpanContext;
      endMillis?: number;
      retryAfterMillis?: number;
      usage?: AttemptUsage;
      finished?: boolean;
    }
  >();
  readonly #stop = new AbortController();
  readonly #startMillis: number;
  #pendingRetryOf: number | undefined;
  #endMillis: number | undefined;
  #seq = 0;
  #ended = false;

  private constructor(options: RunRecorderOptions) {
    this.#options = options;
    this.#tracer = options.tracer ?? trace.getTracer('agent-incidents');
    this.#clock = options.clock ?? anchoredClock();
    this.#policy = resolvePolicy(options.policy);
    const attributes: Attributes = { [GEN_AI.OPERATION_NAME]: OPERATION.RUN };
    if (options.agentName) attributes[GEN_AI.AGENT_NAME] = options.agentName;
    if (options.providerName) attributes[GEN_AI.PROVIDER_NAME] = options.providerName;
    if (options.model) attributes[GEN_AI.REQUEST_MODEL] = options.model;
    if (options.conversationId) attributes['gen_ai.conversation.id'] = options.conversationId;
    const links: Link[] = [];
    const continued = options.continues;
    if (continued) {
      links.push({ context: continued.spanContext, attributes: { [A.LINK_TYPE]: LINK_TYPES[continued.as] } });
      if (continued.resumeAttempt !== undefined) attributes[A.RESUME_ATTEMPT] = continued.resumeAttempt;
      if (continued.taskRetryCount !== undefined) attributes[A.TASK_RETRY_COUNT] = continued.taskRetryCount;
    }
    const parent = options.parentContext ?? otelContext.active();
    this.#startMillis = this.#clock();
    const name = options.agentName ? `${OPERATION.RUN} ${options.agentName}` : OPERATION.RUN;
    this.span = this.#tracer.startSpan(
      name,
      { kind: SpanKind.INTERNAL, attributes, links, startTime: hr(this.#startMillis) },
      parent,
    );
    // A run started under another run's context is nested in it: it joins that fold.
    const place = sessionIn(parent);
    this.#session = place?.session ?? new Session();
    const id = this.#session.nextId();
    const parentId = place ? (this.#session.idOf(trace.getSpan(parent)) ?? place.runId) : undefined;
    this.#view = viewOf(this.span, id, parentId, name, attributes, this.#startMillis);
    this.#session.bind(this.span, id);
    this.#session.folder.start(this.#view, this.#view, { policy: this.#policy });
    this.#session.addRun(id, { cut: (endMillis) => this.#cutByParent(endMillis) });
    this.#context = withSession(trace.setSpan(parent, this.span), { session: this.#session, runId: id });
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
    return this.#context;
  }

  /** Whether {@link end} was called. */
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
    const number = this.#attempts.length + 1;
    const model = options.model ?? this.#options.model;
    const attributes: Attributes = {
      [GEN_AI.OPERATION_NAME]: 'chat',
      [A.ATTEMPT_NUMBER]: number,
      [GEN_AI.REQUEST_STREAM]: true,
    };
    if (this.#options.providerName) attributes[GEN_AI.PROVIDER_NAME] = this.#options.providerName;
    if (model) attributes[GEN_AI.REQUEST_MODEL] = model;
    const retryLink = this.#takeRetryLink();
    if (retryLink) attributes[A.RETRY_OF_ATTEMPT] = retryLink.number;
    const startMillis = this.#clock();
    const name = model ? `chat ${model}` : 'chat';
    const span = this.#tracer.startSpan(
      name,
      { kind: SpanKind.CLIENT, attributes, links: retryLink ? [retryLink.link] : [], startTime: hr(startMillis) },
      this.#context,
    );
    const view = this.#track(span, name, attributes, startMillis);
    this.#attempts.push({ key: view.spanId, number, startMillis });
    this.#attemptState.set(number, { spanContext: span.spanContext() });
    const attempt = new AttemptRecorder(this, span, view, number);
    this.#open.add(attempt);
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
    const number = this.#attempts.length + 1;
    // The span says it is recorded natively, so readers trust its events over its own attributes.
    span.setAttribute(A.ATTEMPT_NUMBER, number);
    const attributes: Attributes = { [GEN_AI.OPERATION_NAME]: 'chat', [A.ATTEMPT_NUMBER]: number };
    const retryLink = this.#takeRetryLink();
    if (retryLink) {
      span.setAttribute(A.RETRY_OF_ATTEMPT, retryLink.number);
      attributes[A.RETRY_OF_ATTEMPT] = retryLink.number;
      // Links after start are API 1.9+; an older span simply goes without.
      (span as { addLink?: (link: Link) => unknown }).addLink?.(retryLink.link);
    }
    const startMillis = startMillisOf(span) ?? this.#clock();
    const view = this.#track(span, nameOf(span) ?? 'chat', attributes, startMillis);
    this.#attempts.push({ key: view.spanId, number, startMillis });
    this.#attemptState.set(number, { spanContext: span.spanContext() });
    const attempt = new AttemptRecorder(this, span, view, number, false);
    this.#open.add(attempt);
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
    const attributes: Attributes = {
      [GEN_AI.OPERATION_NAME]: OPERATION.TOOL,
      [GEN_AI.TOOL_NAME]: options.name,
      [A.TOOL_SIDE_EFFECTS]: sideEffects,
    };
    if (options.attempt) {
      span.setAttribute(A.ATTEMPT_NUMBER, options.attempt.number);
      attributes[A.ATTEMPT_NUMBER] = options.attempt.number;
      (span as { addLink?: (link: Link) => unknown }).addLink?.({ context: options.attempt.span.spanContext() });
    }
    const view = this.#track(
      span,
      nameOf(span) ?? `${OPERATION.TOOL} ${options.name}`,
      attributes,
      startMillisOf(span) ?? this.#clock(),
    );
    const tool = new ToolRecorder(this, span, view, false);
    this.#open.add(tool);
    this.toolActivity();
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
    const sideEffects = options.sideEffects ?? 'unknown';
    const attributes: Attributes = {
      [GEN_AI.OPERATION_NAME]: OPERATION.TOOL,
      [GEN_AI.TOOL_NAME]: options.name,
      [A.TOOL_SIDE_EFFECTS]: sideEffects,
    };
    if (options.callId) attributes[GEN_AI.TOOL_CALL_ID] = options.callId;
    if (options.attempt) attributes[A.ATTEMPT_NUMBER] = options.attempt.number;
    const startMillis = this.#clock();
    const name = `${OPERATION.TOOL} ${options.name}`;
    const span = this.#tracer.startSpan(
      name,
      {
        kind: SpanKind.INTERNAL,
        attributes,
        startTime: hr(startMillis),
        links: options.attempt ? [{ context: options.attempt.span.spanContext() }] : [],
      },
      this.#context,
    );
    const tool = new ToolRecorder(this, span, this.#track(span, name, attributes, startMillis));
    this.#open.add(tool);
    this.toolActivity();
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
    const attributes: Attributes = number === undefined ? {} : { [A.RETRY_OF_ATTEMPT]: number };
    if (options.delayMillis !== undefined) attributes[A.RETRY_DELAY_MS] = options.delayMillis;
    this.record(this.span, E.RETRY_ISSUED, attributes);
    if (!this.#ended && !this.#stop.signal.aborted) this.#pendingRetryOf = number;
  }

  /**
   * Records what a recovery strategy did (`agent_incidents.recovery_action`
   * on the run span, with the redacted snapshot when given). The processor
   * folds the last one into `incident.recovery.*`, as {@link incident} does.
   */
  recoveryAction(record: RecoveryActionRecord): void {
    const attributes: Attributes = {
      [A.RECOVERY_ACTION]: record.action,
      [A.RECOVERY_REASON]: record.reason,
      // The name is exported: only a safe token, never free text.
      [A.RECOVERY_STRATEGY]: safeCode(record.strategy) ?? 'custom',
    };
    if (record.delayMillis !== undefined) attributes[A.RETRY_DELAY_MS] = record.delayMillis;
    if (record.resumeAttempt !== undefined) attributes[A.RESUME_ATTEMPT] = record.resumeAttempt;
    if (record.taskRetryCount !== undefined) attributes[A.TASK_RETRY_COUNT] = record.taskRetryCount;
    const snapshot = record.snapshot;
    if (snapshot) {
      attributes[A.SNAPSHOT_TURNS] = snapshot.turns;
      attributes[A.SNAPSHOT_ATTEMPTS] = snapshot.attempts;
      if (snapshot.inputTokens !== undefined) attributes[A.SNAPSHOT_INPUT_TOKENS] = snapshot.inputTokens;
      if (snapshot.outputTokens !== undefined) attributes[A.SNAPSHOT_OUTPUT_TOKENS] = snapshot.outputTokens;
      attributes[A.SNAPSHOT_DURATION_MS] = snapshot.durationMillis;
      if (snapshot.costUsd !== undefined) attributes[A.SNAPSHOT_COST_USD] = snapshot.costUsd;
    }
    this.record(this.span, E.RECOVERY_ACTION, attributes);
  }

  /** Each attempt so far with its own verdict: the attempt history a recovery strategy reads. */
  attemptHistory(): AttemptHistoryEntry[] {
    const run = this.#facts();
    const retried = new Set(
      run.facts.flatMap((f) => (f.kind === 'retry_issued' && f.ofAttempt !== undefined ? [f.ofAttempt] : [])),
    );
    return this.#attempts.map((a) => {
      const state = this.#attemptState.get(a.number);
      const verdict = deriveAttemptVerdict(run, a.key, this.#policy);
      return {
        number: a.number,
        startMillis: a.startMillis,
        ...(state?.endMillis !== undefined ? { endMillis: state.endMillis } : {}),
        retried: retried.has(a.key),
        ...(verdict ? { verdict } : {}),
        ...(state?.retryAfterMillis !== undefined ? { retryAfterMillis: state.retryAfterMillis } : {}),
      };
    });
  }

  /** A redacted snapshot of the run now: counts, tokens, cost, durations and the verdict's enums. */
  snapshot(): RunSnapshot {
    const incident = this.incident();
    // Token counts are only claimed when some attempt reported them.
    let inputTokens: number | undefined;
    let outputTokens: number | undefined;
    let costUsd: number | undefined;
    let turns = 0;
    const durations: number[] = [];
    for (const a of this.#attempts) {
      const state = this.#attemptState.get(a.number);
      if (state?.finished) turns++;
      if (state?.endMillis !== undefined) durations.push(Math.max(0, state.endMillis - a.startMillis));
      if (state?.usage?.inputTokens !== undefined) inputTokens = (inputTokens ?? 0) + state.usage.inputTokens;
      if (state?.usage?.outputTokens !== undefined) outputTokens = (outputTokens ?? 0) + state.usage.outputTokens;
      if (state?.usage?.costUsd !== undefined) costUsd = (costUsd ?? 0) + state.usage.costUsd;
    }
    return {
      turns,
      attempts: incident.attempts,
      recoveredAttempts: incident.recoveredAttempts,
      ...(inputTokens !== undefined ? { inputTokens } : {}),
      ...(outputTokens !== undefined ? { outputTokens } : {}),
      ...(costUsd !== undefined ? { costUsd } : {}),
      durationMillis: Math.max(0, (this.#endMillis ?? this.#clock()) - this.#startMillis),
      attemptDurationsMillis: durations,
      outcome: incident.outcome,
      ...(incident.cause ? { cause: incident.cause } : {}),
      ...(incident.causeDetail ? { causeDetail: incident.causeDetail } : {}),
      ...(incident.phase ? { phase: incident.phase } : {}),
    };
  }

  /**
   * Records that a run-wide watchdog fired while no attempt was streaming
   * (a total budget that ran out while a tool ran). A watchdog on a
   * streaming attempt belongs to the attempt: {@link AttemptRecorder.watchdogFired}.
   */
  watchdogFired(options: { readonly phase: WatchdogPhase; readonly budgetMillis?: number }): void {
    const attributes: Attributes = { [A.WATCHDOG_PHASE]: options.phase };
    if (options.budgetMillis !== undefined) attributes[A.WATCHDOG_BUDGET_MS] = options.budgetMillis;
    this.record(this.span, E.WATCHDOG_FIRED, attributes);
  }

  /** Records that the user (or the client) cancelled the run. */
  userCancel(origin: CancelOrigin = 'user_stop'): void {
    this.record(this.span, E.USER_CANCEL, { [A.CANCEL_ORIGIN]: origin });
    this.#abort({ cause: 'user_cancel' });
  }

  /**
   * Records a local lifecycle close (reload, dispose, shutdown). `initiatedAt`
   * (epoch ms or Date) orders it before failures it caused that were recorded first.
   */
  lifecycleClose(options: { readonly kind: LifecycleKind; readonly initiatedAt?: number | Date }): void {
    const attributes: Attributes = { [A.LIFECYCLE_KIND]: options.kind };
    const initiated = options.initiatedAt instanceof Date ? options.initiatedAt.getTime() : options.initiatedAt;
    if (initiated !== undefined && Number.isFinite(initiated)) attributes[A.LIFECYCLE_INITIATED_AT] = initiated;
    this.record(this.span, E.LIFECYCLE_CLOSE, attributes);
    this.#abort({ cause: 'local_lifecycle_close' });
  }

  /** Records that building the provider request failed before any attempt. */
  setupFailure(error: unknown): void {
    const code = classifyError(describeError(error)).code;
    this.record(this.span, E.SETUP_FAILURE, code ? { [A.ERROR_CODE]: code } : {});
  }

  /** Records that the agent process exited. */
  processExit(options: {
    readonly exitCode?: number;
    readonly signal?: string;
    readonly closeReason?: ProcessCloseReason;
  }): void {
    const attributes: Attributes = { [A.PROCESS_CLOSE_REASON]: options.closeReason ?? 'execution_failed' };
    if (options.exitCode !== undefined) attributes[A.PROCESS_EXIT_CODE] = options.exitCode;
    if (options.signal) attributes[A.PROCESS_SIGNAL] = options.signal;
    this.record(this.span, E.PROCESS_EXIT, attributes);
  }

  /**
   * The verdict from what was recorded so far, computed by the same pure
   * functions the processor uses on the exported spans.
   */
  incident(): Incident {
    if (this.#final) return this.#final.incident;
    return deriveIncident(this.#facts(), this.#policy);
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

  /** @internal The attempt's end, retry-after and usage, for history and snapshots. */
  attemptEnded(
    number: number,
    details: { readonly retryAfterMillis?: number; readonly usage?: AttemptUsage; readonly finished?: boolean },
  ): void {
    const state = this.#attemptState.get(number);
    if (!state || state.endMillis !== undefined) return;
    state.endMillis = this.#clock();
    if (details.retryAfterMillis !== undefined) state.retryAfterMillis = details.retryAfterMillis;
    if (details.usage) state.usage = details.usage;
    if (details.finished) state.finished = true;
  }

  /** @internal Records a native fact event on `span`, and in its view. */
  record(span: Span, name: string, attributes: Attributes, timeMillis = this.#clock()): void {
    if (this.#ended) return;
    const seq = ++this.#seq;
    const eventAttributes = { ...attributes, [A.SEQ]: seq };
    span.addEvent(name, eventAttributes, hr(timeMillis));
    const view = span === this.span ? this.#view : this.#views.get(span);
    view?.recorded.push({ name, timeMillis, attributes: eventAttributes });
  }

  /** @internal A tool of the run started or ended: the attempts' next tool events are news again. */
  toolActivity(): void {
    for (const handle of this.#open) if (handle instanceof AttemptRecorder) handle.toolActivity();
  }

  /** @internal A span of the run ended: its view ends in the fold. */
  spanEnded(handle: Handle, endMillis: number): void {
    this.#open.delete(handle);
    if (handle instanceof ToolRecorder) this.toolActivity();
    this.#views.delete(handle.span);
    if (this.#ended) return;
    handle.view.endMillis = endMillis;
    this.#session.folder.end(handle.view, handle.view);
  }

  /** @internal */
  now(): number {
    return this.#clock();
  }

  /** @internal */
  hrTime(millis: number): HrTime {
    return hr(millis);
  }

  /** Starts tracking the view of a span of this run in the fold. */
  #track(span: Span, name: string, attributes: Attributes, startMillis: number): RecordedView {
    const view = viewOf(span, this.#session.nextId(), this.#view.spanId, name, attributes, startMillis);
    this.#session.bind(span, view.spanId);
    this.#views.set(span, view);
    this.#session.folder.start(view, view);
    return view;
  }

  /** The run's facts: final once it ended, else as they stand (open tools count as running). */
  #facts(): RunFacts {
    if (this.#final) return this.#final.facts;
    return this.#session.folder.peek(this.#view.spanId, (v) => v) ?? { facts: [], attempts: [] };
  }

  /**
   * Ends the run at `endMillis`: cuts off what is still open, then ends the
   * run span's view and the span. `byParent`: the run is nested and its parent
   * ended first, so the run span is marked `incident.truncated` too.
   */
  #finish(endMillis: number, byParent: boolean): void {
    this.#ended = true;
    this.#endMillis = endMillis;
    this.#session.removeRun(this.#view.spanId);
    for (const handle of [...this.#open]) handle.cutAt(endMillis);
    this.#open.clear();
    this.#views.clear();
    const folder = this.#session.folder;
    for (const view of folder.cutOpenSpans(this.#view.spanId)) {
      const nested = folder.isRun(view.spanId) ? this.#session.run(view.spanId) : undefined;
      if (nested) {
        nested.cut(endMillis);
        continue;
      }
      view.endMillis = endMillis;
      folder.end(view, view);
    }
    if (byParent) {
      this.span.setAttribute(ATTR_INCIDENT_TRUNCATED, true);
      this.#view.attributes[ATTR_INCIDENT_TRUNCATED] = true;
    }
    this.#view.endMillis = endMillis;
    const folded = folder.end(this.#view, this.#view);
    if (folded?.kind === 'run') this.#final = { incident: folded.incident, facts: folded.facts };
    this.span.end(hr(endMillis));
  }

  /** The parent run ended while this nested run was open: it is cut off there. */
  #cutByParent(endMillis: number): void {
    if (!this.#ended) this.#finish(endMillis, true);
  }

  #abort(reason: RunStopReason): void {
    if (this.#ended || this.#stop.signal.aborted) return;
    // An abandoned retry links nothing: a later attempt the user asks for is not its retry.
    this.#pendingRetryOf = undefined;
    this.#stop.abort(reason);
  }

  /** The link of the next attempt to the one a retry was issued for, once. */
  #takeRetryLink(): { readonly number: number; readonly link: Link } | undefined {
    const number = this.#pendingRetryOf;
    this.#pendingRetryOf = undefined;
    const spanContext = number === undefined ? undefined : this.#attemptState.get(number)?.spanContext;
    if (number === undefined || !spanContext) return undefined;
    return {
      number,
      link: { context: spanContext, attributes: { [A.LINK_TYPE]: 'retry_of', [A.RETRY_OF_ATTEMPT]: number } },
    };
  }
}

/** Records one provider attempt. Every method is a no-op once the attempt ended. */
export class AttemptRecorder implements Handle {
  /** The attempt span (`chat`). */
  readonly span: Span;
  /** 1-based number of the attempt within its run. */
  readonly number: number;
  /** @internal The attempt's view in the fold. */
  readonly view: RecordedView;
  readonly #run: RunRecorder;
  readonly #once = new Set<string>();
  /**
   * What a reader concludes from this attempt's tool events so far (docs/attributes.md#phases):
   * whether tool input streamed, which kinds of complete calls exist, and whether the
   * last fact was tool input, a complete call, or something else.
   */
  readonly #tools: { input: boolean; phase: 'input' | 'materialized' | 'other'; readonly materialized: Set<string> } = {
    input: false,
    phase: 'other',
    materialized: new Set(),
  };
  /** False for an adopted span: its owner sets its status and ends it. */
  readonly #owned: boolean;
  #ended = false;

  /** @internal */
  constructor(run: RunRecorder, span: Span, view: RecordedView, number: number, owned = true) {
    this.#run = run;
    this.span = span;
    this.view = view;
    this.number = number;
    this.#owned = owned;
  }

  /** @internal The attempt's key in the fold. */
  get key(): string {
    return this.view.spanId;
  }

  /** Whether the attempt ended (finished, failed or watchdog). */
  get ended(): boolean {
    return this.#ended;
  }

  /** Records the tools exposed to this request (its side-effect boundary). */
  recordBoundary(boundary: BoundaryInput): void {
    const byClass = (c: ToolSideEffects) =>
      boundary.tools.filter((t) => (t.sideEffects ?? 'unknown') === c).map((t) => t.name);
    this.#record(E.SIDE_EFFECT_BOUNDARY, {
      [A.BOUNDARY_READ_ONLY]: byClass('read_only'),
      [A.BOUNDARY_UNSAFE]: byClass('unsafe'),
      [A.BOUNDARY_UNKNOWN]: byClass('unknown'),
      [A.BOUNDARY_PROVIDER_EXECUTED]: boundary.tools.filter((t) => t.providerExecuted).map((t) => t.name),
      [A.BOUNDARY_EXTERNAL]: boundary.external === true,
    });
  }

  /**
   * Records one stream part by its type (the AI SDK `fullStream` part types).
   * Lifecycle-only parts (`start`, `stream-start`, `response-metadata`,
   * `start-step`, `finish-step`, `finish`) are not progress and record nothing.
   */
  chunk(
    type: string,
    details: {
      readonly toolName?: string;
      readonly toolCallId?: string;
      readonly sideEffects?: ToolSideEffects;
      readonly providerExecuted?: boolean;
    } = {},
  ): void {
    // Text, reasoning and tool facts imply provider progress, so they are not
    // doubled with a provider_progress event: one event per state change.
    if (TEXT_PARTS.has(type)) {
      this.textOutput();
    } else if (REASONING_PARTS.has(type)) {
      this.reasoningOutput();
    } else if (type === 'tool-input-start') {
      this.toolInputStarted(details.toolName, { providerExecuted: details.providerExecuted });
    } else if (type === 'tool-input-end') {
      this.toolInputCompleted(details.toolName);
    } else if (type === 'tool-call') {
      this.toolCallMaterialized({
        name: details.toolName,
        callId: details.toolCallId,
        sideEffects: details.sideEffects,
        providerExecuted: details.providerExecuted,
      });
    } else if (OTHER_PROGRESS_PARTS.has(type)) {
      this.providerProgress(type);
    }
  }

  /**
   * Records the first real provider output of this attempt that is not text,
   * reasoning or a tool call (those imply progress themselves). Recorded once.
   */
  providerProgress(chunkType?: string): void {
    this.#recordOnce(E.PROVIDER_PROGRESS, chunkType ? { [A.CHUNK_TYPE]: chunkType } : {});
  }

  /** Records that visible text output started (recorded once). */
  textOutput(): void {
    this.#recordOnce(E.TEXT_OUTPUT_STARTED, {});
  }

  /** Records that reasoning output started (recorded once). */
  reasoningOutput(): void {
    this.#recordOnce(E.REASONING_OUTPUT_STARTED, {});
  }

  /** Records that the model started streaming a tool call's input. */
  toolInputStarted(toolName?: string, options: { readonly providerExecuted?: boolean } = {}): void {
    if (this.#ended) return;
    const attributes: Attributes = { [A.TOOL_PROVIDER_EXECUTED]: options.providerExecuted === true };
    if (toolName) attributes[GEN_AI.TOOL_NAME] = toolName;
    this.#record(E.TOOL_INPUT_STARTED, attributes);
    this.#tools.input = true;
    this.#tools.phase = 'input';
  }

  /**
   * Records that a tool call's input finished streaming. Not recorded when it
   * would change nothing a reader concludes (another call's input is already
   * streaming, or a call is already complete): parallel tool calls must not
   * spend the span's event limit on events that say nothing new.
   */
  toolInputCompleted(toolName?: string): void {
    if (this.#ended || (this.#tools.input && this.#tools.phase !== 'other')) return;
    this.#record(E.TOOL_INPUT_COMPLETED, toolName ? { [GEN_AI.TOOL_NAME]: toolName } : {});
    this.#tools.input = true;
    this.#tools.phase = 'input';
  }

  /** @internal A tool of the run started or ended: the next tool event of this attempt says something new again. */
  toolActivity(): void {
    this.#tools.phase = 'other';
  }

  /** Records a complete tool call (it may not run yet), with its side-effect class. */
  toolCallMaterialized(call: {
    readonly name?: string;
    readonly callId?: string;
    /** @default 'unknown' */
    readonly sideEffects?: ToolSideEffects;
    readonly providerExecuted?: boolean;
  }): void {
    const attributes: Attributes = {
      [A.TOOL_SIDE_EFFECTS]: call.sideEffects ?? 'unknown',
      [A.TOOL_PROVIDER_EXECUTED]: call.providerExecuted === true,
    };
    if (call.name) attributes[GEN_AI.TOOL_NAME] = call.name;
    if (call.callId) attributes[GEN_AI.TOOL_CALL_ID] = call.callId;
    if (this.#ended) return;
    // A call of a kind already complete, right after another complete call, says nothing new to a reader.
    const kind = `${String(attributes[A.TOOL_SIDE_EFFECTS])}/${String(attributes[A.TOOL_PROVIDER_EXECUTED])}`;
    if (this.#tools.phase === 'materialized' && this.#tools.materialized.has(kind)) return;
    this.#record(E.TOOL_CALL_MATERIALIZED, attributes);
    this.#tools.materialized.add(kind);
    this.#tools.phase = 'materialized';
  }

  /** Cleanup evidence: a tool part that never ran was closed. Not terminal; recorded once per tool name. */
  pendingToolInterrupted(toolName?: string): void {
    this.#recordOnce(
      `${E.PENDING_TOOL_INTERRUPTED}:${toolName ?? ''}`,
      toolName ? { [GEN_AI.TOOL_NAME]: toolName } : {},
      E.PENDING_TOOL_INTERRUPTED,
    );
  }

  /** Records that a local watchdog fired, and ends the attempt as failed. */
  watchdogFired(options: { readonly phase: WatchdogPhase; readonly budgetMillis?: number }): void {
    const attributes: Attributes = { [A.WATCHDOG_PHASE]: options.phase };
    if (options.budgetMillis !== undefined) attributes[A.WATCHDOG_BUDGET_MS] = options.budgetMillis;
    this.#record(E.WATCHDOG_FIRED, attributes);
    this.#end(SpanStatusCode.ERROR, `watchdog_timeout (${options.phase})`, 'watchdog_timeout');
  }

  /**
   * Records the error that ended the attempt (classified from its cause chain:
   * `TypeError: terminated` → `UND_ERR_SOCKET`) and ends the attempt as failed.
   */
  fail(error: unknown, options: { readonly retryAfterMillis?: number } = {}): void {
    if (this.#ended) return;
    const description = describeError(error);
    const classified = classifyError(description);
    const attributes: Attributes = { [A.ERROR_KIND]: classified.kind };
    if (classified.detail) attributes[A.ERROR_DETAIL] = classified.detail;
    if (classified.code) attributes[A.ERROR_CODE] = classified.code;
    if (classified.retryable !== undefined) attributes[A.ERROR_RETRYABLE] = classified.retryable;
    const wait = options.retryAfterMillis ?? retryAfterMillis(description.retryAfter, this.#run.now());
    if (wait !== undefined && Number.isFinite(wait) && wait >= 0) attributes[A.ERROR_RETRY_AFTER_MS] = wait;
    this.#record(E.PROVIDER_ERROR, attributes);
    this.#run.attemptEnded(this.number, { retryAfterMillis: attributes[A.ERROR_RETRY_AFTER_MS] as number | undefined });
    if (this.#owned && error instanceof Error) this.span.recordException(error, this.#run.hrTime(this.#run.now()));
    const message = error instanceof Error ? error.message : String(error);
    this.#end(SpanStatusCode.ERROR, message, classified.code ?? classified.detail ?? '_OTHER');
  }

  /**
   * Ends the attempt with no fact of its own: what stopped it was recorded on
   * the run (a user cancel aborted the request).
   */
  close(): void {
    this.#end(SpanStatusCode.UNSET);
  }

  /** Records that the attempt's stream finished normally and ends the attempt. */
  finish(options: { readonly finishReasons?: readonly string[]; readonly usage?: AttemptUsage } = {}): void {
    if (this.#ended) return;
    if (options.finishReasons) {
      this.span.setAttribute(GEN_AI.FINISH_REASONS, [...options.finishReasons]);
      // The recorder's own fold reads them as every reader does (docs/conventions.md#finish-reasons-by-meaning).
      this.view.attributes[GEN_AI.FINISH_REASONS] = [...options.finishReasons];
    }
    const usage = options.usage;
    if (usage?.inputTokens !== undefined) this.span.setAttribute(GEN_AI.USAGE_INPUT_TOKENS, usage.inputTokens);
    if (usage?.outputTokens !== undefined) this.span.setAttribute(GEN_AI.USAGE_OUTPUT_TOKENS, usage.outputTokens);
    this.#record(E.ATTEMPT_FINISHED, {});
    this.#run.attemptEnded(this.number, { usage, finished: true });
    this.#end(SpanStatusCode.UNSET);
  }

  #recordOnce(key: string, attributes: Attributes, name = key): void {
    if (this.#once.has(key)) return;
    this.#once.add(key);
    this.#record(name, attributes);
    // Text, reasoning and progress move the phase a reader sees away from tool input.
    this.#tools.phase = 'other';
  }

  #record(name: string, attributes: Attributes): void {
    if (this.#ended) return;
    this.#run.record(this.span, name, attributes);
  }

  #end(code: SpanStatusCode, message?: string, errorType?: string): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#run.attemptEnded(this.number, {});
    const endMillis = this.#run.now();
    if (this.#owned && code === SpanStatusCode.ERROR) {
      this.span.setStatus({ code, message });
      // An `error.type` already on the span is someone else's (docs/attributes.md#span-status-and-errortype).
      if (errorType && errorTypeOf(this.span) === undefined) this.span.setAttribute(GEN_AI.ERROR_TYPE, errorType);
      this.view.statusCode = code;
      this.view.statusMessage = message;
    }
    if (this.#owned) this.span.end(this.#run.hrTime(endMillis));
    this.#run.spanEnded(this, endMillis);
  }

  /** @internal Cut off by the run's end: an owned span ends there, an adopted one is marked for its owner. */
  cutAt(endMillis: number): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#run.attemptEnded(this.number, {});
    markCut(this.span, this.#owned, endMillis, this.#run);
  }
}

/** The `error.type` a span has now, when its SDK exposes its attributes (an SDK span does). */
function errorTypeOf(span: Span): unknown {
  return (span as { readonly attributes?: Readonly<Record<string, unknown>> }).attributes?.[GEN_AI.ERROR_TYPE];
}

/** Marks a span cut off at its run's end (`incident.truncated`); ends it when the recorder owns it. */
function markCut(span: Span, owned: boolean, endMillis: number, run: RunRecorder): void {
  if (!span.isRecording()) return;
  span.setAttribute(ATTR_INCIDENT_TRUNCATED, true);
  if (owned) span.end(run.hrTime(endMillis));
}

/** Records one tool execution. Every method is a no-op once the tool ended. */
export class ToolRecorder implements Handle {
  /** The tool span (`execute_tool`). */
  readonly span: Span;
  /** @internal The tool's view in the fold. */
  readonly view: RecordedView;
  readonly #run: RunRecorder;
  /** False for an adopted span: its owner sets its status and ends it. */
  readonly #owned: boolean;
  #ended = false;

  /** @internal */
  constructor(run: RunRecorder, span: Span, view: RecordedView, owned = true) {
    this.#run = run;
    this.span = span;
    this.view = view;
    this.#owned = owned;
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
    const description = describeError(error);
    const code = toolErrorCode(description);
    const attributes: Attributes = { [A.TOOL_FAILURE_KIND]: classifyToolError(description) };
    if (code) attributes[A.ERROR_CODE] = code;
    this.#run.record(this.span, E.TOOL_EXECUTION_FAILED, attributes);
    if (this.#owned) {
      if (error instanceof Error) this.span.recordException(error);
      const message = error instanceof Error ? error.message : String(error);
      this.span.setStatus({ code: SpanStatusCode.ERROR, message });
      if (errorTypeOf(this.span) === undefined)
        this.span.setAttribute(GEN_AI.ERROR_TYPE, code ?? String(attributes[A.TOOL_FAILURE_KIND]));
      this.view.statusCode = SpanStatusCode.ERROR;
    }
    this.#end(this.#run.now());
  }

  /** Records that the running tool was interrupted (aborted) and ends its span. */
  interrupt(): void {
    if (this.#ended) return;
    this.#run.record(this.span, E.TOOL_EXECUTION_INTERRUPTED, {});
    if (this.#owned) {
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: 'tool execution interrupted' });
      this.view.statusCode = SpanStatusCode.ERROR;
    }
    this.#end(this.#run.now());
  }

  /** @internal Cut off by the run's end: still running as far as anyone can tell. */
  cutAt(endMillis: number): void {
    if (this.#ended) return;
    this.#ended = true;
    markCut(this.span, this.#owned, endMillis, this.#run);
  }

  #end(time: number): void {
    this.#ended = true;
    if (this.#owned) this.span.end(this.#run.hrTime(time));
    this.#run.spanEnded(this, time);
  }
}

/**
 * The Vercel AI SDK integration (`ai` 6 and 7): one agent run around `streamText` /
 * `generateText` calls. It owns the run span (`invoke_agent`), and records on
 * the SDK's own spans what they cannot show: each attempt's output by stream
 * part, the error and its code through the `cause` chain, why an abort
 * happened (stop, chunk timeout, total timeout), each tool's side-effect
 * class and the side-effect boundary of each request. The verdict it gives
 * in-process is the one the processor exports.
 */
import type { Context, Span, SpanOptions, Tracer } from '@opentelemetry/api';
import { context as otelContext, diag, trace } from '@opentelemetry/api';
// Types of `ai` 6, the version this package compiles against. Only `LanguageModel`
// reaches the public declarations: it exists in 6 and 7 alike, so each user's own `ai` resolves it.
import type { LanguageModel, LanguageModelMiddleware, TelemetryIntegration } from 'ai';
// A namespace import: `ai` 7 exports `registerTelemetry`, 6 does not, and a named import of it would fail on 6.
import * as ai from 'ai';
import { FRAMEWORK_CALL } from '../conventions/gen-ai.js';
import type { PolicyInput } from '../derive/policy.js';
import { resolvePolicy } from '../derive/policy.js';
import type { CancelOrigin, ToolSideEffects } from '../model/enums.js';
import type { Incident } from '../model/incident.js';
import type { AttemptRecorder, ToolRecorder } from '../runtime/run-recorder.js';
import { RunRecorder } from '../runtime/run-recorder.js';
import type { TimeoutSetting } from './abort-reason.js';
import { abortMeaning } from './abort-reason.js';
import { observeStream } from './observe-stream.js';
import type { RequestTool, ToolClassSources, ToolLike } from './tool-classes.js';
import { requestBoundary, isProviderExecuted, toolSideEffects } from './tool-classes.js';

/** Options of {@link startAgentRun} and {@link withAgentRun}. */
export interface AgentRunOptions {
  /** `gen_ai.agent.name`; names the run span `invoke_agent <name>`. */
  readonly agentName?: string;
  /** `gen_ai.provider.name` of the run (for the `agent.runs` metric). */
  readonly providerName?: string;
  /** `gen_ai.conversation.id`. */
  readonly conversationId?: string;
  /**
   * Tracer of the run span and of the SDK's spans (`ai` 6: unless the call's
   * `experimental_telemetry.tracer` names one; `ai` 7: the run's `@ai-sdk/otel`
   * integration uses it, else `trace.getTracer('gen_ai')`, @ai-sdk/otel's own default).
   * @default trace.getTracer('agent-incidents')
   */
  readonly tracer?: Tracer;
  /**
   * Side-effect class per tool name: `read_only`, `unsafe` or `unknown`.
   * Tools not listed are `unknown` (or `read_only` when in the policy's
   * `trustedReadOnlyTools`); MCP annotations can only lower a class.
   * @default {}
   */
  readonly toolSideEffects?: Readonly<Record<string, ToolSideEffects>>;
  /** The caller's stop signal. When it fires, the run is a user cancel. */
  readonly abortSignal?: AbortSignal;
  /** Origin recorded when `abortSignal` fires. @default 'user_stop' */
  readonly cancelOrigin?: CancelOrigin;
  /** Policy of the in-process verdict; keep it equal to the processor's. */
  readonly policy?: PolicyInput;
  /** Parent context of the run span. @default the active context */
  readonly parentContext?: Context;
}

/**
 * The telemetry options of an AI SDK call that the run reads: `experimental_telemetry`
 * in `ai` 6, `telemetry` in 7 (which still reads `experimental_telemetry` when
 * `telemetry` is absent). Declared here, not imported, so the declarations
 * compile against either version.
 */
export interface AiSdkTelemetryOptions {
  readonly isEnabled?: boolean;
  readonly recordInputs?: boolean;
  readonly recordOutputs?: boolean;
  readonly functionId?: string;
  /** `ai` 6 only: the tracer of the SDK's spans. In 7 the `OpenTelemetry` integration has it. */
  readonly tracer?: Tracer;
  /** `ai` 6: added to the registered ones; `ai` 7: used instead of them. */
  readonly integrations?: unknown;
}

/** The options of an AI SDK call that the run reads or sets. */
export interface AiSdkCallOptions {
  readonly model: LanguageModel;
  readonly tools?: Readonly<Record<string, unknown>>;
  readonly abortSignal?: AbortSignal;
  readonly timeout?: TimeoutSetting;
  readonly maxRetries?: number;
  /** `ai` 6's telemetry option (deprecated in 7, where it still works when `telemetry` is absent). */
  readonly experimental_telemetry?: AiSdkTelemetryOptions;
  /** `ai` 7's telemetry option. */
  readonly telemetry?: AiSdkTelemetryOptions;
}

/**
 * True when the installed `ai` is 7 or later: its per-call telemetry
 * integrations replace the registered ones instead of joining them, its
 * option is `telemetry`, and spans come from an integration (`@ai-sdk/otel`).
 */
const AI_SDK_7 = typeof (ai as Record<string, unknown>).registerTelemetry === 'function';

/** What the run uses of `@ai-sdk/otel` (AI SDK 7's OpenTelemetry integration, an optional peer). */
interface AiSdkOtelModule {
  readonly OpenTelemetry: new (options: { readonly tracer?: Tracer }) => object;
  readonly LegacyOpenTelemetry?: new (...args: never[]) => object;
}

// A variable specifier: the package is optional, and this one compiles without it installed.
const AI_SDK_OTEL = '@ai-sdk/otel';
/** `@ai-sdk/otel` when `ai` 7 and it are installed; loaded once, when this module loads. */
const aiSdkOtel: AiSdkOtelModule | undefined = AI_SDK_7
  ? await import(AI_SDK_OTEL).then(
      (module: unknown) => (typeof (module as Partial<AiSdkOtelModule>).OpenTelemetry === 'function' ? (module as AiSdkOtelModule) : undefined),
      () => undefined,
    )
  : undefined;

/** Said once per process: `ai` 7 is installed without `@ai-sdk/otel`. */
let warnedNoOtel = false;

/** The integrations `ai` 7 registered with `registerTelemetry` (its global list, as `ai` itself reads it). */
function registeredIntegrations(): readonly object[] {
  const registered = (globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: unknown }).AI_SDK_TELEMETRY_INTEGRATIONS;
  return Array.isArray(registered) ? (registered as object[]) : [];
}

/** One telemetry integration of the run: the `ai` 6 callbacks and the `ai` 7 ones (each version calls only its own). */
interface RunIntegration extends TelemetryIntegration {
  /** `ai` 7: wraps each local tool execution (ours is the innermost wrapper, inside the span integration's context). */
  executeTool?<T>(options: { readonly toolCallId?: string; readonly toolCall?: { readonly toolName?: string }; readonly execute: () => PromiseLike<T> }): PromiseLike<T>;
  /** `ai` 7: the call ended normally. */
  onEnd?(): void;
}

/** The AI SDK's default `maxRetries`. */
const SDK_DEFAULT_MAX_RETRIES = 2;

/** Stream parts that are real output (DESIGN §3): they move the watchdog to `silent_stream`. */
const OUTPUT_PARTS = new Set([
  'text-start', 'text-delta', 'reasoning-start', 'reasoning-delta', 'reasoning-file',
  'tool-input-start', 'tool-input-delta', 'tool-call', 'tool-result', 'file', 'source',
]);

/** Parts of `ai` 7 (LanguageModelV4) recorded as the part of 6 that means the same. */
const SAME_AS: Readonly<Record<string, string>> = { 'reasoning-file': 'reasoning-delta' };

interface StreamPart {
  readonly type: string;
  readonly toolName?: string;
  readonly toolCallId?: string;
  readonly providerExecuted?: boolean;
  readonly error?: unknown;
  readonly finishReason?: unknown;
}

/** One provider request being observed. */
interface ObservedAttempt {
  readonly recorder: AttemptRecorder;
  /** Real output arrived (a chunk watchdog then fired on a silent stream, not on connect). */
  progressSeen: boolean;
}

interface CallState {
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

type LanguageModelV3 = Exclude<LanguageModel, string> & { specificationVersion: 'v3' };

/** Model specifications `wrapLanguageModel` can wrap: `v3` (ai 6 and 7), `v4` (ai 7). */
const OBSERVABLE_SPECIFICATIONS: readonly unknown[] = AI_SDK_7 ? ['v3', 'v4'] : ['v3'];

/**
 * The model object the SDK would call: a string id resolves through the
 * global default provider, or the AI Gateway, as the SDK itself resolves it.
 * Undefined for models of an older specification, which cannot be observed.
 * (Typed as `ai` 6's V3 model, which this package compiles against; with 7 it may be a V4.)
 */
function resolveModel(model: LanguageModel): LanguageModelV3 | undefined {
  const resolved: unknown =
    typeof model === 'string'
      ? ((globalThis as { AI_SDK_DEFAULT_PROVIDER?: { languageModel(id: string): unknown } }).AI_SDK_DEFAULT_PROVIDER ?? ai.gateway).languageModel(model)
      : model;
  const specification = (resolved as { specificationVersion?: unknown } | undefined)?.specificationVersion;
  return OBSERVABLE_SPECIFICATIONS.includes(specification) ? (resolved as LanguageModelV3) : undefined;
}

/**
 * Marks AI SDK 7's root span (`invoke_agent {model}`, which `@ai-sdk/otel`
 * starts for every `streamText` / `generateText`) as a framework call: inside
 * the run it is part of the run, as AI SDK 6's `ai.streamText` is, and not a
 * sub-agent with a verdict of its own. Everything else passes through.
 */
function markingFrameworkCalls(tracer: Tracer, started: (span: Span) => void): Tracer {
  return {
    startSpan(name: string, options?: SpanOptions, context?: Context): Span {
      if (options?.attributes?.['gen_ai.operation.name'] !== 'invoke_agent') return tracer.startSpan(name, options, context);
      const span = tracer.startSpan(name, { ...options, attributes: { ...options.attributes, [FRAMEWORK_CALL]: true } }, context);
      started(span);
      return span;
    },
    // Not used by @ai-sdk/otel 1.x; delegated unmarked.
    startActiveSpan: ((...args: unknown[]) => (tracer.startActiveSpan as (...args: unknown[]) => unknown).apply(tracer, args)) as Tracer['startActiveSpan'],
  };
}

/** The span's name, when the span exposes it (SDK spans do). */
function spanName(span: Span): string | undefined {
  const name = (span as { readonly name?: unknown }).name;
  return typeof name === 'string' ? name : undefined;
}

/** Runs an observer; what it throws never reaches the caller's AI SDK call. */
function quietly(body: () => void): void {
  try {
    body();
  } catch (error) {
    diag.debug('agent-incidents/ai-sdk: an observer failed; the call goes on unobserved', error);
  }
}

function finishReasonOf(part: StreamPart): string | undefined {
  const reason = part.finishReason as { unified?: unknown } | string | undefined;
  if (typeof reason === 'string') return reason;
  return typeof reason?.unified === 'string' ? reason.unified : undefined;
}

/**
 * One agent run of AI SDK calls. Create it with {@link startAgentRun}, or let
 * {@link withAgentRun} manage it.
 */
export class AiSdkRun {
  /** The recorder of the run; its span is the run span. */
  readonly recorder: RunRecorder;
  readonly #controller = new AbortController();
  readonly #options: AgentRunOptions;
  readonly #trustedReadOnly: readonly string[];
  readonly #attempts: AttemptRecorder[] = [];
  readonly #tools = new Map<string, ToolRecorder>();
  /** SDK spans the SDK may leave open (its call spans), ended with the run. */
  readonly #sdkSpans: Span[] = [];
  /** Calls of this run, so `end()` can stop watching their signals. */
  readonly #calls: CallState[] = [];
  /** SDK spans adopted as attempts: `ai` 7's generateText retries inside one `chat` span, which only the first adopts. */
  readonly #adopted = new WeakSet<Span>();
  /** The tracer `ai` 7's SDK spans go to (the run's, marking framework calls); made on first use. */
  #sdkTracer?: Tracer;
  /** A call's model could not be observed: its errors are not known to be setup failures. */
  #unobserved = false;
  readonly #signal: AbortSignal;
  #cancelOrigin: CancelOrigin;
  #cancelRecorded = false;

  /** @internal Use {@link startAgentRun}. */
  constructor(options: AgentRunOptions) {
    this.#options = options;
    this.#cancelOrigin = options.cancelOrigin ?? 'user_stop';
    this.#trustedReadOnly = resolvePolicy(options.policy).trustedReadOnlyTools;
    this.recorder = RunRecorder.start({
      tracer: options.tracer,
      agentName: options.agentName,
      providerName: options.providerName,
      conversationId: options.conversationId,
      parentContext: options.parentContext,
      policy: options.policy,
    });
    this.#signal = options.abortSignal ? AbortSignal.any([options.abortSignal, this.#controller.signal]) : this.#controller.signal;
  }

  /** Aborts when the caller stops or {@link cancel} is called; `callOptions` passes it to the SDK. */
  get abortSignal(): AbortSignal {
    return this.#signal;
  }

  /** The run span. */
  get span(): Span {
    return this.recorder.span;
  }

  /**
   * Returns `options` ready for `streamText` / `generateText`: the model
   * observed per attempt, telemetry on (your `recordInputs`, `recordOutputs`,
   * `functionId` and `metadata` are kept) with the run's tracer and tool
   * hooks, and the run's abort signal merged with yours. Call the SDK inside
   * {@link with} (or {@link withAgentRun}) so its spans nest in the run.
   *
   * With `ai` 6 it sets `experimental_telemetry`. With `ai` 7 it sets
   * `telemetry`: its integrations are yours (or, when you pass none, the
   * registered ones), plus the run's; with `@ai-sdk/otel` installed, an
   * `OpenTelemetry` integration on the run's tracer takes the place of any
   * `OpenTelemetry` you registered, so the SDK's spans nest in the run (a
   * `LegacyOpenTelemetry` of yours is kept instead). Without `@ai-sdk/otel`
   * the run records attempts and tools on spans of its own.
   */
  callOptions<O extends AiSdkCallOptions>(options: O): O {
    const tools = (options.tools ?? {}) as Readonly<Record<string, ToolLike | undefined>>;
    const state: CallState = {
      sources: { declared: this.#options.toolSideEffects, trustedReadOnly: this.#trustedReadOnly, tools },
      timeout: options.timeout,
      maxRetries: options.maxRetries ?? SDK_DEFAULT_MAX_RETRIES,
      failuresInARow: 0,
      watching: false,
      runningTools: 0,
      finished: false,
    };
    this.#calls.push(state);
    const observable = resolveModel(options.model);
    if (!observable) {
      this.#unobserved = true;
      diag.warn('agent-incidents/ai-sdk: the model is not a LanguageModelV3 (or V4 with ai 7); its attempts are not observed, only the SDK spans are read.');
    }
    const model = observable ? ai.wrapLanguageModel({ model: observable, middleware: this.#middleware(state) }) : options.model;
    const abortSignal = options.abortSignal ? AbortSignal.any([options.abortSignal, this.#signal]) : this.#signal;
    if (AI_SDK_7) {
      const { experimental_telemetry: legacy, telemetry: current, ...rest } = options;
      return { ...rest, model, abortSignal, telemetry: this.#telemetry7(current ?? legacy ?? {}, state) } as unknown as O;
    }
    const telemetry = options.experimental_telemetry ?? {};
    const integrations = telemetry.integrations === undefined ? [] : Array.isArray(telemetry.integrations) ? telemetry.integrations : [telemetry.integrations];
    return {
      ...options,
      model,
      abortSignal,
      experimental_telemetry: {
        ...telemetry,
        isEnabled: true,
        tracer: telemetry.tracer ?? this.#options.tracer ?? trace.getTracer('agent-incidents'),
        integrations: [...integrations, this.#integration(state)],
      },
    };
  }

  /**
   * `ai` 7's telemetry options for one call: on (the run's integration needs
   * the SDK's callbacks), the run's integration first (so its tool wrapper
   * runs inside the span integration's tool context), then the span
   * integration on the run's tracer, then the other integrations.
   */
  #telemetry7(telemetry: AiSdkTelemetryOptions, state: CallState): Record<string, unknown> {
    const { tracer, integrations: given, ...rest } = telemetry;
    const chosen: readonly object[] = given === undefined ? registeredIntegrations() : Array.isArray(given) ? (given as object[]) : [given as object];
    const own = this.#integration(state);
    const otel = aiSdkOtel;
    if (!otel) {
      if (!warnedNoOtel) {
        warnedNoOtel = true;
        diag.warn('agent-incidents/ai-sdk: ai 7 without @ai-sdk/otel: the SDK records no spans; the run records its attempts and tools on spans of its own.');
      }
      return { ...rest, isEnabled: true, integrations: [own, ...chosen] };
    }
    const legacy = otel.LegacyOpenTelemetry;
    if (legacy && chosen.some((integration) => integration instanceof legacy)) {
      // AI SDK 6-style spans (`ai.streamText` is a framework call already): kept as the user chose them.
      return { ...rest, isEnabled: true, integrations: [own, ...chosen] };
    }
    // @ai-sdk/otel's own default tracer is `gen_ai`; the run's `tracer` option, or the per-call `tracer` of 6, wins.
    this.#sdkTracer ??= markingFrameworkCalls(tracer ?? this.#options.tracer ?? trace.getTracer('gen_ai'), (span) => this.#sdkSpans.push(span));
    const others = chosen.filter((integration) => !(integration instanceof otel.OpenTelemetry));
    return { ...rest, isEnabled: true, integrations: [own, new otel.OpenTelemetry({ tracer: this.#sdkTracer }), ...others] };
  }

  /** Runs `fn` with the run span active, so the SDK's spans become its children. */
  with<T>(fn: () => T): T {
    return otelContext.with(this.recorder.context, fn);
  }

  /** Stops the run: aborts its calls and records a user cancel with `origin`. */
  cancel(origin: CancelOrigin = 'user_stop'): void {
    this.#cancelOrigin = origin;
    this.#recordCancel(origin);
    this.#controller.abort(new DOMException('The run was cancelled', 'AbortError'));
  }

  /**
   * Records an error the caller saw. Errors of provider attempts are already
   * recorded by the attempt; an error before any attempt is a setup failure.
   */
  fail(error: unknown): void {
    if (this.#attempts.length === 0 && !this.#unobserved && !this.#signal.aborted) this.recorder.setupFailure(error);
  }

  /** The verdict from what was recorded so far. */
  incident(): Incident {
    return this.recorder.incident();
  }

  /**
   * Ends the run and returns its verdict. Spans the SDK leaves open after an
   * attempt already ended (a broken stream, an abort) are ended now and marked
   * `incident.truncated`; an attempt that never ended is left to the
   * processor, which closes it as cut off.
   */
  end(): Incident {
    if (this.recorder.ended) return this.recorder.incident();
    if (this.#signal.aborted) this.#recordCancel(this.#cancelOrigin);
    for (const call of this.#calls) {
      call.finished = true;
      call.unwatch?.();
    }
    for (const attempt of this.#attempts) {
      if (attempt.ended) this.#endLeaked(attempt.span);
    }
    for (const span of this.#sdkSpans) this.#endLeaked(span);
    return this.recorder.end();
  }

  /**
   * Ends a span the SDK left open although what it stands for ended (its
   * attempt's finish or failure is recorded): not cut off, so not marked
   * `incident.truncated`, which would read as open at the run's end.
   */
  #endLeaked(span: Span): void {
    if (!span.isRecording()) return;
    span.end();
  }

  #recordCancel(origin: CancelOrigin): void {
    if (this.#cancelRecorded) return;
    this.#cancelRecorded = true;
    this.recorder.userCancel(origin);
  }

  /** Starts observing one provider request: adopts the SDK's attempt span (or starts one). */
  #startAttempt(state: CallState, requestTools: readonly RequestTool[] | undefined, signal: AbortSignal | undefined): ObservedAttempt {
    const boundary = requestBoundary(requestTools, state.sources);
    const active = trace.getActiveSpan();
    // With telemetry on, the SDK's doStream/doGenerate span (ai 6) or `chat` span (ai 7) is active here;
    // without it, or when it is already an attempt (ai 7's generateText retries in one span), record our own.
    const adoptable = active !== undefined && active.isRecording() && active !== this.recorder.span && !this.#adopted.has(active);
    if (adoptable) this.#adopted.add(active);
    const recorder = adoptable ? this.recorder.adoptAttempt(active, { boundary }) : this.recorder.startAttempt({ boundary });
    this.#attempts.push(recorder);
    const attempt: ObservedAttempt = { recorder, progressSeen: false };
    state.current = attempt;
    if (signal && !state.watching) {
      state.watching = true;
      state.signal = signal;
      if (signal.aborted) {
        this.#aborted(state, signal.reason);
      } else {
        const onAbort = (): void => quietly(() => this.#aborted(state, signal.reason));
        signal.addEventListener('abort', onAbort, { once: true });
        state.unwatch = () => signal.removeEventListener('abort', onAbort);
      }
    }
    return attempt;
  }

  /**
   * Records why the call was aborted: on the attempt that was streaming, or
   * on the run when none was (a total timeout while a tool ran).
   */
  #aborted(state: CallState, reason: unknown): void {
    if (state.finished) return;
    const attempt = state.current;
    const streaming = attempt !== undefined && !attempt.recorder.ended;
    // Between attempts with no tool running (the SDK's total timer outliving a
    // failed call), an abort of this call stops nothing.
    if (!streaming && state.runningTools === 0 && !this.#signal.aborted) return;
    const meaning = abortMeaning({
      reason,
      ownAborted: this.#signal.aborted,
      ownOrigin: this.#cancelOrigin,
      progressSeen: attempt?.progressSeen ?? false,
      timeout: state.timeout,
    });
    if (meaning.kind === 'watchdog') {
      const watchdog = { phase: meaning.phase, budgetMillis: meaning.budgetMillis };
      if (streaming) attempt.recorder.watchdogFired(watchdog);
      else this.recorder.watchdogFired(watchdog);
      return;
    }
    this.#recordCancel(meaning.origin);
    if (streaming) attempt.recorder.close();
  }

  #failedBeforeStream(state: CallState, { recorder }: ObservedAttempt, error: unknown, signal: AbortSignal | undefined): void {
    if (signal?.aborted) return; // the abort listener recorded why
    recorder.fail(error);
    state.failuresInARow += 1;
    // The SDK retries a retryable rejection while its budget lasts; say so before the backoff.
    if ((error as { isRetryable?: unknown } | undefined)?.isRetryable === true && state.failuresInARow <= state.maxRetries) {
      this.recorder.retryIssued(recorder);
    }
  }

  #onPart(state: CallState, attempt: ObservedAttempt, observed: StreamPart): void {
    const { recorder } = attempt;
    const same = SAME_AS[observed.type];
    const part = same === undefined ? observed : { ...observed, type: same };
    if (OUTPUT_PARTS.has(part.type)) attempt.progressSeen = true;
    if (part.type === 'error') {
      recorder.fail(part.error);
    } else if (part.type === 'finish') {
      const reason = finishReasonOf(part);
      recorder.finish(reason ? { finishReasons: [reason] } : {});
    } else if (part.type === 'tool-input-start' || part.type === 'tool-call') {
      const name = part.toolName;
      const tool = name === undefined ? undefined : state.sources.tools?.[name];
      recorder.chunk(part.type, {
        toolName: name,
        toolCallId: part.toolCallId,
        sideEffects: name === undefined ? 'unknown' : toolSideEffects(name, state.sources),
        providerExecuted: part.providerExecuted === true || (tool !== undefined && isProviderExecuted(tool)),
      });
    } else {
      recorder.chunk(part.type);
    }
  }

  /** Starts observing, or gives up quietly: the call itself must go on. */
  #observe(start: () => ObservedAttempt): ObservedAttempt | undefined {
    let attempt: ObservedAttempt | undefined;
    quietly(() => {
      attempt = start();
    });
    return attempt;
  }

  /**
   * `ai` 7: one local tool execution. The span integration's tool span is
   * active here (the run's wrapper is the innermost): `execute_tool <name>`
   * from `OpenTelemetry`, `ai.toolCall` from `LegacyOpenTelemetry`. It is
   * adopted; without one, the run records the tool on a span of its own.
   */
  async #executeTool<T>(state: CallState, name: string, execute: () => PromiseLike<T>): Promise<T> {
    let tool: ToolRecorder | undefined;
    quietly(() => {
      const sideEffects = toolSideEffects(name, state.sources);
      const attempt = this.#attempts.at(-1);
      const active = trace.getActiveSpan();
      const activeName = active === undefined ? undefined : spanName(active);
      const isToolSpan = active !== undefined && active.isRecording() && active !== this.recorder.span && (activeName?.startsWith('execute_tool') === true || activeName === 'ai.toolCall');
      tool = isToolSpan ? this.recorder.adoptTool(active, { name, sideEffects, attempt }) : this.recorder.startTool({ name, sideEffects, attempt });
    });
    state.runningTools += 1;
    try {
      const value = await execute();
      quietly(() => tool?.complete());
      return value;
    } catch (error) {
      // Stopped by the call's abort (a stop or a watchdog), the tool did not fail: it was interrupted.
      quietly(() => (state.signal?.aborted || this.#signal.aborted ? tool?.interrupt() : tool?.fail(error)));
      throw error;
    } finally {
      state.runningTools = Math.max(0, state.runningTools - 1);
    }
  }

  #middleware(state: CallState): LanguageModelMiddleware {
    return {
      specificationVersion: 'v3',
      wrapStream: async ({ doStream, params }) => {
        const attempt = this.#observe(() => this.#startAttempt(state, params.tools, params.abortSignal));
        if (!attempt) return doStream();
        let result: Awaited<ReturnType<typeof doStream>>;
        try {
          result = await doStream();
        } catch (error) {
          quietly(() => this.#failedBeforeStream(state, attempt, error, params.abortSignal));
          throw error;
        }
        state.failuresInARow = 0;
        const stream = observeStream(result.stream as ReadableStream<StreamPart>, {
          part: (part) => this.#onPart(state, attempt, part),
          error: (error) => {
            if (!params.abortSignal?.aborted) attempt.recorder.fail(error);
          },
          close: () => attempt.recorder.finish(),
          cancel: () => undefined,
        });
        return { ...result, stream: stream as typeof result.stream };
      },
      wrapGenerate: async ({ doGenerate, params }) => {
        const attempt = this.#observe(() => this.#startAttempt(state, params.tools, params.abortSignal));
        if (!attempt) return doGenerate();
        let result: Awaited<ReturnType<typeof doGenerate>>;
        try {
          result = await doGenerate();
        } catch (error) {
          quietly(() => this.#failedBeforeStream(state, attempt, error, params.abortSignal));
          throw error;
        }
        state.failuresInARow = 0;
        quietly(() => {
          for (const part of result.content as readonly StreamPart[]) {
            const type = part.type === 'text' ? 'text-delta' : part.type === 'reasoning' ? 'reasoning-delta' : part.type;
            this.#onPart(state, attempt, { ...part, type });
          }
          this.#onPart(state, attempt, { type: 'finish', finishReason: result.finishReason });
        });
        return result;
      },
    };
  }

  #integration(state: CallState): RunIntegration {
    const finished = (): void => {
      state.finished = true;
      state.unwatch?.();
    };
    return {
      onStart: () => {
        // ai 6 calls it inside the SDK's call span (streamText's may never end on a broken stream);
        // ai 7 outside any SDK span (the marking tracer collects its root span instead).
        const span = trace.getActiveSpan();
        if (!AI_SDK_7 && span?.isRecording() && span !== this.recorder.span) this.#sdkSpans.push(span);
      },
      onFinish: finished,
      onEnd: finished,
      executeTool: ({ toolCall, execute }) => this.#executeTool(state, toolCall?.toolName ?? 'unknown', execute),
      onToolCallStart: (event) => {
        state.runningTools += 1;
        const span = trace.getActiveSpan();
        if (!span?.isRecording()) return;
        const name = event.toolCall.toolName;
        const tool = this.recorder.adoptTool(span, {
          name,
          sideEffects: toolSideEffects(name, state.sources),
          attempt: this.#attempts.at(-1),
        });
        this.#tools.set(event.toolCall.toolCallId, tool);
      },
      onToolCallFinish: (event) => {
        state.runningTools = Math.max(0, state.runningTools - 1);
        const tool = this.#tools.get(event.toolCall.toolCallId);
        if (!tool) return;
        this.#tools.delete(event.toolCall.toolCallId);
        if (event.success) tool.complete();
        // Stopped by the call's abort (a stop or a watchdog), the tool did not fail: it was interrupted.
        else if (event.abortSignal?.aborted || this.#signal.aborted) tool.interrupt();
        else tool.fail(event.error);
      },
    };
  }
}

/**
 * Starts an agent run. Pass `run.callOptions({...})` to each AI SDK call,
 * make the calls inside `run.with(...)`, and call `run.end()` when done.
 * @example
 * const run = startAgentRun({ agentName: 'coder', toolSideEffects: { read_file: 'read_only', run_shell: 'unsafe' } });
 * try {
 *   const result = run.with(() => streamText(run.callOptions({ model, tools, prompt })));
 *   for await (const part of result.fullStream) render(part);
 * } catch (error) {
 *   run.fail(error);
 * } finally {
 *   const incident = run.end();
 * }
 */
export function startAgentRun(options: AgentRunOptions = {}): AiSdkRun {
  return new AiSdkRun(options);
}

/** How a run managed by {@link withAgentRun} ended. */
export type AgentRunResult<T> =
  | { readonly ok: true; readonly value: T; readonly incident: Incident }
  | { readonly ok: false; readonly error: unknown; readonly incident: Incident };

/**
 * Runs `fn` as one agent run and returns its verdict with its value or
 * error. Never throws what `fn` throws: a runtime decides on the verdict
 * (`incident.retrySafety`) whether to retry, continue or ask the user.
 * @example
 * const { ok, incident } = await withAgentRun({ agentName: 'coder' }, async (run) => {
 *   const result = streamText(run.callOptions({ model, tools, prompt }));
 *   for await (const part of result.fullStream) render(part);
 * });
 * if (!ok && incident.retrySafety === 'auto_retry') retry();
 */
export async function withAgentRun<T>(options: AgentRunOptions, fn: (run: AiSdkRun) => Promise<T>): Promise<AgentRunResult<T>> {
  const run = startAgentRun(options);
  try {
    const value = await run.with(() => fn(run));
    return { ok: true, value, incident: run.end() };
  } catch (error) {
    run.fail(error);
    return { ok: false, error, incident: run.end() };
  }
}

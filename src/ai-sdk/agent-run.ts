/**
 * The Vercel AI SDK integration (`ai` 6 and 7): one agent run around `streamText` /
 * `generateText` calls. It owns the run span (`invoke_agent`), and records on
 * the SDK's own spans what they cannot show: each attempt's output by stream
 * part, the error and its code through the `cause` chain, why an abort
 * happened (stop, chunk timeout, total timeout), each tool's side-effect
 * class and the side-effect boundary of each request. The verdict it gives
 * in-process is the one the processor exports. This file is the public run;
 * attempts.ts observes provider requests, run-integration.ts the SDK's
 * callbacks and tools, ai-sdk-7.ts wires AI SDK 7's telemetry.
 */
import type { Span } from '@opentelemetry/api';
import { context as otelContext, trace } from '@opentelemetry/api';
import { resolvePolicy } from '../derive/policy.js';
import type { CancelOrigin } from '../model/enums.js';
import type { Incident } from '../model/incident.js';
import { RunRecorder } from '../runtime/run-recorder.js';
import { AI_SDK_7, telemetry7 } from './ai-sdk-7.js';
import { observedModel } from './attempts.js';
import type { AgentRunOptions, AiSdkCallOptions } from './options.js';
import { runIntegration } from './run-integration.js';
import type { CallState } from './run-state.js';
import { RunState } from './run-state.js';
import type { ToolLike } from './tool-classes.js';

/** The AI SDK's default `maxRetries`. */
const SDK_DEFAULT_MAX_RETRIES = 2;

/** The module's way to the private constructor (set by the class's static block). */
let create: (options: AgentRunOptions) => AiSdkRun;

/**
 * One agent run of AI SDK calls. Create it with {@link startAgentRun}, or let
 * {@link withAgentRun} manage it.
 */
export class AiSdkRun {
  /** The recorder of the run; its span is the run span. */
  readonly recorder: RunRecorder;
  readonly #controller = new AbortController();
  readonly #run: RunState;

  static {
    create = (options) => new AiSdkRun(options);
  }

  // Private: runs start with startAgentRun (or withAgentRun).
  private constructor(options: AgentRunOptions) {
    const trustedReadOnly = resolvePolicy(options.policy).trustedReadOnlyTools;
    this.recorder = RunRecorder.start({
      tracer: options.tracer,
      agentName: options.agentName,
      providerName: options.providerName,
      conversationId: options.conversationId,
      parentContext: options.parentContext,
      policy: options.policy,
    });
    const signal = options.abortSignal
      ? AbortSignal.any([options.abortSignal, this.#controller.signal])
      : this.#controller.signal;
    this.#run = new RunState(this.recorder, options, trustedReadOnly, signal);
  }

  /** Aborts when the caller stops or {@link AiSdkRun.cancel} is called; `callOptions` passes it to the SDK. */
  get abortSignal(): AbortSignal {
    return this.#run.signal;
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
   * {@link AiSdkRun.with} (or {@link withAgentRun}) so its spans nest in the run.
   *
   * With `ai` 6 it sets `experimental_telemetry`. With `ai` 7 it sets
   * `telemetry`: its integrations are yours (or, when you pass none, the
   * registered ones), plus the run's; with `@ai-sdk/otel` installed, an
   * `OpenTelemetry` integration on the run's tracer takes the place of any
   * `OpenTelemetry` you registered, so the SDK's spans nest in the run (a
   * `LegacyOpenTelemetry` of yours is kept instead). Without `@ai-sdk/otel`
   * the run records attempts and tools on spans of its own. `@ai-sdk/otel` is
   * the `aiSdkOtel` option, or else loaded from where this package is installed.
   */
  callOptions<O extends AiSdkCallOptions>(options: O): O {
    const run = this.#run;
    const tools = (options.tools ?? {}) as Readonly<Record<string, ToolLike | undefined>>;
    const state: CallState = {
      sources: { declared: run.options.toolSideEffects, trustedReadOnly: run.trustedReadOnly, tools },
      timeout: options.timeout,
      maxRetries: options.maxRetries ?? SDK_DEFAULT_MAX_RETRIES,
      failuresInARow: 0,
      watching: false,
      runningTools: 0,
      finished: false,
    };
    run.calls.push(state);
    const model = observedModel(run, state, options.model);
    const abortSignal = options.abortSignal ? AbortSignal.any([options.abortSignal, run.signal]) : run.signal;
    if (AI_SDK_7) {
      const { experimental_telemetry: legacy, telemetry: current, ...rest } = options;
      return {
        ...rest,
        model,
        abortSignal,
        telemetry: telemetry7(run, current ?? legacy ?? {}, runIntegration(run, state)),
      } as unknown as O;
    }
    const telemetry = options.experimental_telemetry ?? {};
    const integrations =
      telemetry.integrations === undefined
        ? []
        : Array.isArray(telemetry.integrations)
          ? telemetry.integrations
          : [telemetry.integrations];
    return {
      ...options,
      model,
      abortSignal,
      experimental_telemetry: {
        ...telemetry,
        isEnabled: true,
        tracer: telemetry.tracer ?? run.options.tracer ?? trace.getTracer('agent-incidents'),
        integrations: [...integrations, runIntegration(run, state)],
      },
    };
  }

  /** Runs `fn` with the run span active, so the SDK's spans become its children. */
  with<T>(fn: () => T): T {
    return otelContext.with(this.recorder.context, fn);
  }

  /** Stops the run: aborts its calls and records a user cancel with `origin`. */
  cancel(origin: CancelOrigin = 'user_stop'): void {
    this.#run.cancelOrigin = origin;
    this.#run.recordCancel(origin);
    this.#controller.abort(new DOMException('The run was cancelled', 'AbortError'));
  }

  /**
   * Records an error the caller saw. Errors of provider attempts and tools
   * are already recorded where they happened, and a stop is recorded by
   * {@link AiSdkRun.end}; an error before any observed attempt is a setup
   * failure; any other error (a model the run cannot observe, the caller's own
   * code) fails the run as `RunRecorder.fail` does, so a run whose
   * caller got an error never reads success.
   */
  fail(error: unknown): void {
    const run = this.#run;
    if (run.signal.aborted) return;
    if (run.attempts.length === 0 && !run.unobserved) this.recorder.setupFailure(error);
    else this.recorder.fail(error);
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
    const run = this.#run;
    if (this.recorder.ended) return this.recorder.incident();
    if (run.signal.aborted) run.recordCancel(run.cancelOrigin);
    for (const call of run.calls) {
      call.finished = true;
      call.unwatch?.();
    }
    for (const attempt of run.attempts) {
      if (attempt.ended) endLeaked(attempt.span);
    }
    for (const span of run.sdkSpans) endLeaked(span);
    return this.recorder.end();
  }
}

/**
 * Ends a span the SDK left open although what it stands for ended (its
 * attempt's finish or failure is recorded): not cut off, so not marked
 * `incident.truncated`, which would read as open at the run's end.
 */
function endLeaked(span: Span): void {
  if (!span.isRecording()) return;
  span.end();
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
  return create(options);
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
export async function withAgentRun<T>(
  options: AgentRunOptions,
  fn: (run: AiSdkRun) => Promise<T>,
): Promise<AgentRunResult<T>> {
  const run = startAgentRun(options);
  try {
    const value = await run.with(() => fn(run));
    return { ok: true, value, incident: run.end() };
  } catch (error) {
    run.fail(error);
    return { ok: false, error, incident: run.end() };
  }
}

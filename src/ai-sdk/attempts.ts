/**
 * Provider attempts: the call's model wrapped so each request (`doStream` /
 * `doGenerate`) is an attempt of the run, read part by part, with why its
 * abort signal fired.
 */
import { diag, trace } from '@opentelemetry/api';
// Types of `ai` 6, the version this package compiles against (with 7 a model may be a V4).
import type { LanguageModel, LanguageModelMiddleware } from 'ai';
import * as ai from 'ai';
import { abortMeaning } from './abort-reason.js';
import { AI_SDK_7 } from './ai-sdk-7.js';
import { observeStream } from './observe-stream.js';
import { usageOfAiSdk } from './part-usage.js';
import type { CallState, ObservedAttempt, RunState } from './run-state.js';
import { quietly } from './run-state.js';
import type { RequestTool } from './tool-classes.js';
import { isOutputPart, recordStreamPart } from './stream-parts.js';
import { isProviderExecuted, requestBoundary, toolSideEffects } from './tool-classes.js';

interface StreamPart {
  readonly type: string;
  readonly toolName?: string;
  readonly toolCallId?: string;
  readonly providerExecuted?: boolean;
  readonly error?: unknown;
  readonly finishReason?: unknown;
  readonly usage?: unknown;
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
      ? (
          (globalThis as { AI_SDK_DEFAULT_PROVIDER?: { languageModel(id: string): unknown } })
            .AI_SDK_DEFAULT_PROVIDER ?? ai.gateway
        ).languageModel(model)
      : model;
  const specification = (resolved as { specificationVersion?: unknown } | undefined)?.specificationVersion;
  return OBSERVABLE_SPECIFICATIONS.includes(specification) ? (resolved as LanguageModelV3) : undefined;
}

/** The call's model, observed per attempt; unwrapped (and the run told) when it cannot be. */
export function observedModel(run: RunState, state: CallState, model: LanguageModel): LanguageModel {
  const observable = resolveModel(model);
  if (!observable) {
    run.unobserved = true;
    diag.warn(
      'agent-incidents/ai-sdk: the model is not a LanguageModelV3 (or V4 with ai 7); its attempts are not observed, only the SDK spans are read.',
    );
    return model;
  }
  return ai.wrapLanguageModel({ model: observable, middleware: middleware(run, state) });
}

function finishReasonOf(part: StreamPart): string | undefined {
  const reason = part.finishReason as { unified?: unknown } | string | undefined;
  if (typeof reason === 'string') return reason;
  return typeof reason?.unified === 'string' ? reason.unified : undefined;
}

/** Starts observing one provider request: adopts the SDK's attempt span (or starts one). */
function startAttempt(
  run: RunState,
  state: CallState,
  requestTools: readonly RequestTool[] | undefined,
  signal: AbortSignal | undefined,
): ObservedAttempt {
  const boundary = requestBoundary(requestTools, state.sources);
  const active = trace.getActiveSpan();
  // With telemetry on, the SDK's doStream/doGenerate span (ai 6) or `chat` span (ai 7) is active here;
  // without it, or when it is already an attempt (ai 7's generateText retries in one span), record our own.
  const adoptable =
    active !== undefined && active.isRecording() && active !== run.recorder.span && !run.adopted.has(active);
  if (adoptable) run.adopted.add(active);
  const recorder = adoptable
    ? run.recorder.adoptAttempt(active, { boundary })
    : run.recorder.startAttempt({ boundary });
  run.attempts.push(recorder);
  const attempt: ObservedAttempt = { recorder, progressSeen: false };
  state.current = attempt;
  if (signal && !state.watching) {
    state.watching = true;
    state.signal = signal;
    if (signal.aborted) {
      aborted(run, state, signal.reason);
    } else {
      const onAbort = (): void => quietly(() => aborted(run, state, signal.reason));
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
function aborted(run: RunState, state: CallState, reason: unknown): void {
  if (state.finished) return;
  const attempt = state.current;
  const streaming = attempt !== undefined && !attempt.recorder.ended;
  // Between attempts with no tool running (the SDK's total timer outliving a
  // failed call), an abort of this call stops nothing.
  if (!streaming && state.runningTools === 0 && !run.signal.aborted) return;
  const meaning = abortMeaning({
    reason,
    ownAborted: run.signal.aborted,
    ownOrigin: run.cancelOrigin,
    progressSeen: attempt?.progressSeen ?? false,
    timeout: state.timeout,
  });
  if (meaning.kind === 'watchdog') {
    const watchdog = { phase: meaning.phase, budgetMillis: meaning.budgetMillis };
    if (streaming) attempt.recorder.watchdogFired(watchdog);
    else run.recorder.watchdogFired(watchdog);
    return;
  }
  run.recordCancel(meaning.origin);
  if (streaming) attempt.recorder.close();
}

function failedBeforeStream(
  run: RunState,
  state: CallState,
  { recorder }: ObservedAttempt,
  error: unknown,
  signal: AbortSignal | undefined,
): void {
  if (signal?.aborted) return; // the abort listener recorded why
  recorder.fail(error);
  state.failuresInARow += 1;
  // The SDK retries a retryable rejection while its budget lasts; say so before the backoff.
  if (
    (error as { isRetryable?: unknown } | undefined)?.isRetryable === true &&
    state.failuresInARow <= state.maxRetries
  ) {
    run.recorder.retryIssued(recorder);
  }
}

function onPart(state: CallState, attempt: ObservedAttempt, part: StreamPart): void {
  const { recorder } = attempt;
  if (isOutputPart(part.type)) attempt.progressSeen = true;
  if (part.type === 'error') {
    recorder.fail(part.error);
  } else if (part.type === 'finish') {
    const reason = finishReasonOf(part);
    const usage = usageOfAiSdk(part.usage);
    recorder.finish({ ...(reason ? { finishReasons: [reason] } : {}), ...(usage ? { usage } : {}) });
  } else if (part.type === 'tool-input-start' || part.type === 'tool-call') {
    const name = part.toolName;
    const tool = name === undefined ? undefined : state.sources.tools?.[name];
    recordStreamPart(
      recorder,
      {
        type: part.type,
        toolName: name,
        toolCallId: part.toolCallId,
        providerExecuted: part.providerExecuted === true || (tool !== undefined && isProviderExecuted(tool)),
      },
      { sideEffects: name === undefined ? 'unknown' : toolSideEffects(name, state.sources) },
    );
  } else {
    recordStreamPart(recorder, part);
  }
}

/** Starts observing, or gives up quietly: the call itself must go on. */
function observe(start: () => ObservedAttempt): ObservedAttempt | undefined {
  let attempt: ObservedAttempt | undefined;
  quietly(() => {
    attempt = start();
  });
  return attempt;
}

function middleware(run: RunState, state: CallState): LanguageModelMiddleware {
  return {
    specificationVersion: 'v3',
    wrapStream: async ({ doStream, params }) => {
      const attempt = observe(() => startAttempt(run, state, params.tools, params.abortSignal));
      if (!attempt) return doStream();
      let result: Awaited<ReturnType<typeof doStream>>;
      try {
        result = await doStream();
      } catch (error) {
        quietly(() => failedBeforeStream(run, state, attempt, error, params.abortSignal));
        throw error;
      }
      state.failuresInARow = 0;
      const stream = observeStream(result.stream as ReadableStream<StreamPart>, {
        part: (part) => onPart(state, attempt, part),
        error: (error) => {
          if (!params.abortSignal?.aborted) attempt.recorder.fail(error);
        },
        // The stream ended without the provider's finish part (providers always send one: `other` when
        // no finish arrived): a finish that was not shown is not recorded, so the attempt did not finish
        // (docs/conventions.md#finish-reasons-by-meaning). After a finish part, the attempt already ended.
        close: () => attempt.recorder.close(),
        cancel: () => undefined,
      });
      return { ...result, stream: stream as typeof result.stream };
    },
    wrapGenerate: async ({ doGenerate, params }) => {
      const attempt = observe(() => startAttempt(run, state, params.tools, params.abortSignal));
      if (!attempt) return doGenerate();
      let result: Awaited<ReturnType<typeof doGenerate>>;
      try {
        result = await doGenerate();
      } catch (error) {
        quietly(() => failedBeforeStream(run, state, attempt, error, params.abortSignal));
        throw error;
      }
      state.failuresInARow = 0;
      quietly(() => {
        for (const part of result.content as readonly StreamPart[]) {
          const type = part.type === 'text' ? 'text-delta' : part.type === 'reasoning' ? 'reasoning-delta' : part.type;
          onPart(state, attempt, { ...part, type });
        }
        onPart(state, attempt, { type: 'finish', finishReason: result.finishReason, usage: result.usage });
      });
      return result;
    },
  };
}

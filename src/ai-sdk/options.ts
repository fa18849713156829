/**
 * The options of the AI SDK integration: what a run is started with, and
 * what it reads of an AI SDK call. Declared here, not imported from `ai`
 * (beyond `LanguageModel`, which 6 and 7 both export), so the declarations
 * compile against either version.
 */
import type { Context, Tracer } from '@opentelemetry/api';
// Types of `ai` 6, the version this package compiles against. Only `LanguageModel`
// reaches the public declarations: it exists in 6 and 7 alike, so each user's own `ai` resolves it.
import type { LanguageModel } from 'ai';
import type { PolicyInput } from '../derive/policy.js';
import type { CancelOrigin, ToolSideEffects } from '../model/enums.js';
import type { TimeoutSetting } from './abort-reason.js';

/**
 * What the run uses of `@ai-sdk/otel` (AI SDK 7's OpenTelemetry integration):
 * pass the module itself, `import * as aiSdkOtel from '@ai-sdk/otel'`.
 * Typed by shape, so `ai` 6 users need no `@ai-sdk/otel`.
 */
export interface AiSdkOtel {
  /** The integration class the run creates, with its tracer. */
  readonly OpenTelemetry: new (options?: { readonly tracer?: Tracer }) => object;
  /** The integration of older `@ai-sdk/otel` versions, when the module has it. */
  readonly LegacyOpenTelemetry?: abstract new (...args: never[]) => object;
}

/** Options of `startAgentRun` and `withAgentRun`. */
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
   * `ai` 7 only: the `@ai-sdk/otel` module (`import * as aiSdkOtel from '@ai-sdk/otel'`),
   * whose `OpenTelemetry` integration records the SDK's spans inside the run.
   * Without it the run loads `@ai-sdk/otel` itself, synchronously, the first
   * time a call needs it; a bundle that does not include it (the run's own
   * `require` is not one a bundler always follows) then gets no SDK spans,
   * and a warning: pass the module here and the bundler sees your import.
   * `ai` 6 ignores it.
   * @default `@ai-sdk/otel` when it can be loaded
   */
  readonly aiSdkOtel?: AiSdkOtel;
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
 * `telemetry` is absent).
 */
export interface AiSdkTelemetryOptions {
  /** Whether the SDK records telemetry; the run turns it on. */
  readonly isEnabled?: boolean;
  /** Whether the SDK's spans carry the prompts; yours is kept. */
  readonly recordInputs?: boolean;
  /** Whether the SDK's spans carry the outputs; yours is kept. */
  readonly recordOutputs?: boolean;
  /** The SDK's function id of the call; yours is kept. */
  readonly functionId?: string;
  /** `ai` 6 only: the tracer of the SDK's spans. In 7 the `OpenTelemetry` integration has it. */
  readonly tracer?: Tracer;
  /** `ai` 6: added to the registered ones; `ai` 7: used instead of them. */
  readonly integrations?: unknown;
}

/** The options of an AI SDK call that the run reads or sets. */
export interface AiSdkCallOptions {
  /** The call's model: observed per attempt when it is a V3 (or, with `ai` 7, V4) model. */
  readonly model: LanguageModel;
  /** The call's tools, read for their side-effect classes. */
  readonly tools?: Readonly<Record<string, unknown>>;
  /** The call's stop signal, merged with the run's. */
  readonly abortSignal?: AbortSignal;
  /** The call's timeouts: when one fires, the run records its watchdog. */
  readonly timeout?: TimeoutSetting;
  /** The SDK's retry budget, to say when it retries. @default 2 (the AI SDK's default) */
  readonly maxRetries?: number;
  /** `ai` 6's telemetry option (deprecated in 7, where it still works when `telemetry` is absent). */
  readonly experimental_telemetry?: AiSdkTelemetryOptions;
  /** `ai` 7's telemetry option. */
  readonly telemetry?: AiSdkTelemetryOptions;
}

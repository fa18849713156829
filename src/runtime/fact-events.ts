/**
 * The native fact events the recorders write (docs/conventions.md#fact-events),
 * as pure encoders: a fact in, its event name and attributes out. No span, no
 * clock: the recorders add the sequence number and time when they write one.
 */
import type { Attributes } from '@opentelemetry/api';
import type {
  CancelOrigin,
  LifecycleKind,
  ProcessCloseReason,
  ToolSideEffects,
  WatchdogPhase,
} from '../model/enums.js';
import type { RecoveryActionRecord } from '../model/recovery.js';
import { GEN_AI, NATIVE_ATTR as A, NATIVE_EVENT as E } from '../model/native-convention.js';
import { safeCode } from '../derive/classify-error.js';

/** A native fact event before it is written: its name and attributes. */
export interface FactEvent {
  readonly name: string;
  readonly attributes: Attributes;
}

/** One tool exposed to a provider request. */
export interface BoundaryToolInput {
  /** The tool's name, as the model calls it. */
  readonly name: string;
  /** @default 'unknown' */
  readonly sideEffects?: ToolSideEffects;
  /** The provider runs this tool itself. @default false */
  readonly providerExecuted?: boolean;
}

/** The side-effect boundary of a request: every tool it exposes. */
export interface BoundaryInput {
  /** Every tool the request exposes. */
  readonly tools: readonly BoundaryToolInput[];
  /** The request reaches an external system whose effects are not classified. @default false */
  readonly external?: boolean;
}

/** A complete tool call of an attempt (it may not run yet). */
export interface MaterializedCall {
  readonly name?: string;
  readonly callId?: string;
  /** @default 'unknown' */
  readonly sideEffects?: ToolSideEffects;
  /** @default false */
  readonly providerExecuted?: boolean;
}

/** `side_effect_boundary`: the tool names of a request by side-effect class. */
export function sideEffectBoundaryEvent(boundary: BoundaryInput): FactEvent {
  const byClass = (c: ToolSideEffects) =>
    boundary.tools.filter((t) => (t.sideEffects ?? 'unknown') === c).map((t) => t.name);
  return {
    name: E.SIDE_EFFECT_BOUNDARY,
    attributes: {
      [A.BOUNDARY_READ_ONLY]: byClass('read_only'),
      [A.BOUNDARY_UNSAFE]: byClass('unsafe'),
      [A.BOUNDARY_UNKNOWN]: byClass('unknown'),
      [A.BOUNDARY_PROVIDER_EXECUTED]: boundary.tools.filter((t) => t.providerExecuted).map((t) => t.name),
      [A.BOUNDARY_EXTERNAL]: boundary.external === true,
    },
  };
}

/** `provider_progress`, with the type of the chunk that showed it when known. */
export function providerProgressEvent(chunkType?: string): FactEvent {
  return { name: E.PROVIDER_PROGRESS, attributes: chunkType ? { [A.CHUNK_TYPE]: chunkType } : {} };
}

/** `text_output_started`. */
export function textOutputStartedEvent(): FactEvent {
  return { name: E.TEXT_OUTPUT_STARTED, attributes: {} };
}

/** `reasoning_output_started`. */
export function reasoningOutputStartedEvent(): FactEvent {
  return { name: E.REASONING_OUTPUT_STARTED, attributes: {} };
}

/** `tool_input_started`; `providerExecuted` defaults to false. */
export function toolInputStartedEvent(toolName?: string, providerExecuted?: boolean): FactEvent {
  const attributes: Attributes = { [A.TOOL_PROVIDER_EXECUTED]: providerExecuted === true };
  if (toolName) attributes[GEN_AI.TOOL_NAME] = toolName;
  return { name: E.TOOL_INPUT_STARTED, attributes };
}

/** `tool_input_completed`. */
export function toolInputCompletedEvent(toolName?: string): FactEvent {
  return { name: E.TOOL_INPUT_COMPLETED, attributes: toolName ? { [GEN_AI.TOOL_NAME]: toolName } : {} };
}

/** `tool_call_materialized`, with the call's side-effect class (default `unknown`). */
export function toolCallMaterializedEvent(call: MaterializedCall): FactEvent {
  const attributes: Attributes = {
    [A.TOOL_SIDE_EFFECTS]: call.sideEffects ?? 'unknown',
    [A.TOOL_PROVIDER_EXECUTED]: call.providerExecuted === true,
  };
  if (call.name) attributes[GEN_AI.TOOL_NAME] = call.name;
  if (call.callId) attributes[GEN_AI.TOOL_CALL_ID] = call.callId;
  return { name: E.TOOL_CALL_MATERIALIZED, attributes };
}

/** `pending_tool_interrupted`: cleanup evidence that a tool part that never ran was closed. */
export function pendingToolInterruptedEvent(toolName?: string): FactEvent {
  return { name: E.PENDING_TOOL_INTERRUPTED, attributes: toolName ? { [GEN_AI.TOOL_NAME]: toolName } : {} };
}

/** `watchdog_fired`, on an attempt or on the run. */
export function watchdogFiredEvent(options: {
  readonly phase: WatchdogPhase;
  readonly budgetMillis?: number;
}): FactEvent {
  const attributes: Attributes = { [A.WATCHDOG_PHASE]: options.phase };
  if (options.budgetMillis !== undefined) attributes[A.WATCHDOG_BUDGET_MS] = options.budgetMillis;
  return { name: E.WATCHDOG_FIRED, attributes };
}

/** `attempt_finished`: the attempt's stream finished normally. */
export function attemptFinishedEvent(): FactEvent {
  return { name: E.ATTEMPT_FINISHED, attributes: {} };
}

/** `tool_execution_interrupted`. */
export function toolExecutionInterruptedEvent(): FactEvent {
  return { name: E.TOOL_EXECUTION_INTERRUPTED, attributes: {} };
}

/** `retry_issued` for attempt number `ofAttempt` (undefined: the whole run), with its backoff when known. */
export function retryIssuedEvent(ofAttempt: number | undefined, delayMillis?: number): FactEvent {
  const attributes: Attributes = ofAttempt === undefined ? {} : { [A.RETRY_OF_ATTEMPT]: ofAttempt };
  if (delayMillis !== undefined) attributes[A.RETRY_DELAY_MS] = delayMillis;
  return { name: E.RETRY_ISSUED, attributes };
}

/** `recovery_action`, with the redacted snapshot when the record has one. */
export function recoveryActionEvent(record: RecoveryActionRecord): FactEvent {
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
  return { name: E.RECOVERY_ACTION, attributes };
}

/** `user_cancel`. */
export function userCancelEvent(origin: CancelOrigin): FactEvent {
  return { name: E.USER_CANCEL, attributes: { [A.CANCEL_ORIGIN]: origin } };
}

/**
 * `lifecycle_close`. `initiatedAt` (epoch ms or Date) is written only when it
 * is a finite time: it orders the close before failures it caused that were recorded first.
 */
export function lifecycleCloseEvent(options: {
  readonly kind: LifecycleKind;
  readonly initiatedAt?: number | Date;
}): FactEvent {
  const attributes: Attributes = { [A.LIFECYCLE_KIND]: options.kind };
  const initiated = options.initiatedAt instanceof Date ? options.initiatedAt.getTime() : options.initiatedAt;
  if (initiated !== undefined && Number.isFinite(initiated)) attributes[A.LIFECYCLE_INITIATED_AT] = initiated;
  return { name: E.LIFECYCLE_CLOSE, attributes };
}

/** `process_exit`; the close reason defaults to `execution_failed`. */
export function processExitEvent(options: {
  readonly exitCode?: number;
  readonly signal?: string;
  readonly closeReason?: ProcessCloseReason;
}): FactEvent {
  const attributes: Attributes = { [A.PROCESS_CLOSE_REASON]: options.closeReason ?? 'execution_failed' };
  if (options.exitCode !== undefined) attributes[A.PROCESS_EXIT_CODE] = options.exitCode;
  if (options.signal) attributes[A.PROCESS_SIGNAL] = options.signal;
  return { name: E.PROCESS_EXIT, attributes };
}

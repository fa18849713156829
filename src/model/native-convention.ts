/**
 * The native convention: how a runtime records incident facts on GenAI spans
 * so any processor or gateway can read them back. `RunRecorder` writes it;
 * runtimes in other languages can emit it by hand (docs/conventions.md).
 *
 * Spans follow the OpenTelemetry GenAI conventions: `invoke_agent` (the run),
 * `chat` (one provider attempt), `execute_tool` (one tool execution). Facts are
 * span events named `agent_incidents.<fact>` with `agent_incidents.*` attributes.
 */

/** GenAI attribute keys the convention relies on. */
export const GEN_AI = {
  OPERATION_NAME: 'gen_ai.operation.name',
  PROVIDER_NAME: 'gen_ai.provider.name',
  REQUEST_MODEL: 'gen_ai.request.model',
  AGENT_NAME: 'gen_ai.agent.name',
  TOOL_NAME: 'gen_ai.tool.name',
  TOOL_CALL_ID: 'gen_ai.tool.call.id',
  FINISH_REASONS: 'gen_ai.response.finish_reasons',
  TIME_TO_FIRST_CHUNK: 'gen_ai.response.time_to_first_chunk',
  /** AI SDK 7 writes the metric's name as a span attribute (seconds, to the first output chunk). */
  CLIENT_TIME_TO_FIRST_CHUNK: 'gen_ai.client.operation.time_to_first_chunk',
  TOOL_TYPE: 'gen_ai.tool.type',
  /** Tool definitions of a request (JSON); input-gated, like `gen_ai.input.messages`. */
  TOOL_DEFINITIONS: 'gen_ai.tool.definitions',
  INPUT_MESSAGES: 'gen_ai.input.messages',
  REQUEST_STREAM: 'gen_ai.request.stream',
  USAGE_INPUT_TOKENS: 'gen_ai.usage.input_tokens',
  USAGE_OUTPUT_TOKENS: 'gen_ai.usage.output_tokens',
  USAGE_REASONING_TOKENS: 'gen_ai.usage.reasoning.output_tokens',
  USAGE_CACHE_READ_INPUT_TOKENS: 'gen_ai.usage.cache_read.input_tokens',
  HTTP_STATUS: 'http.response.status_code',
  ERROR_TYPE: 'error.type',
} as const;

/**
 * `gen_ai.operation.name` values that mark the span roles
 * (docs/conventions.md#span-roles). Any other value is structure: its fact
 * events are read, the span itself is no attempt, tool or run.
 */
export const OPERATION = {
  RUN: 'invoke_agent',
  /**
   * A workflow (GenAI `invoke_workflow`, reported only by frameworks with a
   * workflow of its own, a CrewAI crew): a run of its own, whose agents are
   * runs nested in it; an LLM call directly under it is its attempt.
   */
  WORKFLOW: 'invoke_workflow',
  ATTEMPTS: ['chat', 'text_completion', 'generate_content'],
  TOOL: 'execute_tool',
  /**
   * Steps of a run: GenAI `plan` (an agent's planning or task decomposition;
   * the LLM call that makes the plan is its child, an attempt of the run) and
   * AI SDK 7's `agent_step`. Structure, never an attempt or a tool.
   */
  STEPS: ['plan', 'agent_step'],
} as const;

/** Span event names of the native convention. */
export const NATIVE_EVENT = {
  SIDE_EFFECT_BOUNDARY: 'agent_incidents.side_effect_boundary',
  PROVIDER_PROGRESS: 'agent_incidents.provider_progress',
  TEXT_OUTPUT_STARTED: 'agent_incidents.text_output_started',
  REASONING_OUTPUT_STARTED: 'agent_incidents.reasoning_output_started',
  TOOL_INPUT_STARTED: 'agent_incidents.tool_input_started',
  TOOL_INPUT_COMPLETED: 'agent_incidents.tool_input_completed',
  TOOL_CALL_MATERIALIZED: 'agent_incidents.tool_call_materialized',
  PENDING_TOOL_INTERRUPTED: 'agent_incidents.pending_tool_interrupted',
  TOOL_EXECUTION_FAILED: 'agent_incidents.tool_execution_failed',
  TOOL_EXECUTION_INTERRUPTED: 'agent_incidents.tool_execution_interrupted',
  WATCHDOG_FIRED: 'agent_incidents.watchdog_fired',
  PROVIDER_ERROR: 'agent_incidents.provider_error',
  ATTEMPT_FINISHED: 'agent_incidents.attempt_finished',
  RETRY_ISSUED: 'agent_incidents.retry_issued',
  USER_CANCEL: 'agent_incidents.user_cancel',
  LIFECYCLE_CLOSE: 'agent_incidents.lifecycle_close',
  SETUP_FAILURE: 'agent_incidents.setup_failure',
  PROCESS_EXIT: 'agent_incidents.process_exit',
  /** What a recovery strategy did (retry, resume, reassign, …), on the run span. */
  RECOVERY_ACTION: 'agent_incidents.recovery_action',
} as const;

/** Attribute keys of the native convention (on spans and on fact events). */
export const NATIVE_ATTR = {
  /** Per-run sequence number of a fact event; breaks ties between equal times. */
  SEQ: 'agent_incidents.seq',
  /** What an attempt cost, in US dollars (double), on `chat` spans: the GenAI conventions have no key for it. */
  USAGE_COST_USD: 'agent_incidents.usage.cost_usd',
  /** 1-based attempt number, on `chat` spans. */
  ATTEMPT_NUMBER: 'agent_incidents.attempt.number',
  /** `read_only` | `unsafe` | `unknown`, on `execute_tool` spans and materialized calls. */
  TOOL_SIDE_EFFECTS: 'agent_incidents.tool.side_effects',
  /** The provider runs this tool itself (boolean). */
  TOOL_PROVIDER_EXECUTED: 'agent_incidents.tool.provider_executed',
  /** Boundary tool lists by class (string[] of tool names). */
  BOUNDARY_READ_ONLY: 'agent_incidents.boundary.read_only_tools',
  BOUNDARY_UNSAFE: 'agent_incidents.boundary.unsafe_tools',
  BOUNDARY_UNKNOWN: 'agent_incidents.boundary.unknown_tools',
  BOUNDARY_PROVIDER_EXECUTED: 'agent_incidents.boundary.provider_executed_tools',
  /** The request reaches an external system whose effects are not classified (boolean). */
  BOUNDARY_EXTERNAL: 'agent_incidents.boundary.external',
  /** Stream part type that counted as progress (`text-delta`, …). */
  CHUNK_TYPE: 'agent_incidents.chunk.type',
  WATCHDOG_PHASE: 'agent_incidents.watchdog.phase',
  WATCHDOG_BUDGET_MS: 'agent_incidents.watchdog.budget_ms',
  /** `transport` | `api` | `unknown`. */
  ERROR_KIND: 'agent_incidents.error.kind',
  ERROR_DETAIL: 'agent_incidents.error.detail',
  ERROR_CODE: 'agent_incidents.error.code',
  ERROR_RETRYABLE: 'agent_incidents.error.retryable',
  /** Tool failure kind (`invalid_arguments`, …). */
  TOOL_FAILURE_KIND: 'agent_incidents.tool.failure_kind',
  /** Number of the attempt a retry was issued for (int). */
  RETRY_OF_ATTEMPT: 'agent_incidents.retry.of_attempt',
  RETRY_DELAY_MS: 'agent_incidents.retry.delay_ms',
  /** `retry-after` the provider sent with an error, in milliseconds (on `provider_error`). */
  ERROR_RETRY_AFTER_MS: 'agent_incidents.error.retry_after_ms',
  /** On a span link: how the linked span relates (`retry_of`, `resume_of`, `reassign_of`). */
  LINK_TYPE: 'agent_incidents.link.type',
  /**
   * `true` on a framework's own `invoke_agent` span for one call (AI SDK 7's root, marked by
   * `agent-incidents/ai-sdk`): read as part of the run it sits in, not as a sub-agent.
   */
  FRAMEWORK_CALL: 'agent_incidents.framework_call',
  /** `retry` | `resume` | … ({@link RECOVERY_ACTIONS}), on `recovery_action`. */
  RECOVERY_ACTION: 'agent_incidents.recovery.action',
  /** Why the strategy chose the action ({@link RECOVERY_REASONS}). */
  RECOVERY_REASON: 'agent_incidents.recovery.reason',
  /** Name of the recovery strategy (`safeRetry`, `failAndReassign`, `checkpointResume`, or a registered one). */
  RECOVERY_STRATEGY: 'agent_incidents.recovery.strategy',
  /** 1-based number of this resume from a checkpoint (int), on `recovery_action` and on a resumed run. */
  RESUME_ATTEMPT: 'agent_incidents.resume.attempt',
  /** Failure-reassignment cycles the task went through before this execution (int). */
  TASK_RETRY_COUNT: 'agent_incidents.task.retry_count',
  /** Redacted context snapshot, on `recovery_action`: counts and durations, never content. */
  SNAPSHOT_TURNS: 'agent_incidents.snapshot.turns',
  SNAPSHOT_ATTEMPTS: 'agent_incidents.snapshot.attempts',
  SNAPSHOT_INPUT_TOKENS: 'agent_incidents.snapshot.input_tokens',
  SNAPSHOT_OUTPUT_TOKENS: 'agent_incidents.snapshot.output_tokens',
  SNAPSHOT_COST_USD: 'agent_incidents.snapshot.cost_usd',
  SNAPSHOT_DURATION_MS: 'agent_incidents.snapshot.duration_ms',
  CANCEL_ORIGIN: 'agent_incidents.cancel.origin',
  LIFECYCLE_KIND: 'agent_incidents.lifecycle.kind',
  /** When the close was initiated, epoch milliseconds (double); orders it before later failures. */
  LIFECYCLE_INITIATED_AT: 'agent_incidents.lifecycle.initiated_at_ms',
  PROCESS_EXIT_CODE: 'process.exit.code',
  PROCESS_SIGNAL: 'agent_incidents.process.signal',
  PROCESS_CLOSE_REASON: 'agent_incidents.process.close_reason',
} as const;

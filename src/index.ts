/**
 * agent-incidents: explains interrupted AI-agent runs in OpenTelemetry.
 * Every export here is public API; add to it deliberately.
 */

// SDK edge.
export { IncidentSpanProcessor } from './sdk/incident-span-processor.js';
export type { IncidentProcessorStats } from './sdk/incident-span-processor.js';
export type {
  SdkAttributes,
  SdkLink,
  SdkReadableSpan,
  SdkSpan,
  SdkSpanProcessor,
  SdkTimedEvent,
} from './sdk/sdk-span.js';
export { DEFAULTS, GEN_AI_PROVIDER_NAMES, resolveOptions, SANITIZATION_DEFAULTS } from './sdk/options.js';
export type { IncidentSpanProcessorOptions, ResolvedOptions } from './sdk/options.js';

// Runtime side.
export { RunRecorder } from './runtime/run-recorder.js';
export { AttemptRecorder } from './runtime/attempt-recorder.js';
export { ToolRecorder } from './runtime/tool-recorder.js';
export type { ContinuedRun, RunRecorderOptions } from './runtime/run-options.js';
export type { BoundaryInput, BoundaryToolInput } from './runtime/fact-events.js';
export type {
  AttemptHistoryEntry,
  AttemptUsage,
  RecoverableRun,
  RecoveryActionRecord,
  RunSnapshot,
  RunStopReason,
} from './model/recovery.js';
// Recovery: strategies that act on the verdict, behind one protocol, chosen by configuration.
export {
  backoffDelay,
  CHECKPOINT_RESUME,
  checkpointResume,
  createRecoveryRegistry,
  createTask,
  FAIL_AND_REASSIGN,
  failAndReassign,
  InMemoryCounterStore,
  moveTask,
  reassignTask,
  RecoveryConfigError,
  recoveryConfigSchema,
  recoveryContext,
  SAFE_RETRY,
  safeRetry,
  settleTask,
  sideEffectsMayHaveHappened,
} from './recovery/index.js';
export type {
  BackoffOptions,
  Checkpoint,
  CheckpointResumeOptions,
  CounterStore,
  DeferAction,
  FailAndReassignOptions,
  FailureAction,
  InMemoryCounterStoreOptions,
  RecoveryAction,
  RecoveryConfig,
  RecoveryContext,
  RecoveryRegistry,
  RecoveryServices,
  RecoveryStrategy,
  RecoveryStrategyFactory,
  ResumeAction,
  RetryAction,
  SafeRetryOptions,
  Task,
} from './recovery/index.js';
export { recordChatCompletionStream } from './runtime/chat-completion-stream.js';
// What a person reads: title, message, action and severity, in English and Simplified Chinese.
export { presentIncident, PRESENTATION_LOCALES } from './presentation/present-incident.js';
export type {
  IncidentPresentation,
  PresentationLocale,
  PresentIncidentOptions,
  Severity,
} from './presentation/present-incident.js';

// At the package root the lifecycle's verbs say what they move: tasks.
export {
  canTransition as canTransitionTask,
  InvalidTaskTransitionError,
  isTaskState,
  isTerminal as isTerminalTaskState,
  TASK_STATES,
  TASK_TRANSITIONS,
  transition as transitionTask,
} from './model/task-lifecycle.js';
export type { TaskState } from './model/task-lifecycle.js';
export type { ChatCompletionChunkLike, ChatCompletionStreamOptions } from './runtime/chat-completion-stream.js';

// Pure core.
export { deriveIncident, deriveAttemptVerdict, causeOf, runSideEffects } from './derive/derive-incident.js';
export { deriveRetrySafety } from './derive/retry-safety.js';
export type { RetrySafetyInput, RetrySafetyVerdict } from './derive/retry-safety.js';
export { summarizeAttempt } from './derive/attempt-summary.js';
export type { AttemptSummary } from './derive/attempt-summary.js';
export { buildTimeline, compareFacts } from './derive/timeline.js';
export type { Timeline } from './derive/timeline.js';
export {
  classifyError,
  classifyToolError,
  describeError,
  retryAfterMillis,
  safeCode,
} from './derive/classify-error.js';
export type { ErrorDescription } from './derive/classify-error.js';
export { DEFAULT_POLICY, resolvePolicy } from './derive/policy.js';
export type { Policy, PolicyInput } from './derive/policy.js';
export { attemptVerdictAttributes, incidentAttributes } from './derive/incident-attributes.js';
export type { AttributeRecord } from './derive/incident-attributes.js';

// Model: the contract.
export * as attributes from './model/attributes.js';
export {
  CAUSES,
  CAUSE_DETAILS,
  MISSING_FACTS,
  OUTCOMES,
  PHASES,
  RECOVERY_ACTIONS,
  RECOVERY_REASONS,
  RETRY_SAFETIES,
  RETRY_SAFETY_REASONS,
  SIDE_EFFECTS,
  TOOL_SIDE_EFFECTS,
} from './model/enums.js';
export type {
  Cause,
  CauseDetail,
  MissingFact,
  Outcome,
  Phase,
  RecoveryActionKind,
  RecoveryReason,
  RetrySafety,
  RetrySafetyReason,
  SideEffects,
  ToolSideEffects,
} from './model/enums.js';
export type { AttemptRecord, ErrorFact, Fact, FactKind, RunFacts, SideEffectBoundary } from './model/facts.js';
export type { AttemptVerdict, Incident, RecoveryRecord } from './model/incident.js';
export { GEN_AI, NATIVE_ATTR, NATIVE_EVENT, OPERATION } from './model/native-convention.js';

// Conventions and sanitization.
export { ADAPTERS, genAiAdapter, openInferenceAdapter, recognise, vercelAiAdapter } from './conventions/index.js';
export type {
  ConventionAdapter,
  EarlierTry,
  ExtractContext,
  Extraction,
  SpanRole,
  SpanView,
} from './conventions/index.js';
export { createSanitizer, sanitizeAttributeMap, sanitizeAttributes, scrubString } from './sanitize/sanitizer.js';
export type { KeyDecision, SanitizationMode, SanitizationOptions, Sanitizer } from './sanitize/sanitizer.js';
export { createScrubber, createTally } from './sanitize/scrubber.js';
export type { NameRole, RedactionTally, Scrubber, ScrubberOptions } from './sanitize/scrubber.js';
export { BUILT_IN_RULES, REDACTION_KINDS } from './sanitize/rules.js';
export type { RedactionKind, ValueRule } from './sanitize/rules.js';
export { CONTENT_KEYS, CONTENT_KEY_PREFIXES, isContentKey } from './sanitize/content-keys.js';
export { OPERATIONAL_KEYS, OPERATIONAL_KEY_PREFIXES, isOperationalKey } from './sanitize/operational-keys.js';

/**
 * agent-incidents: explains interrupted AI-agent runs in OpenTelemetry.
 *
 * The root entry point holds what an application uses (README, docs/): the span processor and its
 * options, the recorders a runtime writes facts with, `presentIncident`, the closed values and types of
 * the attribute contract (docs/attributes.md), and the key lists docs/sanitization.md documents.
 * Recovery strategies and the task lifecycle are `agent-incidents/recovery`; the AI SDK helper,
 * the gateway and the fake provider have their own subpaths too. The building blocks behind these
 * (derivation, adapters, scrubbers) are not exported: they change without a major version.
 * Every export here is public API; add to it deliberately.
 */

// The span processor and its options.
export { IncidentSpanProcessor } from './sdk/incident-span-processor.js';
export type { IncidentProcessorStats } from './sdk/processor-stats.js';
export type {
  SdkAttributes,
  SdkLink,
  SdkReadableSpan,
  SdkSpan,
  SdkSpanProcessor,
  SdkTimedEvent,
} from './sdk/sdk-span.js';
export type { IncidentSpanProcessorOptions } from './sdk/options.js';
export type { Policy, PolicyInput } from './derive/policy.js';
export type { SanitizationMode, SanitizationOptions } from './sanitize/sanitizer.js';
// The `adapters` option (advanced): the conventions the processor reads, and the shape of one.
export { ADAPTERS, genAiAdapter, openInferenceAdapter, vercelAiAdapter } from './conventions/index.js';
export type {
  AttributeView,
  ConventionAdapter,
  EarlierTry,
  EventView,
  ExtractContext,
  Extraction,
  LinkView,
  SpanRole,
  SpanView,
} from './conventions/index.js';

// The recorders: facts a runtime writes, and the verdict it gates its own retries on.
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
export { recordChatCompletionStream } from './runtime/chat-completion-stream.js';
export type { ChatCompletionChunkLike, ChatCompletionStreamOptions } from './runtime/chat-completion-stream.js';

// What a person reads: title, message, action and severity, in English and Simplified Chinese.
export { presentIncident, PRESENTATION_LOCALES } from './presentation/present-incident.js';
export type {
  IncidentPresentation,
  PresentationLocale,
  PresentIncidentOptions,
  Severity,
} from './presentation/present-incident.js';

// The attribute contract (docs/attributes.md): keys, closed values, the verdict's types, and the
// attributes a verdict writes on its run span (for a runtime that logs the verdict it acted on).
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
  ApiErrorKind,
  CancelOrigin,
  Cause,
  CauseDetail,
  LifecycleKind,
  MissingFact,
  Outcome,
  Phase,
  RecoveryActionKind,
  RecoveryReason,
  RetrySafety,
  RetrySafetyReason,
  ProcessCloseReason,
  SideEffects,
  ToolFailureKind,
  ToolSideEffects,
  TransportDetail,
  WatchdogPhase,
} from './model/enums.js';
export type {
  AttemptRecord,
  BoundaryTool,
  ErrorFact,
  Fact,
  FactBase,
  FactKind,
  RunFacts,
  SideEffectBoundary,
} from './model/facts.js';
export type { AttemptVerdict, Incident, LostUsage, RecoveryRecord } from './model/incident.js';
export { incidentAttributes } from './derive/incident-attributes.js';
export type { AttributeRecord } from './derive/incident-attributes.js';
// The native convention (docs/conventions.md): what a runtime in any language writes.
export { GEN_AI, NATIVE_ATTR, NATIVE_EVENT, OPERATION } from './model/native-convention.js';

// The key lists and redaction kinds of docs/sanitization.md.
export { REDACTION_KINDS } from './sanitize/rules.js';
export type { RedactionKind } from './sanitize/rules.js';
export { CONTENT_KEYS, CONTENT_KEY_PREFIXES, isContentKey } from './sanitize/content-keys.js';
export { OPERATIONAL_KEYS, OPERATIONAL_KEY_PREFIXES, isOperationalKey } from './sanitize/operational-keys.js';

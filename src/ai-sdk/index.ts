/**
 * `agent-incidents/ai-sdk`: the Vercel AI SDK integration, for `ai` 6 and 7.
 * Needs the `ai` package (a peer dependency of this entry point only); with
 * `ai` 7, also `@ai-sdk/otel` for the SDK's own spans (an optional peer,
 * passed as the `aiSdkOtel` option or loaded when a call needs it).
 */
export { AiSdkRun, startAgentRun, withAgentRun } from './agent-run.js';
export type { AgentRunResult } from './agent-run.js';
export type { AgentRunOptions, AiSdkCallOptions, AiSdkOtel, AiSdkTelemetryOptions } from './options.js';
export type { AbortMeaning, TimeoutSetting } from './abort-reason.js';
export { abortMeaning } from './abort-reason.js';
export type { McpToolAnnotations, ToolClassSources, ToolLike } from './tool-classes.js';
export { toolSideEffects } from './tool-classes.js';
export type { RecordStreamPartOptions, StreamPartLike } from './stream-parts.js';
export { recordStreamPart } from './stream-parts.js';
export { usageOfAiSdk } from './part-usage.js';

/**
 * `agent-incidents/ai-sdk`: the Vercel AI SDK 6 integration. Needs the `ai`
 * package (a peer dependency of this entry point only).
 */
export { AiSdkRun, startAgentRun, withAgentRun } from './agent-run.js';
export type { AgentRunOptions, AgentRunResult, AiSdkCallOptions } from './agent-run.js';
export type { AbortMeaning, TimeoutSetting } from './abort-reason.js';
export { abortMeaning } from './abort-reason.js';
export type { McpToolAnnotations, ToolClassSources, ToolLike } from './tool-classes.js';
export { toolSideEffects } from './tool-classes.js';

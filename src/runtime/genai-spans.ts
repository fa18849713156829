/**
 * The GenAI spans the recorders start or adopt, as pure builders: the name
 * and attributes of a run (`invoke_agent`), attempt (`chat`) and tool
 * (`execute_tool`) span, in the order the spans carry them, and the run's link
 * to the run it continues.
 */
import type { Attributes, Link } from '@opentelemetry/api';
import type { ToolSideEffects } from '../model/enums.js';
import { GEN_AI, NATIVE_ATTR as A, OPERATION } from '../model/native-convention.js';
import type { RunRecorderOptions } from './run-options.js';

/** A span before it starts: its name, attributes and links. */
export interface SpanStart {
  readonly name: string;
  readonly attributes: Attributes;
  readonly links: Link[];
}

const LINK_TYPES = { resume: 'resume_of', reassign: 'reassign_of' } as const;

/** The run span of a run started with `options`, linked to the run it continues. */
export function runSpanOf(options: RunRecorderOptions): SpanStart {
  const attributes: Attributes = { [GEN_AI.OPERATION_NAME]: OPERATION.RUN };
  if (options.agentName) attributes[GEN_AI.AGENT_NAME] = options.agentName;
  if (options.providerName) attributes[GEN_AI.PROVIDER_NAME] = options.providerName;
  if (options.model) attributes[GEN_AI.REQUEST_MODEL] = options.model;
  if (options.conversationId) attributes['gen_ai.conversation.id'] = options.conversationId;
  const links: Link[] = [];
  const continued = options.continues;
  if (continued) {
    links.push({ context: continued.spanContext, attributes: { [A.LINK_TYPE]: LINK_TYPES[continued.as] } });
    if (continued.resumeAttempt !== undefined) attributes[A.RESUME_ATTEMPT] = continued.resumeAttempt;
    if (continued.taskRetryCount !== undefined) attributes[A.TASK_RETRY_COUNT] = continued.taskRetryCount;
  }
  const name = options.agentName ? `${OPERATION.RUN} ${options.agentName}` : OPERATION.RUN;
  return { name, attributes, links };
}

/** The attributes of attempt `number`, a streamed `chat` request; `retryOf` is the attempt it retries. */
export function attemptAttributesOf(attempt: {
  readonly number: number;
  readonly providerName?: string;
  readonly model?: string;
  readonly retryOf?: number;
}): Attributes {
  const attributes: Attributes = {
    [GEN_AI.OPERATION_NAME]: 'chat',
    [A.ATTEMPT_NUMBER]: attempt.number,
    [GEN_AI.REQUEST_STREAM]: true,
  };
  if (attempt.providerName) attributes[GEN_AI.PROVIDER_NAME] = attempt.providerName;
  if (attempt.model) attributes[GEN_AI.REQUEST_MODEL] = attempt.model;
  if (attempt.retryOf !== undefined) attributes[A.RETRY_OF_ATTEMPT] = attempt.retryOf;
  return attributes;
}

/** The name of an attempt span on `model`. */
export function attemptNameOf(model: string | undefined): string {
  return model ? `chat ${model}` : 'chat';
}

/** The attributes of tool `name`'s execution; `attemptNumber` is the attempt that called it. */
export function toolAttributesOf(tool: {
  readonly name: string;
  readonly sideEffects: ToolSideEffects;
  readonly callId?: string;
  readonly attemptNumber?: number;
}): Attributes {
  const attributes: Attributes = {
    [GEN_AI.OPERATION_NAME]: OPERATION.TOOL,
    [GEN_AI.TOOL_NAME]: tool.name,
    [A.TOOL_SIDE_EFFECTS]: tool.sideEffects,
  };
  if (tool.callId) attributes[GEN_AI.TOOL_CALL_ID] = tool.callId;
  if (tool.attemptNumber !== undefined) attributes[A.ATTEMPT_NUMBER] = tool.attemptNumber;
  return attributes;
}

/** The name of tool `name`'s execution span. */
export function toolNameOf(name: string): string {
  return `${OPERATION.TOOL} ${name}`;
}

/**
 * The keys `strict` mode keeps: what each supported convention documents as
 * operational (never content), plus our own. Everything else is dropped.
 */
import { inKeyList } from './key-list.js';

/** Operational keys kept by `strict` mode. */
export const OPERATIONAL_KEYS: ReadonlySet<string> = new Set([
  // OpenTelemetry GenAI.
  'gen_ai.operation.name',
  'gen_ai.provider.name',
  'gen_ai.system',
  'gen_ai.request.model',
  'gen_ai.request.stream',
  'gen_ai.request.max_tokens',
  'gen_ai.request.temperature',
  'gen_ai.request.top_p',
  'gen_ai.request.top_k',
  'gen_ai.request.seed',
  'gen_ai.request.choice.count',
  'gen_ai.request.frequency_penalty',
  'gen_ai.request.presence_penalty',
  'gen_ai.response.model',
  'gen_ai.response.id',
  'gen_ai.response.finish_reasons',
  'gen_ai.response.time_to_first_chunk',
  'gen_ai.conversation.id',
  'gen_ai.agent.id',
  'gen_ai.agent.name',
  'gen_ai.agent.version',
  'gen_ai.tool.name',
  'gen_ai.tool.call.id',
  'gen_ai.tool.type',
  'gen_ai.output.type',
  'gen_ai.data_source.id',
  // General conventions reused by GenAI spans, and by exceptions.
  'error.type',
  'exception.type',
  'server.address',
  'server.port',
  'http.request.method',
  'http.response.status_code',
  'url.scheme',
  'process.exit.code',
  // Vercel AI SDK.
  'operation.name',
  'resource.name',
  'ai.operationId',
  'ai.model.id',
  'ai.model.provider',
  'ai.response.finishReason',
  'ai.response.id',
  'ai.response.model',
  'ai.response.timestamp',
  'ai.response.msToFirstChunk',
  'ai.response.msToFinish',
  'ai.response.avgOutputTokensPerSecond',
  'ai.response.avgCompletionTokensPerSecond',
  'ai.stream.msToFirstChunk',
  'ai.toolCall.name',
  'ai.toolCall.id',
  'ai.telemetry.functionId',
  'ai.settings.maxRetries',
  'ai.settings.maxOutputTokens',
  'ai.settings.temperature',
  // OpenInference.
  'openinference.span.kind',
  'llm.model_name',
  'llm.provider',
  'llm.system',
  'tool.name',
  // OpenLLMetry.
  'traceloop.span.kind',
  'traceloop.entity.name',
  'traceloop.workflow.name',
  'llm.request.type',
]);

/** Key prefixes kept by `strict` mode: usage counters and our own namespaces. */
export const OPERATIONAL_KEY_PREFIXES: readonly string[] = [
  'gen_ai.usage.',
  'ai.usage.',
  'llm.token_count.',
  'llm.usage.',
  'incident.',
  'agent_incidents.',
];

/** True when `strict` mode keeps `key` without being told to. */
export function isOperationalKey(key: string): boolean {
  return inKeyList(key, OPERATIONAL_KEYS, OPERATIONAL_KEY_PREFIXES);
}

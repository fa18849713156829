/**
 * Attribute keys that carry prompts, outputs, tool arguments or other content,
 * per supported convention. They are read for facts, then removed before export.
 */
import { inKeyList } from './key-list.js';

/** Exact content keys. */
export const CONTENT_KEYS: ReadonlySet<string> = new Set([
  // OpenTelemetry GenAI (all opt-in and "may contain sensitive information").
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.system_instructions',
  'gen_ai.tool.definitions',
  'gen_ai.tool.call.arguments',
  'gen_ai.tool.call.result',
  'gen_ai.retrieval.query.text',
  'gen_ai.retrieval.documents',
  'gen_ai.memory.query.text',
  'gen_ai.memory.records',
  // Vercel AI SDK `ai.*`.
  'ai.response.text',
  'ai.response.reasoning',
  'ai.response.toolCalls',
  'ai.response.providerMetadata',
  'ai.response.object',
  'ai.toolCall.args',
  'ai.toolCall.result',
  'ai.toolCall.input',
  'ai.toolCall.output',
  'ai.value',
  'ai.values',
  // AI SDK rerank, embed.
  'ai.documents',
  'ai.ranking',
  'ai.embedding',
  'ai.embeddings',
  // OpenInference.
  'input.value',
  'output.value',
  'tool.parameters',
  'llm.function_call',
  'llm.invocation_parameters',
  'embedding.text',
  'document.content',
  'llm.input_messages',
  'llm.output_messages',
  'llm.choices',
  'reranker.query',
  'image.url',
  'audio.url',
  'audio.transcript',
  // OpenLLMetry.
  'traceloop.entity.input',
  'traceloop.entity.output',
]);

/** Key prefixes whose every key is content. */
export const CONTENT_KEY_PREFIXES: readonly string[] = [
  'gen_ai.prompt',
  'gen_ai.completion',
  'ai.prompt',
  'ai.request.headers.',
  'ai.telemetry.metadata.',
  'llm.input_messages.',
  'llm.output_messages.',
  'llm.prompts',
  'llm.prompt_template.',
  // OpenInference tool definitions (names, descriptions, schemas), like gen_ai.tool.definitions.
  'llm.tools.',
  'tool_call.',
  'retrieval.documents.',
  'embedding.embeddings.',
  'reranker.input_documents',
  'reranker.output_documents',
  'input.images',
  'output.images',
  // OpenLLMetry prompt management and function definitions.
  'traceloop.prompt.',
  'llm.request.functions.',
  'llm.completions',
];

/** True when `key` carries content under any supported convention. */
export function isContentKey(key: string): boolean {
  return inKeyList(key, CONTENT_KEYS, CONTENT_KEY_PREFIXES);
}

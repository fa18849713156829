/**
 * A fake LLM provider for tests and examples: a real HTTP server on 127.0.0.1
 * that speaks OpenAI Chat Completions, OpenAI Responses and Anthropic Messages
 * well enough for the real provider packages to parse it, and answers each
 * request with a scripted reply (text, reasoning, tool calls, HTTP errors,
 * provider error events, delays, stalls, destroyed sockets).
 *
 * ```ts
 * const provider = await startFakeProvider();
 * provider.enqueue({ status: 503, headers: { 'retry-after': '0' } }, reply.text('Hello'));
 * const openai = createOpenAI({ baseURL: provider.baseURL, apiKey: 'test' });
 * // … streamText({ model: openai('gpt-4o-mini'), maxRetries: 1, prompt: 'Hi' })
 * await provider.close();
 * ```
 */
export type { DialectName } from './fake-provider/dialect.js';
export type { FakeProvider, FakeProviderOptions, RecordedRequest, RequestEnd } from './fake-provider/server.js';
export { startFakeProvider } from './fake-provider/server.js';
export type { FinishReason, ProviderError, Reply, ScriptReply, StatusReply, Step } from './fake-provider/script.js';
export { DEFAULT_REPLY, reply } from './fake-provider/script.js';

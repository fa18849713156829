/**
 * Facts from an OpenAI Chat Completions stream (the `openai` SDK's
 * `chat.completions.create({ stream: true })`, or any compatible client):
 * text and reasoning deltas, tool calls as they start and complete, the
 * finish reason, and the error that broke the stream. For runtimes that call
 * the provider SDK directly, where no instrumentation records these facts
 * (the OpenInference instrumentation records none while a stream runs).
 */
import type { ToolSideEffects } from '../model/enums.js';
import type { AttemptUsage } from '../model/recovery.js';
import { usageFrom } from '../model/usage.js';
import type { AttemptRecorder } from './attempt-recorder.js';

/** The parts of a `chat.completion.chunk` that are read. */
export interface ChatCompletionChunkLike {
  /** The chunk's choices: their deltas and finish reasons. */
  readonly choices?: readonly {
    readonly delta?: {
      readonly content?: string | null;
      /** Reasoning text, as DeepSeek-style compatible APIs stream it. */
      readonly reasoning_content?: string | null;
      readonly tool_calls?: readonly {
        readonly index?: number;
        readonly id?: string;
        readonly function?: { readonly name?: string; readonly arguments?: string };
      }[];
    } | null;
    readonly finish_reason?: string | null;
  }[];
  /** Token use, on the last chunk when the request set `stream_options.include_usage`. */
  readonly usage?: {
    readonly prompt_tokens?: number;
    readonly completion_tokens?: number;
    readonly prompt_tokens_details?: { readonly cached_tokens?: number } | null;
    readonly completion_tokens_details?: { readonly reasoning_tokens?: number } | null;
  } | null;
}

/** Options of {@link recordChatCompletionStream}. */
export interface ChatCompletionStreamOptions {
  /** Side-effect class per tool name; tools not listed are `unknown`. @default {} */
  readonly toolSideEffects?: Readonly<Record<string, ToolSideEffects>>;
}

/**
 * Passes `stream` through unchanged while recording its facts on `attempt`.
 * A tool call is materialized once it is complete: when the next call starts
 * (Chat Completions streams calls one after another and has no "call done"
 * event) or when the stream finishes, so a runtime that runs each call as soon
 * as the next begins sees it materialized first. The attempt finishes when
 * the stream ends after a finish reason; the token use of a `usage` chunk
 * (input, output, cached and reasoning tokens) is recorded when it comes. A stream that throws before a finish reason fails the attempt
 * (the error is classified through its `cause` chain) and the error is
 * rethrown. A stream that ends without a finish reason (the `openai` SDK ends
 * an aborted stream silently) leaves the attempt open: its run then judges it
 * as cut off.
 * @example
 * const stream = await client.chat.completions.create({ model, messages, tools, stream: true, stream_options: { include_usage: true } });
 * for await (const chunk of recordChatCompletionStream(attempt, stream, { toolSideEffects })) render(chunk);
 */
export async function* recordChatCompletionStream<T extends ChatCompletionChunkLike>(
  attempt: AttemptRecorder,
  stream: AsyncIterable<T>,
  options: ChatCompletionStreamOptions = {},
): AsyncGenerator<T, void, undefined> {
  // Tool calls by their stream index: name and id arrive on their first delta.
  const calls = new Map<number, { name?: string; id?: string; materialized: boolean }>();
  const classOf = (name: string | undefined): ToolSideEffects =>
    name === undefined ? 'unknown' : (options.toolSideEffects?.[name] ?? 'unknown');
  const materialize = (): void => {
    for (const call of calls.values()) {
      if (call.materialized) continue;
      call.materialized = true;
      attempt.toolInputCompleted(call.name);
      attempt.toolCallMaterialized({ name: call.name, callId: call.id, sideEffects: classOf(call.name) });
    }
  };
  let finishReasons: string[] | undefined;
  try {
    for await (const chunk of stream) {
      for (const choice of chunk.choices ?? []) {
        const delta = choice.delta;
        if (delta?.reasoning_content) attempt.reasoningOutput();
        if (delta?.content) attempt.textOutput();
        for (const call of delta?.tool_calls ?? []) {
          const index = call.index ?? 0;
          if (!calls.has(index)) {
            // A new call starts: the ones before it are complete.
            materialize();
            calls.set(index, { name: call.function?.name, id: call.id, materialized: false });
            attempt.toolInputStarted(call.function?.name);
          }
        }
        const reason = choice.finish_reason;
        if (reason) {
          materialize();
          finishReasons = [...(finishReasons ?? []), reason];
        }
      }
      // Recorded when it comes, so a stream cut after it still counts it (docs/attributes.md#lost-usage).
      if (chunk.usage) attempt.usage(usageOf(chunk.usage));
      yield chunk;
    }
  } catch (error) {
    // Before a finish reason the error ended the attempt; after one the answer
    // was complete, and a late transport error does not undo it (finally).
    if (!finishReasons) attempt.fail(error);
    throw error;
  } finally {
    // Also when the caller stops iterating early, after the finish chunk.
    if (finishReasons) attempt.finish({ finishReasons });
  }
}

/** The figures of a Chat Completions `usage` object (absent ones stay absent). */
function usageOf(usage: NonNullable<ChatCompletionChunkLike['usage']>): AttemptUsage {
  return (
    usageFrom({
      inputTokens: usage.prompt_tokens,
      outputTokens: usage.completion_tokens,
      cachedInputTokens: usage.prompt_tokens_details?.cached_tokens,
      reasoningTokens: usage.completion_tokens_details?.reasoning_tokens,
    }) ?? {}
  );
}

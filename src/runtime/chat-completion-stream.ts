/**
 * Facts from an OpenAI Chat Completions stream (the `openai` SDK's
 * `chat.completions.create({ stream: true })`, or any compatible client):
 * text and reasoning deltas, tool calls as they start and complete, the
 * finish reason, and the error that broke the stream. For runtimes that call
 * the provider SDK directly, where no instrumentation records these facts
 * (the OpenInference instrumentation records none while a stream runs).
 */
import type { ToolSideEffects } from '../model/enums.js';
import type { AttemptRecorder } from './run-recorder.js';

/** The parts of a `chat.completion.chunk` that are read. */
export interface ChatCompletionChunkLike {
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
}

/** Options of {@link recordChatCompletionStream}. */
export interface ChatCompletionStreamOptions {
  /** Side-effect class per tool name; tools not listed are `unknown`. @default {} */
  readonly toolSideEffects?: Readonly<Record<string, ToolSideEffects>>;
}

/**
 * Passes `stream` through unchanged while recording its facts on `attempt`.
 * A stream that throws fails the attempt (the error is classified through
 * its `cause` chain) and the error is rethrown. A stream that ends without a
 * finish reason (the `openai` SDK ends an aborted stream silently) leaves the
 * attempt open: its run then judges it as cut off.
 * @example
 * const stream = await client.chat.completions.create({ model, messages, tools, stream: true });
 * for await (const chunk of recordChatCompletionStream(attempt, stream, { toolSideEffects })) render(chunk);
 */
export async function* recordChatCompletionStream<T extends ChatCompletionChunkLike>(
  attempt: AttemptRecorder,
  stream: AsyncIterable<T>,
  options: ChatCompletionStreamOptions = {},
): AsyncGenerator<T, void, undefined> {
  // Tool calls by their stream index: name and id arrive on their first delta.
  const calls = new Map<number, { name?: string; id?: string }>();
  const classOf = (name: string | undefined): ToolSideEffects => (name === undefined ? 'unknown' : (options.toolSideEffects?.[name] ?? 'unknown'));
  try {
    for await (const chunk of stream) {
      for (const choice of chunk.choices ?? []) {
        const delta = choice.delta;
        if (delta?.reasoning_content) attempt.chunk('reasoning-delta');
        if (delta?.content) attempt.chunk('text-delta');
        for (const call of delta?.tool_calls ?? []) {
          const index = call.index ?? 0;
          if (!calls.has(index)) {
            calls.set(index, { name: call.function?.name, id: call.id });
            attempt.chunk('tool-input-start', { toolName: call.function?.name });
          }
        }
        const reason = choice.finish_reason;
        if (reason) {
          for (const call of calls.values()) {
            attempt.chunk('tool-call', { toolName: call.name, toolCallId: call.id, sideEffects: classOf(call.name) });
          }
          calls.clear();
          attempt.finish({ finishReasons: [reason] });
        }
      }
      yield chunk;
    }
  } catch (error) {
    attempt.fail(error);
    throw error;
  }
}

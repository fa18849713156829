/**
 * A minimal custom runtime for the recovery tests: the real `openai` SDK
 * (its own retries off — the runtime owns them) against the fake provider on
 * 127.0.0.1, a connect watchdog, tools run when the model calls them, and a
 * recovery strategy consulted after every failure. What a user's runtime
 * does, with the decisions left to the library.
 */
import OpenAI from 'openai';
import type { RunRecorder } from '../../src/index.js';
import type { RecoveryAction, RecoveryStrategy, Task } from '../../src/recovery/index.js';
import { recordChatCompletionStream } from '../../src/index.js';
import { moveTask, recoveryContext } from '../../src/recovery/index.js';

/** Tools the loop exposes: one read-only, one unsafe. */
export const TOOLS = { read_file: 'read_only', write_file: 'unsafe' } as const;

const TOOL_DEFINITIONS = Object.keys(TOOLS).map((name) => ({
  type: 'function' as const,
  function: { name, parameters: { type: 'object', properties: {} } },
}));

/** Options of {@link runTurn}. */
export interface TurnOptions {
  readonly baseURL: string;
  readonly run: RunRecorder;
  readonly strategy: RecoveryStrategy;
  readonly task: Task;
  /** Budget of the connect watchdog: no first chunk within it fails the attempt. @default 200 */
  readonly connectBudgetMillis?: number;
  /** Called when an attempt starts, before its request. */
  readonly onAttempt?: (number: number) => void;
  /** Provider requests allowed before the loop gives up (guards a broken test). @default 6 */
  readonly maxRequests?: number;
}

/** What one turn ended with. */
export interface TurnResult {
  readonly text: string;
  /** Every recovery action taken, in order. */
  readonly actions: readonly RecoveryAction[];
  readonly task: Task;
}

/**
 * Plays one user turn to its end: a final answer, or a recovery action that
 * is not a retry. The run is left open; the caller ends it.
 */
export async function runTurn(options: TurnOptions): Promise<TurnResult> {
  const client = new OpenAI({ baseURL: options.baseURL, apiKey: 'test', maxRetries: 0 });
  const { run, strategy } = options;
  const boundary = { tools: Object.entries(TOOLS).map(([name, sideEffects]) => ({ name, sideEffects })) };
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'do the thing' }];
  const actions: RecoveryAction[] = [];
  let task = moveTask(options.task, 'IN_PROGRESS');
  let text = '';
  for (let request = 0; request < (options.maxRequests ?? 6); request++) {
    const attempt = run.startAttempt({ boundary });
    options.onAttempt?.(attempt.number);
    const controller = new AbortController();
    const watchdog = setTimeout(() => {
      attempt.watchdogFired({ phase: 'connect', budgetMillis: options.connectBudgetMillis ?? 200 });
      controller.abort();
    }, options.connectBudgetMillis ?? 200);
    const calls: { id: string; name: string }[] = [];
    let finishReason: string | null | undefined;
    try {
      const stream = await client.chat.completions.create(
        { model: 'gpt-test', messages, tools: TOOL_DEFINITIONS, stream: true },
        { signal: controller.signal },
      );
      for await (const chunk of recordChatCompletionStream(attempt, stream, { toolSideEffects: TOOLS })) {
        clearTimeout(watchdog);
        const choice = chunk.choices[0];
        text += choice?.delta?.content ?? '';
        for (const call of choice?.delta?.tool_calls ?? []) {
          if (call.id && call.function?.name) calls.push({ id: call.id, name: call.function.name });
        }
        finishReason = choice?.finish_reason ?? finishReason;
      }
    } catch (error) {
      // A watchdog abort was recorded by the watchdog; anything else by the stream recorder.
      if (!attempt.ended) attempt.fail(error);
    } finally {
      clearTimeout(watchdog);
    }
    if (finishReason === 'tool_calls') {
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: '{}' } })),
      });
      for (const call of calls) {
        const tool = run.startTool({
          name: call.name,
          callId: call.id,
          sideEffects: TOOLS[call.name as keyof typeof TOOLS] ?? 'unknown',
          attempt,
        });
        tool.complete();
        messages.push({ role: 'tool', tool_call_id: call.id, content: 'done' });
      }
      continue;
    }
    if (finishReason) return { text, actions, task: moveTask(task, 'COMPLETED') };
    const action = await strategy.recover(recoveryContext(run, task));
    actions.push(action);
    task = action.task;
    if (action.kind !== 'retry') return { text, actions, task };
  }
  throw new Error('the loop made more requests than the test allows');
}

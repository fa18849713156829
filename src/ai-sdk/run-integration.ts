/**
 * The run's telemetry integration of one call: the SDK's callbacks that say
 * the call ended and which tools ran (`ai` 6: `onToolCallStart` /
 * `onToolCallFinish`; `ai` 7: `executeTool`), each tool adopted from the
 * SDK's tool span with its side-effect class.
 */
import type { Span } from '@opentelemetry/api';
import { trace } from '@opentelemetry/api';
// Types of `ai` 6, the version this package compiles against; 7's callbacks are declared below.
import type { TelemetryIntegration } from 'ai';
import type { ToolRecorder } from '../runtime/tool-recorder.js';
import { AI_SDK_7 } from './ai-sdk-7.js';
import type { CallState, RunState } from './run-state.js';
import { quietly } from './run-state.js';
import { toolSideEffects } from './tool-classes.js';

/** One telemetry integration of the run: the `ai` 6 callbacks and the `ai` 7 ones (each version calls only its own). */
export interface RunIntegration extends TelemetryIntegration {
  /** `ai` 7: wraps each local tool execution (ours is the innermost wrapper, inside the span integration's context). */
  executeTool?<T>(options: {
    readonly toolCallId?: string;
    readonly toolCall?: { readonly toolName?: string };
    readonly execute: () => PromiseLike<T>;
  }): PromiseLike<T>;
  /** `ai` 7: the call ended normally. */
  onEnd?(): void;
}

/** The span's name, when the span exposes it (SDK spans do). */
function spanName(span: Span): string | undefined {
  const name = (span as { readonly name?: unknown }).name;
  return typeof name === 'string' ? name : undefined;
}

/**
 * `ai` 7: one local tool execution. The span integration's tool span is
 * active here (the run's wrapper is the innermost): `execute_tool <name>`
 * from `OpenTelemetry`, `ai.toolCall` from `LegacyOpenTelemetry`. It is
 * adopted; without one, the run records the tool on a span of its own.
 */
async function executeTool<T>(
  run: RunState,
  state: CallState,
  name: string,
  execute: () => PromiseLike<T>,
): Promise<T> {
  let tool: ToolRecorder | undefined;
  quietly(() => {
    const sideEffects = toolSideEffects(name, state.sources);
    const attempt = run.attempts.at(-1);
    const active = trace.getActiveSpan();
    const activeName = active === undefined ? undefined : spanName(active);
    const isToolSpan =
      active !== undefined &&
      active.isRecording() &&
      active !== run.recorder.span &&
      (activeName?.startsWith('execute_tool') === true || activeName === 'ai.toolCall');
    tool = isToolSpan
      ? run.recorder.adoptTool(active, { name, sideEffects, attempt })
      : run.recorder.startTool({ name, sideEffects, attempt });
  });
  state.runningTools += 1;
  if (tool) run.toolsRunning.add(tool);
  try {
    const value = await execute();
    quietly(() => tool?.complete());
    return value;
  } catch (error) {
    // Stopped by the call's abort (a stop or a watchdog), the tool did not fail: it was interrupted.
    quietly(() => (state.signal?.aborted || run.signal.aborted ? tool?.interrupt() : tool?.fail(error)));
    throw error;
  } finally {
    state.runningTools = Math.max(0, state.runningTools - 1);
    if (tool) run.toolsRunning.delete(tool);
  }
}

/** The run's integration for one call. */
export function runIntegration(run: RunState, state: CallState): RunIntegration {
  const finished = (): void => {
    state.finished = true;
    state.unwatch?.();
  };
  return {
    onStart: () => {
      // ai 6 calls it inside the SDK's call span (streamText's may never end on a broken stream);
      // ai 7 outside any SDK span (the marking tracer collects its root span instead).
      const span = trace.getActiveSpan();
      if (!AI_SDK_7 && span?.isRecording() && span !== run.recorder.span) run.sdkSpans.push(span);
    },
    onFinish: finished,
    onEnd: finished,
    executeTool: ({ toolCall, execute }) => executeTool(run, state, toolCall?.toolName ?? 'unknown', execute),
    onToolCallStart: (event) => {
      state.runningTools += 1;
      const span = trace.getActiveSpan();
      if (!span?.isRecording()) return;
      const name = event.toolCall.toolName;
      const tool = run.recorder.adoptTool(span, {
        name,
        sideEffects: toolSideEffects(name, state.sources),
        attempt: run.attempts.at(-1),
      });
      run.tools.set(event.toolCall.toolCallId, tool);
    },
    onToolCallFinish: (event) => {
      state.runningTools = Math.max(0, state.runningTools - 1);
      const tool = run.tools.get(event.toolCall.toolCallId);
      if (!tool) return;
      run.tools.delete(event.toolCall.toolCallId);
      if (event.success) tool.complete();
      // Stopped by the call's abort (a stop or a watchdog), the tool did not fail: it was interrupted.
      else if (event.abortSignal?.aborted || run.signal.aborted) tool.interrupt();
      else tool.fail(event.error);
    },
  };
}

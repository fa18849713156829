/**
 * The AI SDK's stream vocabulary: what each `fullStream` / `doStream` part type
 * shows of an attempt's progress, and `recordStreamPart`, which records a part
 * through the neutral `AttemptRecorder` methods. The runtime knows no part
 * names; this is the one table of them (docs/conventions.md#fact-events).
 */
import { usageOfAiSdk } from './part-usage.js';
import type { AttemptRecorder } from '../runtime/attempt-recorder.js';
import type { ToolSideEffects } from '../model/enums.js';

/** What a stream part shows of an attempt's progress. */
type PartOutput = 'text' | 'reasoning' | 'tool_input_started' | 'tool_input_completed' | 'tool_call' | 'other_output';

/**
 * Output part types of `ai` 6 (LanguageModelV3) and 7 (V4). A part type not
 * here is lifecycle only (`start`, `stream-start`, `response-metadata`,
 * `start-step`, `finish-step`, `finish`, `raw`, `error`, `abort`, or a type a
 * later SDK adds): it is not progress, so it never moves the verdict away
 * from "no output yet", the cautious reading.
 */
const OUTPUT_OF_PART: Readonly<Record<string, PartOutput>> = {
  'text-start': 'text',
  'text-delta': 'text',
  text: 'text',
  'reasoning-start': 'reasoning',
  'reasoning-delta': 'reasoning',
  reasoning: 'reasoning',
  // ai 7 (V4): reasoning the provider returns as a file.
  'reasoning-file': 'reasoning',
  'tool-input-start': 'tool_input_started',
  'tool-input-end': 'tool_input_completed',
  'tool-call': 'tool_call',
  'tool-input-delta': 'other_output',
  'tool-result': 'other_output',
  'tool-error': 'other_output',
  source: 'other_output',
  file: 'other_output',
};

function outputOf(type: string): PartOutput | undefined {
  return Object.hasOwn(OUTPUT_OF_PART, type) ? OUTPUT_OF_PART[type] : undefined;
}

/**
 * Whether a part of type `type` is real provider output (it moves a watchdog
 * from "no first output" to "silent stream"). False for lifecycle parts and
 * for types this version does not know.
 */
export function isOutputPart(type: string): boolean {
  return outputOf(type) !== undefined;
}

/** The fields of an AI SDK stream part that `recordStreamPart` reads; any part object fits. */
export interface StreamPartLike {
  /** The part type, such as `'text-delta'` or `'tool-call'`. */
  readonly type: string;
  /** The tool's name, on tool parts. */
  readonly toolName?: string;
  /** The tool call's id, on tool parts. */
  readonly toolCallId?: string;
  /** Whether the provider runs the tool itself, on tool parts. @default false */
  readonly providerExecuted?: boolean;
  /** Token use, on `finish-step` and a provider's `finish` part (any AI SDK shape, see `usageOfAiSdk`). */
  readonly usage?: unknown;
}

/** How to record a part beyond what the part itself says. */
export interface RecordStreamPartOptions {
  /**
   * The side-effect class of the part's tool, for a `tool-call` part (see
   * `toolSideEffects` to read it from the tool). @default 'unknown'
   */
  readonly sideEffects?: ToolSideEffects;
}

/**
 * Records one AI SDK stream part on `attempt` as the fact it shows: text or
 * reasoning output started, a tool call's input started or completed, a tool
 * call complete, or other provider output. Lifecycle parts (`start`,
 * `stream-start`, `response-metadata`, `start-step`) and unknown types
 * record nothing; the usage a `finish-step` or `finish` part carries is
 * recorded with `attempt.usage()`, so an attempt cut off later still counts
 * it (docs/attributes.md#lost-usage). `error` and `finish` parts end the
 * attempt, which is the caller's to do: call `attempt.fail(part.error)` or
 * `attempt.finish()`. Text and reasoning imply progress, so they are not
 * doubled with a `provider_progress` event (one event per state change).
 */
export function recordStreamPart(
  attempt: AttemptRecorder,
  part: StreamPartLike,
  options: RecordStreamPartOptions = {},
): void {
  if (part.type === 'finish-step' || part.type === 'finish') {
    const usage = usageOfAiSdk(part.usage);
    if (usage) attempt.usage(usage);
  }
  switch (outputOf(part.type)) {
    case 'text':
      return attempt.textOutput();
    case 'reasoning':
      return attempt.reasoningOutput();
    case 'tool_input_started':
      return attempt.toolInputStarted(part.toolName, { providerExecuted: part.providerExecuted });
    case 'tool_input_completed':
      return attempt.toolInputCompleted(part.toolName);
    case 'tool_call':
      return attempt.toolCallMaterialized({
        name: part.toolName,
        callId: part.toolCallId,
        sideEffects: options.sideEffects,
        providerExecuted: part.providerExecuted,
      });
    case 'other_output':
      return attempt.providerProgress(part.type);
    case undefined:
      return;
  }
}

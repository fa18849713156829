/**
 * The stream part types `AttemptRecorder.chunk` accepts, as the public
 * API documents them: the AI SDK `fullStream` part types. They stay in the
 * runtime because `chunk` is part of the main entry point's API; the runtime
 * itself works on the neutral {@link StreamOutput} they translate to, and a
 * runtime that reads another stream (an OpenAI Chat Completions stream,
 * ./chat-completion-stream.ts) calls the neutral recorder methods directly.
 */
/** What a stream part shows of an attempt's progress, whatever the stream's vocabulary. */
export type StreamOutput =
  | 'text'
  | 'reasoning'
  | 'tool_input_started'
  | 'tool_input_completed'
  | 'tool_call'
  /** Real provider output that is none of the above (a `source`, a `tool-result`). */
  | 'other_output';

const OUTPUT_OF_PART: Readonly<Record<string, StreamOutput>> = {
  'text-start': 'text',
  'text-delta': 'text',
  text: 'text',
  'reasoning-start': 'reasoning',
  'reasoning-delta': 'reasoning',
  reasoning: 'reasoning',
  'tool-input-start': 'tool_input_started',
  'tool-input-end': 'tool_input_completed',
  'tool-call': 'tool_call',
  'tool-input-delta': 'other_output',
  'tool-result': 'other_output',
  'tool-error': 'other_output',
  source: 'other_output',
  file: 'other_output',
};

/**
 * What stream part `type` shows; undefined for lifecycle-only parts (`start`,
 * `stream-start`, `response-metadata`, `start-step`, `finish-step`,
 * `finish`) and any type not listed: they are not progress.
 */
export function streamOutputOf(type: string): StreamOutput | undefined {
  return Object.hasOwn(OUTPUT_OF_PART, type) ? OUTPUT_OF_PART[type] : undefined;
}

/**
 * Finish reasons by meaning (docs/conventions.md#finish-reasons-by-meaning).
 * Every convention reports why an answer stopped in its own words: GenAI
 * `gen_ai.response.finish_reasons` (free values, usually the provider's own),
 * the AI SDK's unified `ai.response.finishReason`, OpenInference's
 * `llm.finish_reason`. What matters for a verdict is what a value means:
 *
 * - `finished`: the model ended its answer (a stop, a tool call);
 * - `limit`: cut short by a limit the request set (max tokens, the context
 *   window): the provider's finish arrived, the answer is as long as allowed;
 * - `refused`: cut short by the provider's content policy;
 * - `error`: the provider reported an error in the stream;
 * - `unfinished`: the answer did not finish, or nothing says it did
 *   (`interrupted`: the stream ended without the provider's finish).
 *
 * The known values below are a fast path, not the rule: the rule is that a
 * finish must be shown. A value not in the table does not show one, so it
 * reads as `unfinished` (fail closed: a fact that may be missing makes a
 * verdict more cautious, never less).
 */

/** What a finish reason says about the answer. */
export type FinishMeaning = 'finished' | 'limit' | 'refused' | 'error' | 'unfinished';

/**
 * The known finish values, normalized (lower case, `-` and spaces as `_`), by
 * meaning. Sources: the GenAI output-message `FinishReason` (`stop`, `length`,
 * `content_filter`, `tool_call`, `error`), the AI SDK's unified reasons
 * (`stop`, `length`, `content-filter`, `tool-calls`, `error`, `interrupted`,
 * `other`), and the raw values providers send and instrumentations copy:
 * OpenAI (`stop`, `length`, `tool_calls`, `function_call`, `content_filter`),
 * Anthropic (`end_turn`, `stop_sequence`, `tool_use`, `pause_turn`,
 * `max_tokens`, `model_context_window_exceeded`, `refusal`), Gemini (`STOP`,
 * `MAX_TOKENS`, `SAFETY`, `RECITATION`, `BLOCKLIST`, `PROHIBITED_CONTENT`,
 * `SPII`, `IMAGE_SAFETY`, `MALFORMED_FUNCTION_CALL`), Bedrock Converse
 * (`guardrail_intervened`, `content_filtered`), Mistral (`model_length`),
 * Cohere (`COMPLETE`, `ERROR_TOXIC`).
 */
export const FINISH_REASON_MEANINGS: Readonly<Record<string, FinishMeaning>> = {
  stop: 'finished',
  end_turn: 'finished',
  stop_sequence: 'finished',
  complete: 'finished',
  pause_turn: 'finished',
  tool_call: 'finished',
  tool_calls: 'finished',
  tool_use: 'finished',
  function_call: 'finished',
  length: 'limit',
  max_tokens: 'limit',
  max_output_tokens: 'limit',
  model_length: 'limit',
  model_context_window_exceeded: 'limit',
  content_filter: 'refused',
  content_filtered: 'refused',
  refusal: 'refused',
  safety: 'refused',
  recitation: 'refused',
  blocklist: 'refused',
  prohibited_content: 'refused',
  spii: 'refused',
  image_safety: 'refused',
  guardrail_intervened: 'refused',
  error_toxic: 'refused',
  error: 'error',
  malformed_function_call: 'error',
  // Named, and meaning no finish: the stream ended without the provider's
  // finish (AI SDK 7), or the SDK filled in a reason nothing sent (`other` is
  // what AI SDK 6 reports for a stream that ended without a finish chunk,
  // `unknown` what AI SDK 5 did).
  interrupted: 'unfinished',
  other: 'unfinished',
  unknown: 'unfinished',
  finish_reason_unspecified: 'unfinished',
};

/** `value` as the table spells it: lower case, `-` and spaces as `_` (`content-filter`, `MAX_TOKENS`). */
function normalized(value: string): string {
  return value
    .slice(0, 64)
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/** The meaning of one finish value; a value the table does not know shows no finish. */
export function finishMeaning(value: string): FinishMeaning {
  const key = normalized(value);
  return Object.hasOwn(FINISH_REASON_MEANINGS, key) ? (FINISH_REASON_MEANINGS[key] as FinishMeaning) : 'unfinished';
}

/** True when the table names `value` (a known value, whatever it means). */
export function isKnownFinish(value: string): boolean {
  return Object.hasOwn(FINISH_REASON_MEANINGS, normalized(value));
}

/** From the worst to the best: one generation that did not finish leaves the answer unfinished. */
const ORDER: readonly FinishMeaning[] = ['error', 'unfinished', 'refused', 'limit', 'finished'];

/**
 * The meaning of an attempt's finish reasons (one per generation or choice):
 * the worst of them. Undefined when there are none: the attempt recorded no
 * finish reason, and each convention says what that means.
 */
export function finishOf(reasons: readonly string[]): FinishMeaning | undefined {
  // Past the 256th, the reasons are not read: one of them may not have finished.
  const read = reasons.length > 256 ? [...reasons.slice(0, 256), ''] : reasons;
  let worst: FinishMeaning | undefined;
  for (const reason of read) {
    const meaning = finishMeaning(reason);
    if (worst === undefined || ORDER.indexOf(meaning) < ORDER.indexOf(worst)) worst = meaning;
  }
  return worst;
}

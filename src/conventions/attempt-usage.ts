/**
 * The token use (and cost) an attempt span reports, in whichever convention
 * wrote it (docs/attributes.md#lost-usage). Each figure has a list of keys,
 * one or more per convention, read in order; the first that holds a count
 * wins. The lists are the fast path, not the rule: a count is any attribute
 * that holds a finite, non-negative number (an OTLP double such as `120.0`, a
 * string of digits as some SDKs send it), and anything else under a usage key
 * is read as not reported, never as zero.
 */
import { GEN_AI, NATIVE_ATTR } from '../model/native-convention.js';
import type { AttemptUsage } from '../model/usage.js';
import { usageFrom } from '../model/usage.js';
import type { AttributeView } from './span-view.js';

/**
 * The keys of each figure: the GenAI semantic conventions (and their older
 * names), the AI SDK (6's `ai.usage.*`, 4's prompt/completion names), the
 * native convention, OpenInference (`llm.token_count.*`, `llm.cost.*`) and
 * OpenLLMetry / OpenLIT (`llm.usage.*`, `gen_ai.usage.cost`).
 */
export const USAGE_KEYS = {
  inputTokens: [
    GEN_AI.USAGE_INPUT_TOKENS,
    'ai.usage.inputTokens',
    'llm.token_count.prompt',
    'gen_ai.usage.prompt_tokens',
    'ai.usage.promptTokens',
    'llm.usage.prompt_tokens',
  ],
  outputTokens: [
    GEN_AI.USAGE_OUTPUT_TOKENS,
    'ai.usage.outputTokens',
    'llm.token_count.completion',
    'gen_ai.usage.completion_tokens',
    'ai.usage.completionTokens',
    'llm.usage.completion_tokens',
  ],
  reasoningTokens: [
    GEN_AI.USAGE_REASONING_TOKENS,
    'ai.usage.reasoningTokens',
    'llm.token_count.completion_details.reasoning',
    'gen_ai.usage.reasoning_tokens',
  ],
  cachedInputTokens: [
    GEN_AI.USAGE_CACHE_READ_INPUT_TOKENS,
    'ai.usage.cachedInputTokens',
    'llm.token_count.prompt_details.cache_read',
    'gen_ai.usage.cache_read_input_tokens',
  ],
  costUsd: [NATIVE_ATTR.USAGE_COST_USD, 'llm.cost.total', 'gen_ai.usage.cost'],
} as const satisfies Record<keyof AttemptUsage, readonly string[]>;

/** Digits, with an optional fraction: how a count looks when an SDK sends it as a string. */
const DECIMAL = /^\d{1,15}(?:\.\d{1,9})?$/;

/** A finite, non-negative number `value` holds, or undefined. */
export function usageCount(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value === 'bigint')
    return value >= 0n && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : undefined;
  if (typeof value === 'string' && DECIMAL.test(value)) return Number(value);
  return undefined;
}

/** The first count among `keys` in `attributes`. */
function firstCount(attributes: AttributeView, keys: readonly string[]): number | undefined {
  for (const key of keys) {
    const count = usageCount(attributes[key]);
    if (count !== undefined) return count;
  }
  return undefined;
}

/** What an attempt span's attributes report of its usage; undefined when they report nothing. */
export function attemptUsageOf(attributes: AttributeView): AttemptUsage | undefined {
  const inputTokens = firstCount(attributes, USAGE_KEYS.inputTokens);
  const outputTokens = firstCount(attributes, USAGE_KEYS.outputTokens);
  const reasoningTokens = firstCount(attributes, USAGE_KEYS.reasoningTokens);
  const cachedInputTokens = firstCount(attributes, USAGE_KEYS.cachedInputTokens);
  const costUsd = firstCount(attributes, USAGE_KEYS.costUsd);
  return usageFrom({ inputTokens, outputTokens, reasoningTokens, cachedInputTokens, costUsd });
}

/**
 * The token use an AI SDK part or result reports, in any of the SDK's shapes:
 * a provider's `finish` part (`LanguageModelV3`/`V4`: `inputTokens.total`,
 * `.cacheRead`, `outputTokens.total`, `.reasoning`), `ai` 6's
 * `LanguageModelUsage` of a `finish-step` part or a result (flat counts with
 * `inputTokenDetails` / `outputTokenDetails`), and the flat `V2` counts.
 * A figure that is not a finite, non-negative number is left out.
 */
import type { AttemptUsage } from '../model/usage.js';
import { usageFrom } from '../model/usage.js';

type Loose = Readonly<Record<string, unknown>> | undefined;

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function record(value: unknown): Loose {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

/** A count given flat (`inputTokens: 12`) or nested (`inputTokens: { total: 12 }`). */
function total(value: unknown): number | undefined {
  return count(value) ?? count(record(value)?.total);
}

/**
 * What `usage` (an AI SDK usage object of any version) says an attempt used;
 * undefined when it says nothing.
 */
export function usageOfAiSdk(usage: unknown): AttemptUsage | undefined {
  const u = record(usage);
  if (!u) return undefined;
  const input = record(u.inputTokens);
  const output = record(u.outputTokens);
  const inputTokens = total(u.inputTokens);
  const outputTokens = total(u.outputTokens);
  const reasoningTokens =
    count(output?.reasoning) ?? count(record(u.outputTokenDetails)?.reasoningTokens) ?? count(u.reasoningTokens);
  const cachedInputTokens =
    count(input?.cacheRead) ?? count(record(u.inputTokenDetails)?.cacheReadTokens) ?? count(u.cachedInputTokens);
  return usageFrom({ inputTokens, outputTokens, reasoningTokens, cachedInputTokens });
}

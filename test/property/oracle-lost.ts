/**
 * The oracle's lost usage (docs/attributes.md#lost-usage), written from the
 * contract, not from src/derive/lost-usage.ts: every attempt of a run that
 * ended in an incident is lost; in a run that succeeded or recovered, those
 * that failed, were retried or were cut off. What a lost attempt reported is
 * summed; one that reported no input or no output tokens (or no cost while
 * another did) makes the figures a floor, except a request the provider
 * refused before anything streamed, which used nothing.
 */
import type { RunModel } from './run-model.js';
import { usageOf } from './run-model.js';

/** The compared lost-usage figures. */
export interface ExpectedLost {
  attempts: number;
  inputTokens: number;
  outputTokens: number;
  reasoningTokens?: number;
  cachedInputTokens?: number;
  costUsd?: number;
  lowerBound: boolean;
}

/** What the oracle knows of each attempt (1-based numbers) when it has judged the run. */
export interface AttemptFates {
  /** Attempts that failed with a provider error (a content filter or an error finish included) or a watchdog. */
  readonly failed: ReadonlySet<number>;
  /** Of those, the ones whose provider error is an API error (an HTTP status). */
  readonly apiError: ReadonlySet<number>;
  /** Attempts retried, or cut off and followed by another. */
  readonly retried: ReadonlySet<number>;
  /** Attempts cut off: open at the run's end, or finished with a reason that says they did not finish. */
  readonly cutOff: ReadonlySet<number>;
}

/** True when attempt `index` (0-based) streamed anything before it ended. */
function streamed(model: RunModel, index: number): boolean {
  const attempt = model.attempts[index]!;
  return attempt.outputs.length > 0 || attempt.parallelCalls > 0;
}

/** The lost usage of `model` judged `outcome`, or undefined when no attempt was lost. */
export function expectedLost(
  model: RunModel,
  outcome: string,
  fates: AttemptFates,
  lostFacts: boolean,
): ExpectedLost | undefined {
  const incident = outcome !== 'success' && outcome !== 'recovered';
  const sum: ExpectedLost = { attempts: 0, inputTokens: 0, outputTokens: 0, lowerBound: lostFacts };
  let costMissing = false;
  model.attempts.forEach((_attempt, index) => {
    const n = index + 1;
    if (!(incident || fates.failed.has(n) || fates.retried.has(n) || fates.cutOff.has(n))) return;
    sum.attempts += 1;
    const usage = usageOf(model, index);
    // A request refused before anything streamed was not billed, whatever usage was reported on its span.
    if (fates.apiError.has(n) && !streamed(model, index)) return;
    if (usage?.inputTokens === undefined || usage.outputTokens === undefined) sum.lowerBound = true;
    sum.inputTokens += usage?.inputTokens ?? 0;
    sum.outputTokens += usage?.outputTokens ?? 0;
    if (usage?.reasoningTokens !== undefined) sum.reasoningTokens = (sum.reasoningTokens ?? 0) + usage.reasoningTokens;
    if (usage?.cachedInputTokens !== undefined)
      sum.cachedInputTokens = (sum.cachedInputTokens ?? 0) + usage.cachedInputTokens;
    if (usage?.costUsd !== undefined) sum.costUsd = (sum.costUsd ?? 0) + usage.costUsd;
    else costMissing = true;
  });
  if (sum.costUsd !== undefined && costMissing) sum.lowerBound = true;
  return sum.attempts === 0 ? undefined : sum;
}

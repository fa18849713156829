/**
 * What a run's incident cost (docs/attributes.md#lost-usage): the tokens and
 * cost of the attempts that did not make its answer. A run that ended in an
 * incident made no answer, so all its attempts count; a run that succeeded
 * or recovered loses the attempts that failed, were cut off or were retried.
 *
 * Fail closed, like every other fact: an attempt that reported no usage is
 * not counted as zero, it makes the figures a lower bound. The one attempt
 * known to have used nothing is one the provider refused with an error
 * status (`http_429`, `http_503`, …) before anything streamed: providers do
 * not bill a refused request.
 */
import type { Outcome } from '../model/enums.js';
import type { Fact, RunFacts } from '../model/facts.js';
import type { LostUsage } from '../model/incident.js';
import type { AttemptUsage } from '../model/usage.js';
import type { Timeline } from './timeline.js';
import { cutOffAttempts } from './timeline.js';

/** Facts that show the provider answered with something other than an error: output, progress, a finish. */
const ANSWERED = new Set<Fact['kind']>([
  'provider_progress',
  'text_output_started',
  'reasoning_output_started',
  'tool_input_started',
  'tool_input_completed',
  'tool_call_materialized',
  'attempt_finished',
]);

/** How one attempt ended, as far as its usage is concerned. */
interface AttemptEnd {
  failed: boolean;
  answered: boolean;
  refused: boolean;
}

/** A running sum of lost usage. */
class LostSum {
  attempts = 0;
  inputTokens = 0;
  outputTokens = 0;
  reasoningTokens: number | undefined;
  cachedInputTokens: number | undefined;
  costUsd: number | undefined;
  lowerBound = false;
  #costMissing = false;

  add(usage: AttemptUsage | undefined, usedNothing: boolean): void {
    this.attempts += 1;
    // A refused request used nothing, whatever its span shows: an instrumentation that retries inside one
    // span (AI SDK 7) writes the answering try's usage on it.
    if (usedNothing) return;
    if (usage?.inputTokens === undefined || usage.outputTokens === undefined) this.lowerBound = true;
    this.inputTokens += usage?.inputTokens ?? 0;
    this.outputTokens += usage?.outputTokens ?? 0;
    if (usage?.reasoningTokens !== undefined)
      this.reasoningTokens = (this.reasoningTokens ?? 0) + usage.reasoningTokens;
    if (usage?.cachedInputTokens !== undefined)
      this.cachedInputTokens = (this.cachedInputTokens ?? 0) + usage.cachedInputTokens;
    if (usage?.costUsd !== undefined) this.costUsd = (this.costUsd ?? 0) + usage.costUsd;
    else this.#costMissing = true;
  }

  result(evidenceTruncated: boolean): LostUsage {
    return {
      attempts: this.attempts,
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      ...(this.reasoningTokens !== undefined ? { reasoningTokens: this.reasoningTokens } : {}),
      ...(this.cachedInputTokens !== undefined ? { cachedInputTokens: this.cachedInputTokens } : {}),
      ...(this.costUsd !== undefined ? { costUsd: this.costUsd } : {}),
      // A cost summed over some lost attempts only is a floor too; facts that may be lost may be whole attempts.
      lowerBound: this.lowerBound || (this.costUsd !== undefined && this.#costMissing) || evidenceTruncated,
    };
  }
}

/** How each attempt of `timeline` ended, in one pass over its facts. */
function attemptEnds(timeline: Timeline): Map<string, AttemptEnd> {
  const ends = new Map<string, AttemptEnd>();
  for (const attempt of timeline.attempts) ends.set(attempt.key, { failed: false, answered: false, refused: false });
  for (const fact of timeline.facts) {
    const end = fact.attempt === undefined ? undefined : ends.get(fact.attempt);
    if (!end) continue;
    if (ANSWERED.has(fact.kind)) end.answered = true;
    else if (fact.kind === 'watchdog_fired') end.failed = true;
    else if (fact.kind === 'provider_error') {
      end.failed = true;
      // Refused with an HTTP status; a content filter or an error finish came from a response, which was billed.
      if (fact.error.kind === 'api' && fact.error.code?.startsWith('http_') === true) end.refused = true;
    }
  }
  return ends;
}

/**
 * The usage lost by a run judged `outcome`; undefined when every attempt made
 * the answer (or the run had none).
 */
export function lostUsage(run: RunFacts, timeline: Timeline, outcome: Outcome): LostUsage | undefined {
  if (timeline.attempts.length === 0) return undefined;
  const incident = outcome !== 'success' && outcome !== 'recovered';
  const ends = attemptEnds(timeline);
  const cutOff = cutOffAttempts(run);
  const progressUnknown = run.progressUnknownAttempts ?? [];
  const sum = new LostSum();
  for (const attempt of timeline.attempts) {
    const end = ends.get(attempt.key)!;
    const lost = incident || end.failed || timeline.retried.has(attempt.key) || cutOff.includes(attempt.key);
    if (!lost) continue;
    const refused = end.refused && !end.answered && !progressUnknown.includes(attempt.key);
    sum.add(run.usage?.get(attempt.key), refused);
  }
  return sum.attempts === 0 ? undefined : sum.result(run.evidenceTruncated === true);
}

/** The usage one failed attempt lost: its own figures, as {@link lostUsage} counts them. */
export function attemptLostUsage(run: RunFacts, timeline: Timeline, key: string): LostUsage | undefined {
  if (!timeline.attempts.some((a) => a.key === key)) return undefined;
  const end = attemptEnds(timeline).get(key)!;
  const sum = new LostSum();
  const refused = end.refused && !end.answered && !(run.progressUnknownAttempts ?? []).includes(key);
  sum.add(run.usage?.get(key), refused);
  return sum.result(false);
}

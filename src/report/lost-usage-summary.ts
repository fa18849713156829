/**
 * What incidents cost, as `report` shows it (docs/cli.md#lost-usage): the
 * tokens and cost of the attempts that did not make their run's answer
 * (docs/attributes.md#lost-usage), summed over runs, by cause and by retry
 * safety. A run's figures come from its verdict span's `incident.lost.*`
 * ({@link lostOfAttributes}) or from the fold core's `Incident.lost`, so both
 * sources give the same sums. Sums can be taken back out: a verdict made up
 * here is replaced when the file's verdict for the same run comes later.
 */
import type { AttributeView } from '../conventions/span-view.js';
import * as K from '../model/attributes.js';
import type { LostUsage } from '../model/incident.js';
import type { LostFigures, LostGroup, LostReport, ReportRun } from './report-model.js';

/** A count as a span carries it: a finite, non-negative number; anything else (a string, a bigint past 2^53, NaN) is absent. */
function countOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * The lost usage a verdict span records under `incident.lost.*`; undefined
 * when it records no lost attempt (`incident.lost.attempts` absent, not a
 * whole number, or below 1). Fail closed: a missing input or output count is
 * read as 0 with the figures a lower bound, and so is a `incident.lost.lower_bound`
 * that is not a boolean (nothing says the figures are whole).
 */
export function lostOfAttributes(attributes: AttributeView): LostUsage | undefined {
  const attempts = countOf(attributes[K.ATTR_INCIDENT_LOST_ATTEMPTS]);
  if (attempts === undefined || attempts < 1 || !Number.isInteger(attempts)) return undefined;
  const inputTokens = countOf(attributes[K.ATTR_INCIDENT_LOST_INPUT_TOKENS]);
  const outputTokens = countOf(attributes[K.ATTR_INCIDENT_LOST_OUTPUT_TOKENS]);
  const reasoningTokens = countOf(attributes[K.ATTR_INCIDENT_LOST_REASONING_TOKENS]);
  const cachedInputTokens = countOf(attributes[K.ATTR_INCIDENT_LOST_CACHED_INPUT_TOKENS]);
  const costUsd = countOf(attributes[K.ATTR_INCIDENT_LOST_COST_USD]);
  const bound = attributes[K.ATTR_INCIDENT_LOST_LOWER_BOUND];
  return {
    attempts,
    inputTokens: inputTokens ?? 0,
    outputTokens: outputTokens ?? 0,
    ...(reasoningTokens !== undefined ? { reasoningTokens } : {}),
    ...(cachedInputTokens !== undefined ? { cachedInputTokens } : {}),
    ...(costUsd !== undefined ? { costUsd } : {}),
    lowerBound: bound !== false || inputTokens === undefined || outputTokens === undefined,
  };
}

/** A running sum that runs can be added to and taken back out of. */
class Sum {
  runs = 0;
  attempts = 0;
  inputTokens = 0;
  outputTokens = 0;
  reasoningTokens = 0;
  reasoningRuns = 0;
  cachedInputTokens = 0;
  cachedRuns = 0;
  costUsd = 0;
  costRuns = 0;
  lowerBoundRuns = 0;

  /** Adds `lost` (`by` 1) or takes it back out (`by` -1). */
  add(lost: LostUsage, by: 1 | -1): void {
    this.runs += by;
    this.attempts += by * lost.attempts;
    this.inputTokens += by * lost.inputTokens;
    this.outputTokens += by * lost.outputTokens;
    if (lost.reasoningTokens !== undefined) {
      this.reasoningTokens += by * lost.reasoningTokens;
      this.reasoningRuns += by;
    }
    if (lost.cachedInputTokens !== undefined) {
      this.cachedInputTokens += by * lost.cachedInputTokens;
      this.cachedRuns += by;
    }
    if (lost.costUsd !== undefined) {
      this.costUsd += by * lost.costUsd;
      this.costRuns += by;
      // Taken back to no run with a cost: no float residue of additions and subtractions is left.
      if (this.costRuns === 0) this.costUsd = 0;
    }
    if (lost.lowerBound) this.lowerBoundRuns += by;
  }

  figures(): LostFigures {
    return {
      runs: this.runs,
      attempts: this.attempts,
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      ...(this.reasoningRuns > 0 ? { reasoningTokens: this.reasoningTokens } : {}),
      ...(this.cachedRuns > 0 ? { cachedInputTokens: this.cachedInputTokens } : {}),
      // To the nano-dollar: sums taken in another order (a file's runs, the same runs folded) read the same.
      ...(this.costRuns > 0 ? { costUsd: Math.round(this.costUsd * 1e9) / 1e9 } : {}),
      costRuns: this.costRuns,
      lowerBoundRuns: this.lowerBoundRuns,
      // A cost summed over some runs only is a floor, as the core says of a run's attempts.
      lowerBound: this.lowerBoundRuns > 0 || (this.costRuns > 0 && this.costRuns < this.runs),
    };
  }
}

/** Most tokens first, then most runs, then by name: the order of {@link LostReport.byCause} and `byRetrySafety`. */
function byTokens(a: LostGroup, b: LostGroup): number {
  return (
    b.inputTokens + b.outputTokens - (a.inputTokens + a.outputTokens) ||
    b.runs - a.runs ||
    (a.value < b.value ? -1 : a.value > b.value ? 1 : 0)
  );
}

/** The run of a tally: its lost usage, and the cause and retry safety it is counted under. */
export type TalliedRun = Pick<ReportRun, 'cause' | 'retrySafety' | 'lost'>;

/** Sums the lost usage of runs as they are counted (and uncounted), into a {@link LostReport}. */
export class LostUsageTally {
  readonly #total = new Sum();
  readonly #byCause = new Map<string, Sum>();
  readonly #byRetrySafety = new Map<string, Sum>();

  /** Counts `run`; a run that lost nothing (no `lost`) changes nothing. */
  add(run: TalliedRun): void {
    this.#move(run, 1);
  }

  /** Takes back a run {@link add}ed before. */
  remove(run: TalliedRun): void {
    this.#move(run, -1);
  }

  #move(run: TalliedRun, by: 1 | -1): void {
    const lost = run.lost;
    if (lost === undefined) return;
    this.#total.add(lost, by);
    for (const [map, key] of [
      [this.#byCause, run.cause ?? ''],
      [this.#byRetrySafety, run.retrySafety ?? ''],
    ] as const) {
      let sum = map.get(key);
      if (!sum) map.set(key, (sum = new Sum()));
      sum.add(lost, by);
      if (sum.runs <= 0) map.delete(key);
    }
  }

  /** The figures now: the total, and one group per cause and per retry safety that lost anything. */
  result(): LostReport {
    const groups = (map: ReadonlyMap<string, Sum>): LostGroup[] =>
      [...map].map(([value, sum]) => ({ value, ...sum.figures() })).sort(byTokens);
    return { total: this.#total.figures(), byCause: groups(this.#byCause), byRetrySafety: groups(this.#byRetrySafety) };
  }
}

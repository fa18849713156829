/**
 * What incidents cost, summed by `report` (src/report/lost-usage-summary.ts, docs/cli.md#lost-usage): a verdict
 * span's `incident.lost.*` read fail closed (a non-number is absent, a missing count makes a floor), runs summed
 * by cause and by retry safety with a total, a floor marked wherever one run's figures are one or a cost is
 * missing, and a run taken back out leaving exactly what was there before it.
 */
import { describe, expect, it } from 'vitest';
import type { LostUsage } from '../../src/model/incident.js';
import type { TalliedRun } from '../../src/report/lost-usage-summary.js';
import { lostOfAttributes, LostUsageTally } from '../../src/report/lost-usage-summary.js';
import { lostFigures } from './report-fixtures.js';

const EXACT = { 'incident.lost.lower_bound': false };

describe('lostOfAttributes reads incident.lost.* fail closed', () => {
  it.each<[string, Record<string, unknown>, LostUsage | undefined]>([
    ['no incident.lost.attempts: the run lost nothing', { 'incident.lost.input_tokens': 5, ...EXACT }, undefined],
    ['0 attempts: nothing lost', { 'incident.lost.attempts': 0, ...EXACT }, undefined],
    ['attempts as a string: not a count', { 'incident.lost.attempts': '2', ...EXACT }, undefined],
    ['attempts not whole: not a count', { 'incident.lost.attempts': 1.5, ...EXACT }, undefined],
    ['attempts as a bigint (past 2^53): not a count', { 'incident.lost.attempts': 2n ** 60n, ...EXACT }, undefined],
    [
      'every figure, exact',
      {
        'incident.lost.attempts': 2,
        'incident.lost.input_tokens': 1200,
        'incident.lost.output_tokens': 300,
        'incident.lost.reasoning_tokens': 100,
        'incident.lost.cached_input_tokens': 1000,
        'incident.lost.cost_usd': 0.0125,
        ...EXACT,
      },
      {
        attempts: 2,
        inputTokens: 1200,
        outputTokens: 300,
        reasoningTokens: 100,
        cachedInputTokens: 1000,
        costUsd: 0.0125,
        lowerBound: false,
      },
    ],
    [
      'the file says the figures are a floor',
      {
        'incident.lost.attempts': 1,
        'incident.lost.input_tokens': 0,
        'incident.lost.output_tokens': 0,
        'incident.lost.lower_bound': true,
      },
      { attempts: 1, inputTokens: 0, outputTokens: 0, lowerBound: true },
    ],
    [
      'no input count: read as 0, a floor',
      { 'incident.lost.attempts': 1, 'incident.lost.output_tokens': 7, ...EXACT },
      { attempts: 1, inputTokens: 0, outputTokens: 7, lowerBound: true },
    ],
    [
      'a lower_bound that is not a boolean: a floor (nothing says the figures are whole)',
      {
        'incident.lost.attempts': 1,
        'incident.lost.input_tokens': 3,
        'incident.lost.output_tokens': 4,
        'incident.lost.lower_bound': 'false',
      },
      { attempts: 1, inputTokens: 3, outputTokens: 4, lowerBound: true },
    ],
    [
      'non-numbers and negative or non-finite figures are absent',
      {
        'incident.lost.attempts': 1,
        'incident.lost.input_tokens': '900',
        'incident.lost.output_tokens': Number.NaN,
        'incident.lost.reasoning_tokens': -1,
        'incident.lost.cached_input_tokens': Number.POSITIVE_INFINITY,
        'incident.lost.cost_usd': '0.5',
        ...EXACT,
      },
      { attempts: 1, inputTokens: 0, outputTokens: 0, lowerBound: true },
    ],
  ])('%s', (_name, attributes, lost) => {
    expect(lostOfAttributes(attributes)).toEqual(lost);
  });
});

/** A run that lost `attempts` attempts using `inputTokens` / `outputTokens`, exactly unless told. */
function lost(inputTokens: number, outputTokens: number, over: Partial<LostUsage> = {}): LostUsage {
  return { attempts: 1, inputTokens, outputTokens, lowerBound: false, ...over };
}
const DISCONNECT = { cause: 'provider_transport_disconnect', retrySafety: 'offer_continue' };
const WATCHDOG = { cause: 'watchdog_timeout', retrySafety: 'auto_retry' };

describe('LostUsageTally sums runs by cause and by retry safety', () => {
  it.each<[string, TalliedRun[], ReturnType<LostUsageTally['result']>]>([
    ['no runs: zeros, no groups', [], { total: lostFigures(), byCause: [], byRetrySafety: [] }],
    [
      'runs that lost nothing change nothing',
      [{ ...DISCONNECT }, { cause: undefined, retrySafety: undefined }],
      { total: lostFigures(), byCause: [], byRetrySafety: [] },
    ],
    [
      'runs summed per cause and per retry safety, most tokens first; the total over all',
      [
        { ...WATCHDOG, lost: lost(100, 0) },
        { ...DISCONNECT, lost: lost(1000, 200, { attempts: 2 }) },
        { ...DISCONNECT, lost: lost(500, 50) },
      ],
      {
        total: lostFigures({ runs: 3, attempts: 4, inputTokens: 1600, outputTokens: 250 }),
        byCause: [
          {
            value: 'provider_transport_disconnect',
            ...lostFigures({ runs: 2, attempts: 3, inputTokens: 1500, outputTokens: 250 }),
          },
          { value: 'watchdog_timeout', ...lostFigures({ runs: 1, attempts: 1, inputTokens: 100 }) },
        ],
        byRetrySafety: [
          { value: 'offer_continue', ...lostFigures({ runs: 2, attempts: 3, inputTokens: 1500, outputTokens: 250 }) },
          { value: 'auto_retry', ...lostFigures({ runs: 1, attempts: 1, inputTokens: 100 }) },
        ],
      },
    ],
    [
      'a success that lost a retried attempt counts under no cause and no retry safety',
      [{ cause: undefined, retrySafety: undefined, lost: lost(40, 2) }],
      {
        total: lostFigures({ runs: 1, attempts: 1, inputTokens: 40, outputTokens: 2 }),
        byCause: [{ value: '', ...lostFigures({ runs: 1, attempts: 1, inputTokens: 40, outputTokens: 2 }) }],
        byRetrySafety: [{ value: '', ...lostFigures({ runs: 1, attempts: 1, inputTokens: 40, outputTokens: 2 }) }],
      },
    ],
    [
      "one run's floor makes its groups and the total a floor, not the other groups",
      [
        { ...WATCHDOG, lost: lost(0, 0, { lowerBound: true }) },
        { ...DISCONNECT, lost: lost(10, 1) },
      ],
      {
        total: lostFigures({
          runs: 2,
          attempts: 2,
          inputTokens: 10,
          outputTokens: 1,
          lowerBoundRuns: 1,
          lowerBound: true,
        }),
        byCause: [
          {
            value: 'provider_transport_disconnect',
            ...lostFigures({ runs: 1, attempts: 1, inputTokens: 10, outputTokens: 1 }),
          },
          { value: 'watchdog_timeout', ...lostFigures({ runs: 1, attempts: 1, lowerBoundRuns: 1, lowerBound: true }) },
        ],
        byRetrySafety: [
          { value: 'offer_continue', ...lostFigures({ runs: 1, attempts: 1, inputTokens: 10, outputTokens: 1 }) },
          { value: 'auto_retry', ...lostFigures({ runs: 1, attempts: 1, lowerBoundRuns: 1, lowerBound: true }) },
        ],
      },
    ],
    [
      'a cost some runs reported and others did not is a floor; reasoning and cached tokens only where reported',
      [
        { ...DISCONNECT, lost: lost(10, 5, { costUsd: 0.25, reasoningTokens: 3 }) },
        { ...DISCONNECT, lost: lost(20, 5, { cachedInputTokens: 15 }) },
      ],
      {
        total: lostFigures({
          runs: 2,
          attempts: 2,
          inputTokens: 30,
          outputTokens: 10,
          reasoningTokens: 3,
          cachedInputTokens: 15,
          costUsd: 0.25,
          costRuns: 1,
          lowerBound: true,
        }),
        byCause: [
          {
            value: 'provider_transport_disconnect',
            ...lostFigures({
              runs: 2,
              attempts: 2,
              inputTokens: 30,
              outputTokens: 10,
              reasoningTokens: 3,
              cachedInputTokens: 15,
              costUsd: 0.25,
              costRuns: 1,
              lowerBound: true,
            }),
          },
        ],
        byRetrySafety: [
          {
            value: 'offer_continue',
            ...lostFigures({
              runs: 2,
              attempts: 2,
              inputTokens: 30,
              outputTokens: 10,
              reasoningTokens: 3,
              cachedInputTokens: 15,
              costUsd: 0.25,
              costRuns: 1,
              lowerBound: true,
            }),
          },
        ],
      },
    ],
  ])('%s', (_name, runs, expected) => {
    const tally = new LostUsageTally();
    for (const run of runs) tally.add(run);
    expect(tally.result()).toEqual(expected);
  });

  it('a run taken back out leaves exactly what the others sum to: its groups gone, no cost residue', () => {
    const kept: TalliedRun = { ...DISCONNECT, lost: lost(300, 30, { costUsd: 0.1 }) };
    const replaced: TalliedRun = {
      ...WATCHDOG,
      lost: lost(7, 0, { costUsd: 0.2, lowerBound: true, reasoningTokens: 1 }),
    };
    const alone = new LostUsageTally();
    alone.add(kept);
    const tally = new LostUsageTally();
    tally.add(replaced);
    tally.add(kept);
    tally.remove(replaced);
    expect(tally.result()).toEqual(alone.result());
    tally.remove(kept);
    expect(tally.result()).toEqual(new LostUsageTally().result());
  });

  it('costs summed in any order read the same (to the nano-dollar)', () => {
    const costs = [0.1, 0.2, 0.3, 0.000_000_1, 1.7];
    const sum = (order: number[]) => {
      const tally = new LostUsageTally();
      for (const costUsd of order) tally.add({ ...DISCONNECT, lost: lost(1, 1, { costUsd }) });
      return tally.result().total.costUsd;
    };
    expect(sum(costs)).toBe(2.3000001);
    expect(sum([...costs].reverse())).toBe(sum(costs));
  });
});

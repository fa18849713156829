/**
 * The property test can only check causes its generator produces: drawn from a
 * fixed seed, the generated runs end (by the oracle) with every cause of
 * CAUSES, and each cause with exactly the details GENERATED_CAUSES says.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CAUSES } from '../../src/index.js';
import { expectedVerdict } from './oracle.js';
import { GENERATED_CAUSES, runModel } from './run-model.js';

const SAMPLE = fc.sample(runModel, { seed: 26, numRuns: 4000 });

/** The details (undefined for none) the oracle gives each cause over the sample. */
const reached = new Map<string, Set<string | undefined>>();
for (const model of SAMPLE) {
  const { cause, causeDetail } = expectedVerdict(model, false);
  if (cause === undefined) continue;
  if (!reached.has(cause)) reached.set(cause, new Set());
  reached.get(cause)!.add(causeDetail);
}

describe('the run generator reaches every cause', () => {
  it('every cause of CAUSES ends some generated run, and no other cause does', () => {
    expect([...reached.keys()].sort()).toEqual([...CAUSES].sort());
  });

  it.each(CAUSES.map((cause) => [cause] as const))('%s: with exactly the details GENERATED_CAUSES lists', (cause) => {
    const details = [...(reached.get(cause) ?? [])].filter((d) => d !== undefined).sort();
    expect(details).toEqual([...GENERATED_CAUSES[cause]].sort());
  });
});

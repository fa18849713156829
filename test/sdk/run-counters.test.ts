/**
 * RunCounters (src/sdk/run-counters.ts) on a real MeterProvider: a finished
 * run is counted on `agent.runs`; the tokens and cost its lost attempts used
 * on `agent_incidents.tokens.lost` and `agent_incidents.cost.lost`, with
 * bounded labels only; and every run with lost usage on
 * `agent_incidents.lost.runs`, labelled by whether its figures are a floor
 * (docs/attributes.md#metrics-of-lost-usage).
 */
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import type { Incident, LostUsage } from '../../src/model/incident.js';
import { RunCounters } from '../../src/sdk/run-counters.js';
import { createTally } from '../../src/sanitize/scrubber.js';
import { CollectingReader } from '../support/metrics.js';

const FAILED = {
  outcome: 'failed',
  cause: 'provider_transport_disconnect',
  phase: 'text_generation',
  retrySafety: 'offer_continue',
} as const;
const LABELS = {
  'incident.outcome': 'failed',
  'incident.cause': 'provider_transport_disconnect',
  'incident.retry_safety': 'offer_continue',
};

type Points = Record<string, { attributes: Record<string, unknown>; value: unknown }[]>;

/** Counts `incidents` on fresh counters and collects every data point, by metric name. */
async function counted(incidents: readonly Incident[]): Promise<Points> {
  const reader = new CollectingReader();
  const provider = new MeterProvider({ readers: [reader] });
  const counters = new RunCounters(() => provider.getMeter('agent-incidents'));
  for (const incident of incidents) counters.run(incident, 'openai', new Set(['openai']));
  const { resourceMetrics } = await reader.collect();
  const points: Points = {};
  for (const metric of resourceMetrics.scopeMetrics.flatMap((s) => s.metrics))
    points[metric.descriptor.name] = metric.dataPoints.map((d) => ({ attributes: d.attributes, value: d.value }));
  return points;
}

const failed = (lost: LostUsage | undefined): Incident => ({ ...FAILED, lost }) as unknown as Incident;

describe('RunCounters', () => {
  it('counts the lost input and output tokens and the cost by outcome, cause and retry safety, never the phase or provider', async () => {
    const lost = { attempts: 2, inputTokens: 1200, outputTokens: 300, costUsd: 0.25, lowerBound: false };
    const points = await counted([failed(lost), failed({ ...lost, costUsd: 0.5 })]);
    expect(points['agent_incidents.tokens.lost']).toEqual([
      { attributes: { ...LABELS, 'gen_ai.token.type': 'input' }, value: 2400 },
      { attributes: { ...LABELS, 'gen_ai.token.type': 'output' }, value: 600 },
    ]);
    expect(points['agent_incidents.cost.lost']).toEqual([{ attributes: LABELS, value: 0.75 }]);
    expect(points['agent_incidents.lost.runs']).toEqual([
      { attributes: { ...LABELS, 'incident.lost.lower_bound': 'false' }, value: 2 },
    ]);
    expect(points['agent.runs']?.[0]?.value).toBe(2);
  });

  it('counts a run whose figures are a floor on agent_incidents.lost.runs, even when it reported no tokens', async () => {
    const points = await counted([failed({ attempts: 1, inputTokens: 0, outputTokens: 0, lowerBound: true })]);
    expect(points['agent_incidents.lost.runs']).toEqual([
      { attributes: { ...LABELS, 'incident.lost.lower_bound': 'true' }, value: 1 },
    ]);
    // The series exist from the first run of a cause, at 0.
    expect(points['agent_incidents.tokens.lost']?.map((p) => p.value)).toEqual([0, 0]);
  });

  it.each<[string, Incident]>([
    ['a run whose attempts all made its answer', failed(undefined)],
    ['a success', { outcome: 'success' } as Incident],
  ])('counts nothing lost for %s, and no cost when no lost attempt reported one', async (_, incident) => {
    const points = await counted([incident]);
    expect(Object.keys(points)).toEqual(['agent.runs']);
    const noCost = await counted([failed({ attempts: 1, inputTokens: 5, outputTokens: 0, lowerBound: true })]);
    expect(noCost['agent_incidents.cost.lost']).toBeUndefined();
  });

  it('labels a success that lost a retried attempt by its outcome alone', async () => {
    const points = await counted([
      { outcome: 'success', lost: { attempts: 1, inputTokens: 10, outputTokens: 2, lowerBound: false } } as Incident,
    ]);
    expect(points['agent_incidents.tokens.lost']?.map((p) => p.attributes)).toEqual([
      { 'incident.outcome': 'success', 'gen_ai.token.type': 'input' },
      { 'incident.outcome': 'success', 'gen_ai.token.type': 'output' },
    ]);
  });

  it('counts redactions by kind', async () => {
    const reader = new CollectingReader();
    const provider = new MeterProvider({ readers: [reader] });
    const tally = createTally();
    tally.byKind.set('secret', 2);
    new RunCounters(() => provider.getMeter('agent-incidents')).redactions(tally);
    const { resourceMetrics } = await reader.collect();
    expect(resourceMetrics.scopeMetrics[0]?.metrics[0]?.dataPoints.map((d) => d.value)).toEqual([2]);
  });
});

/**
 * GatewayMetrics (src/gateway/gateway-metrics.ts): counters bumped by label,
 * the dropped total summed over reasons, and the Prometheus text page with a
 * HELP and TYPE for every family, one sample a label set and the live gauges.
 */
import { describe, expect, it } from 'vitest';
import { GatewayMetrics } from '../../src/gateway/gateway-metrics.js';

const HELD = {
  traces: 3,
  spans: 7,
  bytes: 1_234.6,
  backlogSpans: 5,
  persistedBytes: 4_096,
  eventLoopDelayP99Seconds: 0.012,
  eventLoopDelayMaxSeconds: 0.5,
  requestsInHand: 2,
};

/** The samples of a page, `name{labels}` to value. */
function samples(page: string): Map<string, number> {
  const map = new Map<string, number>();
  for (const line of page.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    map.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return map;
}

/** The `# TYPE` of every family on a page. */
function types(page: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of page.split('\n')) {
    const match = /^# TYPE (\S+) (counter|gauge)$/.exec(line);
    if (match) map.set(match[1]!, match[2]!);
  }
  return map;
}

describe('GatewayMetrics', () => {
  it('counts requests by status, refusals by reason (spans and requests), drops, runs and revisions', () => {
    const metrics = new GatewayMetrics();
    metrics.request(200);
    metrics.request(200);
    metrics.request(429);
    metrics.refused('capacity', 10);
    metrics.refused('capacity', 5);
    metrics.refused('busy', 0);
    metrics.dropped('shutdown', 4);
    metrics.dropped('upstream_rejected', 6);
    metrics.dropped('shutdown', 1);
    metrics.run('failed', 'provider_timeout');
    metrics.run('success', undefined);
    metrics.run('failed', 'provider_timeout');
    metrics.revised('incomplete', 'unknown');
    expect(Object.fromEntries(metrics.requests)).toEqual({ '200': 2, '429': 1 });
    expect(Object.fromEntries(metrics.refusedSpans)).toEqual({ capacity: 15, busy: 0 });
    expect(Object.fromEntries(metrics.refusedRequests)).toEqual({ capacity: 2, busy: 1 });
    expect(Object.fromEntries(metrics.droppedSpans)).toEqual({ shutdown: 5, upstream_rejected: 6 });
    expect(metrics.spansDropped).toBe(11);

    const page = samples(metrics.render(HELD));
    expect(page.get('agent_incidents_gateway_requests_total{status="200"}')).toBe(2);
    expect(page.get('agent_incidents_gateway_requests_total{status="429"}')).toBe(1);
    expect(page.get('agent_incidents_gateway_spans_refused_total{reason="capacity"}')).toBe(15);
    expect(page.get('agent_incidents_gateway_requests_refused_total{reason="busy"}')).toBe(1);
    expect(page.get('agent_incidents_gateway_spans_dropped_total{reason="shutdown"}')).toBe(5);
    expect(page.get('agent_incidents_gateway_spans_dropped_total{reason="retries_exhausted"}')).toBeUndefined();
    expect(page.get('agent_incidents_gateway_runs_total{outcome="failed",cause="provider_timeout"}')).toBe(2);
    expect(page.get('agent_incidents_gateway_runs_total{outcome="success",cause=""}')).toBe(1);
    expect(page.get('agent_incidents_gateway_verdicts_revised_total{outcome="incomplete",cause="unknown"}')).toBe(1);
  });

  it('a fresh gateway shows every counter at 0 and a zero dropped sample, with no labelled samples', () => {
    const page = new GatewayMetrics().render(HELD);
    const all = samples(page);
    for (const name of [
      'spans_received',
      'spans_forwarded',
      'spans_duplicate',
      'spans_recovered',
      'forward_retries',
      'values_repaired',
      'forward_splits',
      'runs_judged_early',
      'late_parts',
      'revisable_traces_evicted',
    ])
      expect(all.get(`agent_incidents_gateway_${name}_total`)).toBe(0);
    expect(all.get('agent_incidents_gateway_spans_dropped_total{reason="retries_exhausted"}')).toBe(0);
    expect([...all.keys()].filter((key) => key.includes('{'))).toEqual([
      'agent_incidents_gateway_spans_dropped_total{reason="retries_exhausted"}',
    ]);
    expect(page.endsWith('\n')).toBe(true);
  });

  it('writes the plain counters as set', () => {
    const metrics = new GatewayMetrics();
    metrics.spansReceived = 11;
    metrics.spansForwarded = 9;
    metrics.lateParts = 2;
    const page = samples(metrics.render(HELD));
    expect(page.get('agent_incidents_gateway_spans_received_total')).toBe(11);
    expect(page.get('agent_incidents_gateway_spans_forwarded_total')).toBe(9);
    expect(page.get('agent_incidents_gateway_late_parts_total')).toBe(2);
  });

  it.each([
    ['agent_incidents_gateway_traces_held', 3],
    ['agent_incidents_gateway_spans_held', 7],
    ['agent_incidents_gateway_bytes_held', 1_235],
    ['agent_incidents_gateway_requests_in_hand', 2],
    ['agent_incidents_gateway_persisted_bytes', 4_096],
    ['agent_incidents_gateway_event_loop_delay_p99_seconds', 0.012],
    ['agent_incidents_gateway_event_loop_delay_max_seconds', 0.5],
    ['agent_incidents_gateway_forward_backlog_spans', 5],
  ])('writes the gauge %s from what is held: %d', (name, value) => {
    expect(samples(new GatewayMetrics().render(HELD)).get(name)).toBe(value);
  });

  it('reports the process resident memory as a positive gauge', () => {
    expect(samples(new GatewayMetrics().render(HELD)).get('process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('declares every family once, counters as counters and gauges as gauges, each with a HELP', () => {
    const page = new GatewayMetrics().render(HELD);
    const declared = types(page);
    // 20 counters (11 plain, worker restarts among them; 9 by label) and 10 gauges (the workers among them).
    expect([...declared.values()].filter((t) => t === 'counter')).toHaveLength(20);
    expect([...declared.values()].filter((t) => t === 'gauge')).toHaveLength(10);
    for (const [name, type] of declared) {
      expect(type).toBe(name.endsWith('_total') ? 'counter' : 'gauge');
      expect(page.split('\n').filter((line) => line.startsWith(`# HELP ${name} `))).toHaveLength(1);
    }
  });
});

describe('GatewayMetrics lost usage', () => {
  const FLOOR = { inputTokens: 0, outputTokens: 0, lowerBound: true };
  it.each<[string, { outcome: string; cause?: string; retrySafety?: string }, string]>([
    [
      'a failure: by its outcome, cause and retry safety',
      { outcome: 'failed', cause: 'provider_transport_disconnect', retrySafety: 'offer_continue' },
      'outcome="failed",cause="provider_transport_disconnect",retry_safety="offer_continue"',
    ],
    [
      'a success: by its outcome alone',
      { outcome: 'success', cause: 'provider_timeout', retrySafety: 'auto_retry' },
      'outcome="success",cause="",retry_safety=""',
    ],
    [
      'values outside their closed lists (a verdict written upstream): _OTHER, never the value',
      { outcome: 'exploded', cause: 'my "own" cause', retrySafety: 'maybe' },
      'outcome="_OTHER",cause="_OTHER",retry_safety="_OTHER"',
    ],
  ])('labels %s', (_, run, labels) => {
    const metrics = new GatewayMetrics();
    metrics.lost(run, { inputTokens: 100, outputTokens: 7, costUsd: 0.25, lowerBound: false });
    metrics.lost(run, FLOOR);
    const page = samples(metrics.render(HELD));
    expect(page.get(`agent_incidents_gateway_tokens_lost_total{${labels},type="input"}`)).toBe(100);
    expect(page.get(`agent_incidents_gateway_tokens_lost_total{${labels},type="output"}`)).toBe(7);
    // The floor reported no cost: only the first run's is counted.
    expect(page.get(`agent_incidents_gateway_cost_lost_usd_total{${labels}}`)).toBe(0.25);
    expect(page.get(`agent_incidents_gateway_lost_runs_total{${labels},lower_bound="false"}`)).toBe(1);
    expect(page.get(`agent_incidents_gateway_lost_runs_total{${labels},lower_bound="true"}`)).toBe(1);
  });

  it('adds what a worker counted to the intake, like every labelled counter', () => {
    const intake = new GatewayMetrics();
    const worker = new GatewayMetrics();
    const run = { outcome: 'failed', cause: 'watchdog_timeout', retrySafety: 'auto_retry' };
    worker.lost(run, { inputTokens: 10, outputTokens: 1, costUsd: 0.5, lowerBound: false });
    const first = worker.snapshot();
    intake.addDifference(undefined, first);
    worker.lost(run, { inputTokens: 5, outputTokens: 0, lowerBound: true });
    intake.addDifference(first, worker.snapshot());
    const key = 'failed\u0000watchdog_timeout\u0000auto_retry';
    expect(intake.tokensLost.get(`${key}\u0000input`)).toBe(15);
    expect(intake.costLost.get(key)).toBe(0.5);
    expect(Object.fromEntries(intake.lostRuns)).toEqual({ [`${key}\u0000false`]: 1, [`${key}\u0000true`]: 1 });
  });
});

describe('GatewayMetrics across threads', () => {
  it('adds what a worker counted between two snapshots, labelled counters included, and keeps what an exited one counted', () => {
    const intake = new GatewayMetrics();
    intake.request(200);
    const worker = new GatewayMetrics();
    worker.spansForwarded = 5;
    worker.dropped('upstream_rejected', 2);
    worker.run('success', undefined);
    const first = worker.snapshot();
    intake.addDifference(undefined, first);
    worker.spansForwarded += 3;
    worker.dropped('upstream_rejected', 1);
    intake.addDifference(first, worker.snapshot());
    // A successor starts from nothing: what it counts adds to what its predecessor counted.
    const successor = new GatewayMetrics();
    successor.spansForwarded = 1;
    intake.addDifference(undefined, successor.snapshot());
    expect(intake.spansForwarded).toBe(9);
    expect(Object.fromEntries(intake.droppedSpans)).toEqual({ upstream_rejected: 3 });
    expect(intake.runs.size).toBe(1);
    expect(Object.fromEntries(intake.requests)).toEqual({ '200': 1 });
  });

  it('serves the worker restarts and the workers', () => {
    const metrics = new GatewayMetrics();
    metrics.workerRestarts = 2;
    const page = samples(metrics.render({ ...HELD, workers: 3 }));
    expect(page.get('agent_incidents_gateway_worker_restarts_total')).toBe(2);
    expect(page.get('agent_incidents_gateway_workers')).toBe(3);
    expect(samples(metrics.render(HELD)).get('agent_incidents_gateway_workers')).toBe(0);
  });
});

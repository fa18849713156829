/**
 * MetricsEndpoint (src/gateway/metrics-endpoint.ts): the `/metrics` page of a
 * gateway's real state, its live gauges read from the store, the upstream
 * backlog, what is held and the requests in hand, and the event loop's delay
 * measured only while started and read afresh at each scrape.
 */
import { describe, expect, it } from 'vitest';
import { resolveGatewayConfig } from '../../src/gateway/config.js';
import { decodedSpanBytes } from '../../src/gateway/decoded-size.js';
import { Forwarder } from '../../src/gateway/forwarder.js';
import { GatewayMetrics } from '../../src/gateway/gateway-metrics.js';
import { GatewayState } from '../../src/gateway/gateway-state.js';
import { LoadGauge } from '../../src/gateway/load-gauge.js';
import { METRICS_TYPE, MetricsEndpoint } from '../../src/gateway/metrics-endpoint.js';
import { RevisableTraces } from '../../src/gateway/revisable-traces.js';
import { TraceStore } from '../../src/gateway/trace-store.js';
import { decodedSpan } from '../support/decoded-span.js';
import { waitFor } from '../support/wait-for.js';

function state(): GatewayState {
  const config = resolveGatewayConfig({ upstream: { endpoint: 'http://127.0.0.1:1/v1/traces' } });
  const metrics = new GatewayMetrics();
  return new GatewayState({
    config,
    metrics,
    store: new TraceStore(config.limits, config.hold),
    forwarder: new Forwarder(config.upstream, metrics),
    revisable: new RevisableTraces(),
    gauge: new LoadGauge(),
    spill: undefined,
    window: undefined,
  });
}

/** The value of the unlabelled sample `name` on `page`. */
function sample(page: string, name: string): number {
  const line = page.split('\n').find((l) => l.startsWith(`${name} `));
  if (line === undefined) throw new Error(`no sample ${name}`);
  return Number(line.slice(name.length + 1));
}

describe('MetricsEndpoint', () => {
  it('serves the Prometheus text format 0.0.4', () => {
    expect(METRICS_TYPE).toBe('text/plain; version=0.0.4');
  });

  it('renders the counters and the live gauges of the state', () => {
    const s = state();
    s.parts.store.add([decodedSpan('a', '1'), decodedSpan('a', '2'), decodedSpan('b', '1')], 0);
    s.parts.metrics.spansReceived = 3;
    s.readingBytes = 100;
    s.inHand = 2;
    const page = new MetricsEndpoint(s).render();
    const bytes = 3 * decodedSpanBytes(decodedSpan('a', '1')) + 100;
    expect(
      [
        'agent_incidents_gateway_spans_received_total',
        'agent_incidents_gateway_traces_held',
        'agent_incidents_gateway_spans_held',
        'agent_incidents_gateway_bytes_held',
        'agent_incidents_gateway_requests_in_hand',
        'agent_incidents_gateway_forward_backlog_spans',
        'agent_incidents_gateway_persisted_bytes',
      ].map((name) => sample(page, name)),
    ).toEqual([3, 2, 3, bytes, 2, 0, 0]);
  });

  it('reports no event-loop delay before it is started', () => {
    const page = new MetricsEndpoint(state()).render();
    expect(sample(page, 'agent_incidents_gateway_event_loop_delay_p99_seconds')).toBe(0);
    expect(sample(page, 'agent_incidents_gateway_event_loop_delay_max_seconds')).toBe(0);
  });

  it('measures the delay while started and reads it afresh at each scrape', async () => {
    const endpoint = new MetricsEndpoint(state());
    endpoint.start();
    try {
      let page = '';
      let polls = 0;
      // A scrape resets the histogram: scrape only every 10th poll, so ticks of the 10 ms resolution land between.
      await waitFor(
        () => {
          if (++polls % 10 !== 0) return false;
          page = endpoint.render();
          return sample(page, 'agent_incidents_gateway_event_loop_delay_max_seconds') > 0;
        },
        { what: 'the event-loop delay is sampled' },
      );
      const p99 = sample(page, 'agent_incidents_gateway_event_loop_delay_p99_seconds');
      const max = sample(page, 'agent_incidents_gateway_event_loop_delay_max_seconds');
      expect(p99).toBeGreaterThan(0);
      expect(p99).toBeLessThanOrEqual(max);
      // The scrape reset the histogram: a scrape right after it has no sample yet.
      const next = endpoint.render();
      expect(sample(next, 'agent_incidents_gateway_event_loop_delay_max_seconds')).toBe(0);
    } finally {
      endpoint.stop();
    }
  });
});

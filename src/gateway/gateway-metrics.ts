/**
 * The gateway's own counters, served as Prometheus text at `/metrics`.
 * Label values are closed sets (reasons, statuses, outcomes, causes).
 */

/** Counters and gauges of one gateway. */
export class GatewayMetrics {
  spansReceived = 0;
  spansForwarded = 0;
  spansDropped = 0;
  forwardRetries = 0;
  readonly requests = new Map<string, number>();
  readonly refusedSpans = new Map<string, number>();
  readonly runs = new Map<string, number>();

  /** Counts an answered request by status code. */
  request(status: number): void {
    bump(this.requests, String(status));
  }

  /** Counts spans refused, by reason (`too_large`, `malformed`, `capacity`, `backlog`, `unsupported`). */
  refused(reason: string, spans: number): void {
    bump(this.refusedSpans, reason, spans);
  }

  /** Counts a judged run by outcome and cause. */
  run(outcome: string, cause: string | undefined): void {
    bump(this.runs, `${outcome}\u0000${cause ?? ''}`);
  }

  /** The Prometheus text exposition; `held` are the live gauges. */
  render(held: { traces: number; spans: number; bytes: number; backlogSpans: number }): string {
    const lines: string[] = [];
    const counter = (name: string, help: string, value: number): void => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`, `${name} ${value}`);
    };
    const gauge = (name: string, help: string, value: number): void => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name} ${value}`);
    };
    counter('agent_incidents_gateway_spans_received_total', 'Spans accepted from clients.', this.spansReceived);
    counter('agent_incidents_gateway_spans_forwarded_total', 'Spans delivered upstream.', this.spansForwarded);
    counter('agent_incidents_gateway_spans_dropped_total', 'Spans given up after every upstream attempt failed.', this.spansDropped);
    counter('agent_incidents_gateway_forward_retries_total', 'Upstream requests retried.', this.forwardRetries);
    lines.push('# HELP agent_incidents_gateway_requests_total OTLP requests answered, by HTTP status.', '# TYPE agent_incidents_gateway_requests_total counter');
    for (const [status, n] of this.requests) lines.push(`agent_incidents_gateway_requests_total{status="${status}"} ${n}`);
    lines.push('# HELP agent_incidents_gateway_spans_refused_total Spans refused, by reason.', '# TYPE agent_incidents_gateway_spans_refused_total counter');
    for (const [reason, n] of this.refusedSpans) lines.push(`agent_incidents_gateway_spans_refused_total{reason="${reason}"} ${n}`);
    lines.push('# HELP agent_incidents_gateway_runs_total Runs judged, by incident outcome and cause.', '# TYPE agent_incidents_gateway_runs_total counter');
    for (const [key, n] of this.runs) {
      const [outcome, cause] = key.split('\u0000');
      lines.push(`agent_incidents_gateway_runs_total{outcome="${outcome}",cause="${cause}"} ${n}`);
    }
    gauge('agent_incidents_gateway_traces_held', 'Traces held, waiting to be folded.', held.traces);
    gauge('agent_incidents_gateway_spans_held', 'Spans held, waiting to be folded.', held.spans);
    gauge('agent_incidents_gateway_bytes_held', 'Approximate request bytes held.', Math.round(held.bytes));
    gauge('agent_incidents_gateway_forward_backlog_spans', 'Folded spans waiting to be delivered upstream.', held.backlogSpans);
    return `${lines.join('\n')}\n`;
  }
}

function bump(map: Map<string, number>, key: string, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

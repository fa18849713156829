// Over 300 lines: every counter of the gateway and its Prometheus page in one place, so a counter cannot be
// counted in a worker and forgotten in the snapshot the intake sums, or left off the page.
/**
 * The gateway's own counters, served as Prometheus text at `/metrics`.
 * Label values are closed sets (reasons, statuses, outcomes, causes).
 */
import { CAUSES, OUTCOMES, RETRY_SAFETIES } from '../model/enums.js';

/** Why a request or its spans were refused: the `reason` label of the refusal counters. */
export const REFUSAL_REASONS = [
  'unsupported',
  'too_large',
  'malformed',
  'capacity',
  'backlog',
  'upstream_failing',
  'persistence',
  'busy',
  'memory',
  'closing',
] as const;
/** A refusal reason. */
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** Why accepted spans were dropped: the `reason` label of `agent_incidents_gateway_spans_dropped_total`. */
export const DROP_REASONS = [
  'retries_exhausted',
  'upstream_rejected',
  'unencodable',
  'fold_failed',
  'shutdown',
  'unreadable',
  'worker_exited',
] as const;
/** A drop reason. */
export type DropReason = (typeof DROP_REASONS)[number];

/** The plain counters of {@link GatewayMetrics}, in the order a {@link MetricsSnapshot} lists them. */
const COUNTERS = [
  'spansReceived',
  'spansForwarded',
  'spansDuplicate',
  'spansRecovered',
  'forwardRetries',
  'valuesRepaired',
  'forwardSplits',
  'runsJudgedEarly',
  'lateParts',
  'revisableEvicted',
  'workerRestarts',
] as const;
/** The labelled counters of {@link GatewayMetrics}, in the order a {@link MetricsSnapshot} lists them. */
const TALLIES = [
  'revisions',
  'droppedSpans',
  'requests',
  'refusedSpans',
  'refusedRequests',
  'runs',
  'tokensLost',
  'costLost',
  'lostRuns',
] as const;

/** The labels of a run's lost usage: its verdict, each value from its closed list or `_OTHER`. */
export interface LostRunLabels {
  readonly outcome: string;
  readonly cause?: string;
  readonly retrySafety?: string;
}

/** What a run's lost attempts used (docs/attributes.md#lost-usage). */
export interface LostFigures {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd?: number;
  readonly lowerBound: boolean;
}

/** Every counter of a {@link GatewayMetrics} at one moment, as plain data a worker thread can post. */
export interface MetricsSnapshot {
  readonly counters: readonly number[];
  readonly tallies: readonly (readonly [string, number][])[];
}

/** Counters and gauges of one gateway. */
export class GatewayMetrics {
  spansReceived = 0;
  spansForwarded = 0;
  /** Spans received again under a trace and span id already held (a sender's retry): held once. */
  spansDuplicate = 0;
  /** Spans read back from the persistent queue at start. */
  spansRecovered = 0;
  forwardRetries = 0;
  /** Values the encoder could not write, replaced by a marker so their span and its batch-mates go on. */
  valuesRepaired = 0;
  /** Requests split in two to isolate what upstream refused for good. */
  forwardSplits = 0;
  /** Runs judged while a sender refused with a retryable status could still bring a part of them: at best `incomplete`. */
  runsJudgedEarly = 0;
  /** Spans that arrived under a run already judged. */
  lateParts = 0;
  /** Traces judged early let go before their refused senders could be back (memory): a late part of one gets no correction. */
  revisableEvicted = 0;
  /** Worker threads that exited (a crash, out of memory) and were started again. */
  workerRestarts = 0;
  /** Verdicts corrected by a verdict-revision span, by the new outcome and cause. */
  readonly revisions = new Map<string, number>();
  readonly droppedSpans = new Map<string, number>();
  readonly requests = new Map<string, number>();
  readonly refusedSpans = new Map<string, number>();
  /** Requests refused, by reason: a request refused before its body was read (busy, memory) has no span count. */
  readonly refusedRequests = new Map<string, number>();
  readonly runs = new Map<string, number>();
  /** Tokens lost, by outcome, cause, retry safety and type (`input`, `output`), keys joined by NUL. */
  readonly tokensLost = new Map<string, number>();
  /** US dollars lost, by outcome, cause and retry safety. */
  readonly costLost = new Map<string, number>();
  /** Runs with lost usage, by outcome, cause, retry safety and whether the figures are a floor. */
  readonly lostRuns = new Map<string, number>();

  /** Counts an answered request by status code. */
  request(status: number): void {
    bump(this.requests, String(status));
  }

  /** Counts spans refused, by reason (`too_large`, `malformed`, `capacity`, `backlog`, `upstream_failing`, `persistence`, `closing`, `unsupported`). */
  refused(reason: RefusalReason, spans: number): void {
    bump(this.refusedSpans, reason, spans);
    bump(this.refusedRequests, reason);
  }

  /**
   * Counts spans accepted and then dropped, by reason: `retries_exhausted`
   * (upstream.maxAttempts set and spent), `upstream_rejected` (upstream
   * refused them for good), `unencodable`, `fold_failed`, `shutdown` (left at
   * shutdown with no persistent queue), `unreadable` (a stored request that no
   * longer decodes).
   */
  dropped(reason: DropReason, spans: number): void {
    bump(this.droppedSpans, reason, spans);
  }

  /** Spans dropped for every reason. */
  get spansDropped(): number {
    let n = 0;
    for (const v of this.droppedSpans.values()) n += v;
    return n;
  }

  /** Counts a judged run by outcome and cause. */
  run(outcome: string, cause: string | undefined): void {
    bump(this.runs, `${outcome}\u0000${cause ?? ''}`);
  }

  /**
   * Counts what a judged run's lost attempts used, labelled by its verdict
   * (the cause and retry safety only when it did not succeed). A value outside
   * its closed list, from a verdict written upstream, is counted as `_OTHER`.
   */
  lost(run: LostRunLabels, lost: LostFigures): void {
    const failed = run.outcome !== 'success';
    const key = [
      closed(run.outcome, OUTCOMES),
      failed ? closed(run.cause, CAUSES) : '',
      failed ? closed(run.retrySafety, RETRY_SAFETIES) : '',
    ].join('\u0000');
    bump(this.tokensLost, `${key}\u0000input`, lost.inputTokens);
    bump(this.tokensLost, `${key}\u0000output`, lost.outputTokens);
    if (lost.costUsd !== undefined) bump(this.costLost, key, lost.costUsd);
    bump(this.lostRuns, `${key}\u0000${String(lost.lowerBound)}`);
  }

  /** Counts a corrected verdict by its new outcome and cause. */
  revised(outcome: string, cause: string | undefined): void {
    bump(this.revisions, `${outcome}\u0000${cause ?? ''}`);
  }

  /** Every counter now, as plain data (a worker posts it to the intake, which adds what changed to its own). */
  snapshot(): MetricsSnapshot {
    return {
      counters: COUNTERS.map((name) => this[name]),
      tallies: TALLIES.map((name) => [...this[name]]),
    };
  }

  /**
   * Adds what another gateway's metrics counted from `before` (unset: from nothing) to `after`: the intake sums its
   * workers' counters so, and a worker that exited keeps what it counted.
   */
  addDifference(before: MetricsSnapshot | undefined, after: MetricsSnapshot): void {
    COUNTERS.forEach((name, i) => {
      this[name] += (after.counters[i] ?? 0) - (before?.counters[i] ?? 0);
    });
    TALLIES.forEach((name, i) => {
      const earlier = new Map(before?.tallies[i] ?? []);
      for (const [key, value] of after.tallies[i] ?? []) {
        const by = value - (earlier.get(key) ?? 0);
        if (by !== 0) bump(this[name], key, by);
      }
    });
  }

  /** The Prometheus text exposition; `held` are the live gauges. */
  render(held: {
    traces: number;
    spans: number;
    bytes: number;
    backlogSpans: number;
    persistedBytes: number;
    eventLoopDelayP99Seconds: number;
    eventLoopDelayMaxSeconds: number;
    requestsInHand: number;
    /** Worker threads folding spans (0: in the intake's own thread). @default 0 */
    workers?: number;
  }): string {
    const lines: string[] = [];
    const counter = (name: string, help: string, value: number): void => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`, `${name} ${value}`);
    };
    const gauge = (name: string, help: string, value: number): void => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name} ${value}`);
    };
    counter('agent_incidents_gateway_spans_received_total', 'Spans accepted from clients.', this.spansReceived);
    counter('agent_incidents_gateway_spans_forwarded_total', 'Spans delivered upstream.', this.spansForwarded);
    counter(
      'agent_incidents_gateway_spans_duplicate_total',
      'Spans received again with a trace and span id already held; held once.',
      this.spansDuplicate,
    );
    counter(
      'agent_incidents_gateway_spans_recovered_total',
      'Spans read back from the persistent queue at start.',
      this.spansRecovered,
    );
    counter('agent_incidents_gateway_forward_retries_total', 'Upstream requests retried.', this.forwardRetries);
    counter(
      'agent_incidents_gateway_values_repaired_total',
      'Values that could not be forwarded as they came, replaced by a marker; their spans went on.',
      this.valuesRepaired,
    );
    counter(
      'agent_incidents_gateway_forward_splits_total',
      'Upstream requests split in two to isolate the spans upstream refused for good.',
      this.forwardSplits,
    );
    counter(
      'agent_incidents_gateway_runs_judged_early_total',
      'Runs judged while a refused sender could still bring a part of them (at best incomplete, evidence_truncated).',
      this.runsJudgedEarly,
    );
    counter(
      'agent_incidents_gateway_late_parts_total',
      'Spans that arrived under a run the gateway had already judged.',
      this.lateParts,
    );
    counter(
      'agent_incidents_gateway_revisable_traces_evicted_total',
      'Traces judged early let go before their refused senders could be back, to stay under limits.maxHeldBytes: a late part of one gets no correction.',
      this.revisableEvicted,
    );
    lines.push(
      '# HELP agent_incidents_gateway_verdicts_revised_total Verdicts corrected by an incident.verdict_revision span, by the new outcome and cause.',
      '# TYPE agent_incidents_gateway_verdicts_revised_total counter',
    );
    for (const [key, n] of this.revisions) {
      const [outcome, cause] = key.split('\u0000');
      lines.push(`agent_incidents_gateway_verdicts_revised_total{outcome="${outcome}",cause="${cause}"} ${n}`);
    }
    lines.push(
      '# HELP agent_incidents_gateway_spans_dropped_total Spans accepted and then dropped, by reason (only by explicit configuration or a permanent refusal).',
      '# TYPE agent_incidents_gateway_spans_dropped_total counter',
    );
    if (this.droppedSpans.size === 0)
      lines.push('agent_incidents_gateway_spans_dropped_total{reason="retries_exhausted"} 0');
    for (const [reason, n] of this.droppedSpans)
      lines.push(`agent_incidents_gateway_spans_dropped_total{reason="${reason}"} ${n}`);
    lines.push(
      '# HELP agent_incidents_gateway_requests_total OTLP requests answered, by HTTP status.',
      '# TYPE agent_incidents_gateway_requests_total counter',
    );
    for (const [status, n] of this.requests)
      lines.push(`agent_incidents_gateway_requests_total{status="${status}"} ${n}`);
    lines.push(
      '# HELP agent_incidents_gateway_spans_refused_total Spans refused, by reason.',
      '# TYPE agent_incidents_gateway_spans_refused_total counter',
    );
    for (const [reason, n] of this.refusedSpans)
      lines.push(`agent_incidents_gateway_spans_refused_total{reason="${reason}"} ${n}`);
    lines.push(
      '# HELP agent_incidents_gateway_requests_refused_total OTLP requests refused, by reason.',
      '# TYPE agent_incidents_gateway_requests_refused_total counter',
    );
    for (const [reason, n] of this.refusedRequests)
      lines.push(`agent_incidents_gateway_requests_refused_total{reason="${reason}"} ${n}`);
    lines.push(
      '# HELP agent_incidents_gateway_runs_total Runs judged, by incident outcome and cause.',
      '# TYPE agent_incidents_gateway_runs_total counter',
    );
    for (const [key, n] of this.runs) {
      const [outcome, cause] = key.split('\u0000');
      lines.push(`agent_incidents_gateway_runs_total{outcome="${outcome}",cause="${cause}"} ${n}`);
    }
    labelled(
      lines,
      'agent_incidents_gateway_tokens_lost_total',
      'Tokens used by attempts that did not make their run’s answer, by the run’s outcome, cause and retry safety, and token type.',
      ['outcome', 'cause', 'retry_safety', 'type'],
      this.tokensLost,
    );
    labelled(
      lines,
      'agent_incidents_gateway_cost_lost_usd_total',
      'US dollars spent on attempts that did not make their run’s answer, where they reported a cost.',
      ['outcome', 'cause', 'retry_safety'],
      this.costLost,
    );
    labelled(
      lines,
      'agent_incidents_gateway_lost_runs_total',
      'Runs with attempts that did not make their answer, by whether their lost figures are a floor (lower_bound).',
      ['outcome', 'cause', 'retry_safety', 'lower_bound'],
      this.lostRuns,
    );
    counter(
      'agent_incidents_gateway_worker_restarts_total',
      'Worker threads that exited (a crash, out of memory) and were started again.',
      this.workerRestarts,
    );
    gauge(
      'agent_incidents_gateway_workers',
      'Worker threads folding spans (0: the intake folds them).',
      held.workers ?? 0,
    );
    gauge('agent_incidents_gateway_traces_held', 'Traces held, waiting to be folded.', held.traces);
    gauge('agent_incidents_gateway_spans_held', 'Spans held, waiting to be folded.', held.spans);
    gauge(
      'agent_incidents_gateway_bytes_held',
      'Estimated memory held: decoded spans waiting, encoded requests waiting upstream, bodies being read.',
      Math.round(held.bytes),
    );
    gauge(
      'agent_incidents_gateway_requests_in_hand',
      'Requests being read, decoded or held, not yet answered: while the event loop lags, more than 2 of them make it shed.',
      held.requestsInHand,
    );
    gauge('agent_incidents_gateway_persisted_bytes', 'Bytes of the persistent queue on disk.', held.persistedBytes);
    gauge(
      'agent_incidents_gateway_event_loop_delay_p99_seconds',
      'Event-loop delay, 99th percentile since the previous scrape.',
      held.eventLoopDelayP99Seconds,
    );
    gauge(
      'agent_incidents_gateway_event_loop_delay_max_seconds',
      'Event-loop delay, longest since the previous scrape.',
      held.eventLoopDelayMaxSeconds,
    );
    gauge('process_resident_memory_bytes', 'Resident memory of the gateway process.', process.memoryUsage.rss());
    gauge(
      'agent_incidents_gateway_forward_backlog_spans',
      'Folded spans waiting to be delivered upstream.',
      held.backlogSpans,
    );
    return `${lines.join('\n')}\n`;
  }
}

function bump(map: Map<string, number>, key: string, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

/** A value of `list`, else `_OTHER` (absent: the empty string), so a label stays bounded whatever a span says. */
function closed(value: string | undefined, list: readonly string[]): string {
  if (value === undefined) return '';
  return list.includes(value) ? value : '_OTHER';
}

/** A counter family with one sample per label set; its key joins the label values with NUL. */
function labelled(lines: string[], name: string, help: string, labels: readonly string[], tally: Map<string, number>) {
  lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
  for (const [key, n] of tally) {
    const values = key.split('\u0000');
    lines.push(`${name}{${labels.map((label, i) => `${label}="${values[i] ?? ''}"`).join(',')}} ${n}`);
  }
}

/**
 * Span-metrics cardinality, end to end on 127.0.0.1: 1,000 agent processes,
 * each with its own resource (service.instance.id, host.name, process.pid),
 * send one run span each to the collector running otel-collector-config.yaml
 * as shipped; the series on its Prometheus exporter page are then counted.
 * They must number one per label combination sent (service × outcome, cause,
 * phase, retry safety), whatever the number of processes, and no per-process
 * resource attribute may become a label of its own or take more than one value
 * per service.
 *
 * No gateway: AGENT_INCIDENTS_GATEWAY_ENDPOINT points the collector's
 * otlp_http/gateway exporter at its own otlp/folded receiver, so the spans, which
 * already carry their verdicts, go traces/in → traces/runs → span_metrics →
 * prometheus as the gateway's output would. The trace backend is a closed port:
 * this test reads no trace.
 *
 * Runs only under `npm run test:e2e` (test/e2e/vitest.config.ts sets
 * AGENT_INCIDENTS_E2E=1); needs scripts/ci/install-otelcol-lb.sh first (the
 * collector: collector-contrib v0.161.0). Uses the fixed ports of
 * otel-collector-config.yaml, and fails at once if one is taken.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { listening, OTELCOL_LB_PATH, otelcolLbBinary, ROOT, Service, sleep, tails, waitFor } from './support.js';

const E2E = process.env.AGENT_INCIDENTS_E2E === '1';
const CONFIG = 'otel-collector-config.yaml';
/** Every port otel-collector-config.yaml listens on. */
const PORTS = [4317, 4318, 4320, 8888, 8889];
const APPS = 'http://127.0.0.1:4318/v1/traces'; // receiver otlp, pipeline traces/in
const FOLDED = 'http://127.0.0.1:4320'; // receiver otlp/folded (the exporter appends /v1/traces)
const PAGE = 'http://127.0.0.1:8889/metrics'; // exporter prometheus

const INSTANCES = 1000;
const PER_REQUEST = 100; // resourceSpans per OTLP/HTTP request
const SERVICES = ['cardinality-coder', 'cardinality-reader'];
/** Run-span verdicts (values of the closed lists of docs/attributes.md), and whether the span is ERROR. */
const VERDICTS: { attributes: Record<string, string>; error: boolean }[] = [
  { attributes: { 'incident.outcome': 'success' }, error: false },
  {
    attributes: {
      'incident.outcome': 'failed',
      'incident.cause': 'provider_transport_disconnect',
      'incident.phase': 'text_generation',
      'incident.retry_safety': 'offer_continue',
    },
    error: true,
  },
  {
    attributes: {
      'incident.outcome': 'cancelled',
      'incident.cause': 'user_cancel',
      'incident.phase': 'text_generation',
      'incident.retry_safety': 'do_not_retry',
    },
    error: false,
  },
  {
    attributes: {
      'incident.outcome': 'recovered',
      'incident.cause': 'provider_transport_disconnect',
      'incident.phase': 'before_first_provider_progress',
      'incident.retry_safety': 'auto_retry',
    },
    error: false,
  },
  {
    attributes: {
      'incident.outcome': 'incomplete',
      'incident.cause': 'crash_or_restart_incomplete',
      'incident.phase': 'unknown',
      'incident.retry_safety': 'unknown',
    },
    error: true,
  },
];
/** Resource attributes that differ from one agent process to the next. */
const PER_PROCESS = ['service.instance.id', 'host.name', 'process.pid'];
/**
 * Labels the connector and the exporter may put on span metrics (docs: deploy/prometheus/README.md).
 * Not collector_instance_id: the config excludes that default dimension, a UUID per collector start.
 */
const METRIC_LABELS = new Set([
  'service_name',
  'span_name',
  'span_kind',
  'status_code',
  'incident_outcome',
  'incident_cause',
  'incident_phase',
  'incident_retry_safety',
  'otel_scope_name',
  'otel_scope_version',
  'otel_scope_schema_url',
  'le',
  'job', // from the resource's service.name
  'instance', // from the resource's service.instance.id
]);

interface Instance {
  service: string;
  verdict: (typeof VERDICTS)[number];
  resource: Record<string, string | number>;
}

/** INSTANCES agent processes: services and verdicts in turn, so every (service, verdict) pair gets INSTANCES / 10 runs. */
function instances(): Instance[] {
  const tag = randomBytes(4).toString('hex');
  return Array.from({ length: INSTANCES }, (_, i) => {
    const service = SERVICES[i % SERVICES.length]!;
    return {
      service,
      verdict: VERDICTS[Math.floor(i / SERVICES.length) % VERDICTS.length]!,
      resource: {
        'service.name': service,
        'service.instance.id': `agent-${tag}-${i}`,
        'host.name': `host-${tag}-${i}`,
        'process.pid': 20_000 + i,
        'telemetry.sdk.language': 'nodejs',
      },
    };
  });
}

const otlpValue = (value: string | number): Record<string, unknown> =>
  typeof value === 'number' ? { intValue: String(value) } : { stringValue: value };
const otlpAttributes = (attributes: Record<string, string | number>): Record<string, unknown>[] =>
  Object.entries(attributes).map(([key, value]) => ({ key, value: otlpValue(value) }));

/** One resource with one finished run span (the gateway's output: the verdict is on it). */
function resourceSpans(instance: Instance, nowNanos: bigint): Record<string, unknown> {
  return {
    resource: { attributes: otlpAttributes(instance.resource) },
    scopeSpans: [
      {
        scope: { name: 'agent-incidents' },
        spans: [
          {
            traceId: randomBytes(16).toString('hex'),
            spanId: randomBytes(8).toString('hex'),
            name: `invoke_agent ${instance.service}`,
            kind: 1, // INTERNAL
            startTimeUnixNano: String(nowNanos - 3_000_000_000n),
            endTimeUnixNano: String(nowNanos),
            attributes: otlpAttributes({
              'gen_ai.operation.name': 'invoke_agent',
              'gen_ai.agent.name': instance.service,
              ...instance.verdict.attributes,
            }),
            status: instance.verdict.error ? { code: 2 } : {},
          },
        ],
      },
    ],
  };
}

async function send(all: readonly Instance[]): Promise<void> {
  const now = BigInt(Date.now()) * 1_000_000n;
  for (let i = 0; i < all.length; i += PER_REQUEST) {
    const body = JSON.stringify({
      resourceSpans: all.slice(i, i + PER_REQUEST).map((instance) => resourceSpans(instance, now)),
    });
    const response = await fetch(APPS, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    if (response.status !== 200 || /rejected(Spans|DataPoints)"?\s*:\s*"?[1-9]/.test(text))
      throw new Error(`collector answered ${response.status}: ${text}`);
  }
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition page. */
function samples(page: string): Sample[] {
  const out: Sample[] = [];
  for (const line of page.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) throw new Error(`unparsable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (match[2] ?? '').matchAll(/([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key!] = raw!.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
    }
    out.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return out;
}

/** A series' identity: its name and labels, `le` left out (a histogram's buckets are one series here). */
const seriesKey = (s: Sample): string =>
  `${s.name.replace(/_(bucket|sum|count)$/, '')}{${Object.entries(s.labels)
    .filter(([k]) => k !== 'le')
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(',')}}`;

/** A TCP port on 127.0.0.1 that nothing listens on (bound, then released). */
function closedPort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

interface Run {
  sent: Instance[];
  page: Sample[];
  text: string;
}

describe.skipIf(!E2E)('span metrics of 1,000 agent processes (npm run test:e2e)', () => {
  const services: Service[] = [];
  let otelcol = '';

  /** Starts the collector on the shipped config (plus `args`), sends a run from each of INSTANCES processes, reads the page once every run is counted. */
  const run = async (name: string, args: string[] = []): Promise<Run> => {
    const taken = [];
    for (const port of PORTS) if (await listening(port)) taken.push(port);
    if (taken.length > 0)
      throw new Error(
        `127.0.0.1 port(s) ${taken.join(', ')} already in use: stop whatever listens there (another collector?)`,
      );
    const collector = new Service(name, otelcol, [`--config=${CONFIG}`, ...args], {
      env: {
        AGENT_INCIDENTS_GATEWAY_ENDPOINT: FOLDED,
        AGENT_INCIDENTS_TRACE_BACKEND: `127.0.0.1:${await closedPort()}`,
        AGENT_INCIDENTS_HEALTHY_SAMPLE_PERCENT: '0',
      },
    });
    services.push(collector);
    await waitFor(
      'collector receivers and Prometheus exporter',
      async () =>
        (await listening(4318)) && (await listening(4320)) && (await fetch(PAGE)).status === 200 ? true : undefined,
      { timeoutMillis: 60_000, services },
    );
    const sent = instances();
    await send(sent);
    let text = '';
    let counted = 0;
    const page = await waitFor(
      `the exporter to count all ${INSTANCES} runs`,
      async () => {
        text = await (await fetch(PAGE, { signal: AbortSignal.timeout(5000) })).text();
        const all = samples(text);
        counted = all.filter((s) => s.name === 'agent_incidents_calls_total').reduce((sum, s) => sum + s.value, 0);
        return counted >= INSTANCES ? all : undefined;
      },
      { timeoutMillis: 60_000, services, describe: () => `sum(agent_incidents_calls_total) = ${counted}` },
    );
    await collector.stop();
    return { sent, page, text };
  };

  /** Distinct series per metric family on the page. */
  const seriesByFamily = (page: readonly Sample[]): Map<string, number> => {
    const keys = new Set(page.map(seriesKey));
    const counts = new Map<string, number>();
    for (const key of keys) {
      const family = key.slice(0, key.indexOf('{'));
      counts.set(family, (counts.get(family) ?? 0) + 1);
    }
    return counts;
  };

  /** The (service, verdict) label combinations sent: the series a bounded configuration may have per family. */
  const combinations = (sent: readonly Instance[]): Set<string> =>
    new Set(sent.map((i) => JSON.stringify([i.service, i.verdict.attributes, i.verdict.error])));

  beforeAll(() => {
    const binary = otelcolLbBinary();
    if (!binary)
      throw new Error(
        `no otelcol-lb binary at ${OTELCOL_LB_PATH}: run scripts/ci/install-otelcol-lb.sh (or set AGENT_INCIDENTS_OTELCOL_LB)`,
      );
    otelcol = binary;
  });

  beforeEach(({ onTestFailed }) => {
    onTestFailed(() => {
      process.stderr.write(`\nOutput of the collector at the failure:\n${tails(services)}\n`);
    });
  });

  afterEach(async () => {
    for (const service of services.splice(0)) await service.stop();
    // The collector's ports are free again before the next test starts one.
    await waitFor(
      'the collector ports to close',
      async () => ((await Promise.all(PORTS.map((p) => listening(p)))).some(Boolean) ? undefined : true),
      {
        timeoutMillis: 15_000,
        services: [],
      },
    );
    await sleep(200);
  }, 60_000);

  it(`${CONFIG} keys span metrics on service.name and closed lists, with an expiration`, () => {
    const doc = parse(readFileSync(join(ROOT, CONFIG), 'utf8')) as {
      connectors: { span_metrics: Record<string, unknown> };
      exporters: { prometheus: Record<string, unknown> };
    };
    const spanmetrics = doc.connectors.span_metrics;
    expect(spanmetrics.resource_metrics_key_attributes).toEqual(['service.name']);
    expect(spanmetrics.exclude_dimensions).toEqual(['collector.instance.id']);
    for (const duration of [spanmetrics.metrics_expiration, doc.exporters.prometheus.metric_expiration]) {
      expect(String(duration)).toMatch(/^[1-9]\d*[smh]$/);
    }
    // Resource attributes become no label of every series: neither option that would copy them is set.
    expect(doc.exporters.prometheus).not.toHaveProperty('resource_constant_labels');
    expect(doc.exporters.prometheus).not.toHaveProperty('resource_to_telemetry_conversion');
  });

  it(`as shipped: one series per label combination for ${INSTANCES} agent processes, none per process`, async () => {
    const { sent, page, text } = await run(`collector (otelcol-lb, ${CONFIG})`);
    const expected = combinations(sent).size; // 2 services × 5 verdicts
    const calls = page.filter((s) => s.name === 'agent_incidents_calls_total');
    const families = seriesByFamily(page);
    process.stdout.write(
      `\n${INSTANCES} agent processes, ${expected} label combinations: series per family ${JSON.stringify(Object.fromEntries(families))}, ${page.length} samples on the page\n`,
    );

    // Every run counted once, in one series per combination.
    expect(calls.reduce((sum, s) => sum + s.value, 0)).toBe(INSTANCES);
    expect(families.get('agent_incidents_calls_total')).toBe(expected);
    expect(families.get('agent_incidents_duration_seconds')).toBe(expected);
    for (const s of calls) expect(s.value, seriesKey(s)).toBe(INSTANCES / expected);
    // Resource metadata: at most one target_info per service; nothing else on the page.
    expect(families.get('target_info') ?? 0).toBeLessThanOrEqual(SERVICES.length);
    expect([...families.keys()].sort()).toEqual(
      expect.arrayContaining(['agent_incidents_calls_total', 'agent_incidents_duration_seconds']),
    );
    expect(
      [...families.keys()].filter(
        (f) => !['agent_incidents_calls_total', 'agent_incidents_duration_seconds', 'target_info'].includes(f),
      ),
    ).toEqual([]);

    // No per-process attribute becomes a label of the span metrics…
    for (const s of page.filter((x) => x.name.startsWith('agent_incidents_'))) {
      expect(
        Object.keys(s.labels).filter((k) => !METRIC_LABELS.has(k)),
        seriesKey(s),
      ).toEqual([]);
    }
    expect(text).not.toMatch(/service_instance_id=/);
    // …and each per-process value that reaches the page (the exporter's instance label, target_info's
    // host_name / process_pid, from the first run the connector saw of a service) is one per service.
    for (const attribute of PER_PROCESS) {
      const values = new Set(sent.map((i) => String(i.resource[attribute])));
      const seen = new Set(page.flatMap((s) => Object.values(s.labels)).filter((v) => values.has(v)));
      expect(seen.size, `values of ${attribute} on the page`).toBeLessThanOrEqual(SERVICES.length);
    }
    const instances = new Set(page.map((s) => s.labels.instance).filter((v) => v !== undefined));
    expect(instances.size).toBeLessThanOrEqual(SERVICES.length);
  });

  it('with --feature-gates=connector.spanmetrics.excludeResourceMetrics: no resource attribute reaches the page', async () => {
    const { sent, page, text } = await run(`collector (otelcol-lb, ${CONFIG}, excludeResourceMetrics)`, [
      '--feature-gates=connector.spanmetrics.excludeResourceMetrics',
    ]);
    const families = seriesByFamily(page);
    process.stdout.write(
      `with excludeResourceMetrics: series per family ${JSON.stringify(Object.fromEntries(families))}\n`,
    );
    expect(page.filter((s) => s.name === 'agent_incidents_calls_total').reduce((sum, s) => sum + s.value, 0)).toBe(
      INSTANCES,
    );
    expect(families.get('agent_incidents_calls_total')).toBe(combinations(sent).size);
    expect(families.has('target_info')).toBe(false);
    for (const s of page)
      expect(
        Object.keys(s.labels).filter((k) => k === 'job' || k === 'instance'),
        seriesKey(s),
      ).toEqual([]);
    for (const instance of sent) expect(text.includes(String(instance.resource['service.instance.id']))).toBe(false);
  });
});

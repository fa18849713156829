/**
 * End to end, all on 127.0.0.1: the demo fleet → collector (otelcol-lb,
 * collector-contrib v0.161.0, running otel-collector-config.yaml) →
 * agent-incidents gateway (deploy/collector/gateway.yaml) → collector → tail
 * sampling → Jaeger (deploy/jaeger/jaeger.yaml), and span metrics (the
 * span_metrics connector) → Prometheus (deploy/prometheus/prometheus.yaml with
 * alerts.yaml).
 *
 * Runs only under `npm run test:e2e` (test/e2e/vitest.config.ts sets
 * AGENT_INCIDENTS_E2E=1); needs scripts/ci/install-otelcol-lb.sh,
 * scripts/ci/install-jaeger.sh and scripts/ci/install-prometheus.sh first. Uses
 * the fixed ports of those files, and fails at once if one is taken.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { RunRow } from '../../src/report/otlp-json.js';
import { runRowsFromOtlpJsonLines } from '../../src/report/otlp-json.js';
import {
  executable,
  getJson,
  JAEGER_PATH,
  jaegerBinary,
  listening,
  OTELCOL_LB_PATH,
  otelcolLbBinary,
  ROOT,
  Service,
  sleep,
  tails,
  waitFor,
} from './support.js';

const run = promisify(execFile);

const E2E = process.env.AGENT_INCIDENTS_E2E === '1';
const PROMETHEUS_CONFIG = join(ROOT, 'deploy/prometheus/prometheus.yaml');
const ALERTS = join(ROOT, 'deploy/prometheus/alerts.yaml');
const SERVICE_NAME = 'agent-incidents-demo';
const RUNS_PER_WAVE = 200;
const PROMETHEUS_PORT = 9090;
/** Every port the stack listens on (see the config files). */
const PORTS = [4317, 4318, 4319, 4320, 8888, 8889, PROMETHEUS_PORT, 14317, 14318, 16685, 16686];
/**
 * Rule windows are divided by this for the test, so "10 minutes" of history
 * takes 10 seconds: 10m → 10s, 1h → 60s, `for: 10m` → 10s.
 */
const TIME_COMPRESSION = 60;

const prometheusURL = (path: string): string => `http://127.0.0.1:${PROMETHEUS_PORT}${path}`;

function countByCause(rows: readonly RunRow[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const row of rows) if (row.cause) counts.set(row.cause, (counts.get(row.cause) ?? 0) + 1);
  return counts;
}

/** Seconds of a Prometheus duration such as `1h30m` or `90s`. */
function seconds(duration: string): number {
  const units: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400, w: 604800, y: 31536000 };
  let total = 0;
  for (const [, n, unit] of duration.matchAll(/(\d+)(ms|[smhdwy])/g)) total += Number(n) * units[unit!]!;
  return total;
}

const compressed = (duration: string): string => `${Math.max(1, Math.round(seconds(duration) / TIME_COMPRESSION))}s`;
const DURATION = '\\d+(?:ms|[smhdwy])(?:\\d+(?:ms|[smhdwy]))*';

/** Range selectors, subqueries and offsets of a PromQL expression, compressed. */
function compressExpr(expr: string): string {
  return expr
    .replace(
      new RegExp(`\\[(${DURATION})(?::(${DURATION})?)?\\]`, 'g'),
      (_m, range: string, step?: string) =>
        `[${compressed(range)}${step === undefined ? (_m.includes(':') ? ':' : '') : `:${compressed(step)}`}]`,
    )
    .replace(
      new RegExp(`\\boffset\\s+(-?)(${DURATION})`, 'g'),
      (_m, sign: string, d: string) => `offset ${sign}${compressed(d)}`,
    );
}

interface Rule {
  expr?: string;
  for?: string;
  keep_firing_for?: string;
  alert?: string;
}

/** A copy of a rules file whose windows and `for` durations are divided by TIME_COMPRESSION. */
function compressRules(text: string): { doc: { groups: { interval?: string; rules: Rule[] }[] }; alerts: string[] } {
  const doc = parse(text) as { groups: { interval?: string; rules: Rule[] }[] };
  const alerts: string[] = [];
  for (const group of doc.groups ?? []) {
    if (group.interval) group.interval = '1s';
    for (const rule of group.rules ?? []) {
      if (rule.expr) rule.expr = compressExpr(String(rule.expr));
      if (rule.for) rule.for = compressed(rule.for);
      if (rule.keep_firing_for) rule.keep_firing_for = compressed(rule.keep_firing_for);
      if (rule.alert) alerts.push(rule.alert);
    }
  }
  return { doc, alerts };
}

/**
 * deploy/prometheus/prometheus.yaml for the test: 1s scrape and evaluation,
 * compressed copies of its rule files, every target checked to be loopback.
 */
function prometheusConfig(dir: string): { file: string; alerts: string[] } {
  const config = parse(readFileSync(PROMETHEUS_CONFIG, 'utf8')) as {
    global?: Record<string, unknown>;
    rule_files?: string[];
    scrape_configs?: {
      job_name: string;
      scrape_interval?: string;
      scrape_timeout?: string;
      static_configs?: { targets: string[] }[];
    }[];
  };
  config.global = { ...config.global, scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' };
  for (const job of config.scrape_configs ?? []) {
    delete job.scrape_interval;
    delete job.scrape_timeout;
    for (const target of (job.static_configs ?? []).flatMap((s) => s.targets)) {
      if (!/^(127\.0\.0\.1|localhost):\d+$/.test(target))
        throw new Error(`${PROMETHEUS_CONFIG}: job ${job.job_name} scrapes ${target}, not loopback`);
    }
  }
  const alerts: string[] = [];
  const rules: string[] = [];
  for (const [index, pattern] of (config.rule_files ?? []).entries()) {
    const full = resolve(dirname(PROMETHEUS_CONFIG), pattern);
    const match = new RegExp(
      `^${basename(full)
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
    );
    for (const name of readdirSync(dirname(full)).filter((n) => match.test(n))) {
      const compressedRules = compressRules(readFileSync(join(dirname(full), name), 'utf8'));
      const copy = join(dir, `rules-${index}-${name}`);
      writeFileSync(copy, JSON.stringify(compressedRules.doc, null, 1));
      rules.push(copy);
      alerts.push(...compressedRules.alerts);
    }
  }
  config.rule_files = rules;
  const file = join(dir, 'prometheus.yaml');
  writeFileSync(file, JSON.stringify(config, null, 1));
  return { file, alerts };
}

async function promQuery(query: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
  const { status, body } = await getJson(prometheusURL(`/api/v1/query?query=${encodeURIComponent(query)}`));
  if (status !== 200) throw new Error(`Prometheus answered ${status} to ${query}: ${JSON.stringify(body)}`);
  return (body as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } }).data.result;
}

async function promSum(query: string): Promise<number> {
  const result = await promQuery(query);
  return result.length === 0 ? 0 : Number(result[0]!.value[1]);
}

/** Traces Jaeger's legacy search finds for one incident.cause (404 or empty: none). */
async function jaegerTraces(cause: string): Promise<number> {
  const tags = encodeURIComponent(JSON.stringify({ 'incident.cause': cause }));
  const { status, body } = await getJson(
    `http://127.0.0.1:16686/api/traces?service=${SERVICE_NAME}&tags=${tags}&limit=10000`,
  );
  if (status === 404) return 0;
  if (status !== 200) throw new Error(`Jaeger answered ${status}: ${JSON.stringify(body).slice(0, 500)}`);
  return ((body as { data?: unknown[] | null }).data ?? []).length;
}

describe.skipIf(!E2E)('collector pipeline end to end (npm run test:e2e)', () => {
  const services: Service[] = [];
  const waves: RunRow[][] = [];
  let scratch = '';
  let alertNames: string[] = [];

  const start = (name: string, command: string, args: string[], env?: NodeJS.ProcessEnv): Service => {
    const service = new Service(name, command, args, { env });
    services.push(service);
    return service;
  };

  /** One demo wave exporting to the collector; returns the runs the demo says it produced. */
  const wave = async (seed: number): Promise<RunRow[]> => {
    const out = join(scratch, `wave-${seed}.otlp.jsonl`);
    const args = [
      'dist/cli.js',
      'demo',
      '--runs',
      String(RUNS_PER_WAVE),
      '--seed',
      String(seed),
      '--out',
      out,
      '--otlp-endpoint',
      'http://127.0.0.1:4318/v1/traces',
    ];
    try {
      await run(process.execPath, args, { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, timeout: 120_000 });
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string; message: string };
      throw new Error(
        `demo wave ${seed} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}\n\n${tails(services)}`,
      );
    }
    const rows = runRowsFromOtlpJsonLines(readFileSync(out, 'utf8'));
    expect(rows).toHaveLength(RUNS_PER_WAVE);
    return rows;
  };

  beforeEach(({ onTestFailed }) => {
    onTestFailed(() => {
      process.stderr.write(`\nOutput of the services at the failure:\n${tails(services)}\n`);
    });
  });

  beforeAll(async () => {
    const jaeger = jaegerBinary();
    if (!jaeger)
      throw new Error(
        `no Jaeger binary at ${JAEGER_PATH}: run scripts/ci/install-jaeger.sh (or set AGENT_INCIDENTS_JAEGER)`,
      );
    const otelcol = otelcolLbBinary();
    if (!otelcol)
      throw new Error(
        `no otelcol-lb binary at ${OTELCOL_LB_PATH}: run scripts/ci/install-otelcol-lb.sh (or set AGENT_INCIDENTS_OTELCOL_LB)`,
      );
    const prometheus = executable('prometheus', 'AGENT_INCIDENTS_PROMETHEUS');
    if (!prometheus)
      throw new Error(
        'no prometheus on PATH: run scripts/ci/install-prometheus.sh (or set AGENT_INCIDENTS_PROMETHEUS)',
      );
    if (!existsSync(join(ROOT, 'dist/cli.js'))) throw new Error('dist/cli.js is missing: npm run build');
    if (!existsSync(PROMETHEUS_CONFIG)) throw new Error(`${PROMETHEUS_CONFIG} is missing`);
    const taken = [];
    for (const port of PORTS) if (await listening(port)) taken.push(port);
    if (taken.length > 0)
      throw new Error(
        `127.0.0.1 port(s) ${taken.join(', ')} already in use: stop whatever listens there (another collector, Jaeger or Prometheus?)`,
      );
    scratch = mkdtempSync(join(tmpdir(), 'agent-incidents-e2e-'));

    // 1. The trace backend.
    start('jaeger (storage + query, deploy/jaeger/jaeger.yaml)', jaeger, ['--config=deploy/jaeger/jaeger.yaml']);
    await waitFor(
      'Jaeger query API',
      async () =>
        (await getJson('http://127.0.0.1:16686/api/services')).status === 200 && (await listening(14317))
          ? true
          : undefined,
      {
        timeoutMillis: 60_000,
        services,
      },
    );
    // 2. The collector, both halves, as shipped (defaults: healthy traces sampled at 10%).
    start('collector (otelcol-lb, otel-collector-config.yaml)', otelcol, ['--config=otel-collector-config.yaml'], {
      AGENT_INCIDENTS_HEALTHY_SAMPLE_PERCENT: undefined,
      AGENT_INCIDENTS_TRACE_BACKEND: undefined,
      AGENT_INCIDENTS_GATEWAY_ENDPOINT: undefined,
    });
    await waitFor(
      'collector receivers and Prometheus exporter',
      async () =>
        (await listening(4318)) &&
        (await listening(4320)) &&
        (await getJson('http://127.0.0.1:8889/metrics')).status === 200
          ? true
          : undefined,
      { timeoutMillis: 60_000, services },
    );
    // 3. The gateway.
    start('gateway (deploy/collector/gateway.yaml)', process.execPath, [
      'dist/cli.js',
      'gateway',
      '--config',
      'deploy/collector/gateway.yaml',
    ]);
    await waitFor(
      'gateway /healthz',
      async () => ((await getJson('http://127.0.0.1:4319/healthz')).status === 200 ? true : undefined),
      { timeoutMillis: 30_000, services },
    );
    // 4. Prometheus, with its rules' windows compressed.
    const promDir = join(scratch, 'prometheus');
    mkdirSync(promDir);
    const prom = prometheusConfig(promDir);
    alertNames = prom.alerts;
    start('prometheus (deploy/prometheus/prometheus.yaml, 1s intervals, rule windows / 60)', prometheus, [
      `--config.file=${prom.file}`,
      `--storage.tsdb.path=${join(promDir, 'data')}`,
      `--web.listen-address=127.0.0.1:${PROMETHEUS_PORT}`,
      '--log.level=warn',
    ]);
    await waitFor(
      'Prometheus ready',
      async () => ((await getJson(prometheusURL('/-/ready'))).status === 200 ? true : undefined),
      { timeoutMillis: 60_000, services },
    );
    await waitFor(
      'Prometheus scraping the collector',
      async () => ((await promSum('sum(up{instance="127.0.0.1:8889"})')) === 1 ? true : undefined),
      {
        timeoutMillis: 30_000,
        services,
      },
    );

    // 5. Two waves, with Prometheus scrapes between them, so the counters increase over time.
    let lastSum = 0;
    const describeSum = (): string => `sum(agent_incidents_calls_total) = ${lastSum}`;
    waves.push(await wave(1));
    await waitFor(
      `Prometheus to count the ${RUNS_PER_WAVE} runs of wave 1`,
      async () => ((lastSum = await promSum('sum(agent_incidents_calls_total)')) === RUNS_PER_WAVE ? true : undefined),
      { timeoutMillis: 60_000, services, describe: describeSum },
    );
    // The alert rules compare with the series 10 (compressed) minutes ago: let wave 1 age past that.
    await sleep(12_000);
    waves.push(await wave(2));
    await waitFor(
      `Prometheus to count the ${2 * RUNS_PER_WAVE} runs of both waves`,
      async () =>
        (lastSum = await promSum('sum(agent_incidents_calls_total)')) === 2 * RUNS_PER_WAVE ? true : undefined,
      { timeoutMillis: 60_000, services, describe: describeSum },
    );
  }, 300_000);

  afterAll(async () => {
    for (const service of [...services].reverse()) await service.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }, 60_000);

  it('Jaeger finds, for every cause the demo produced, exactly the runs the demo reported', async () => {
    const demo = countByCause(waves.flat());
    expect(demo.has('crash_or_restart_incomplete'), 'the demo must produce crashed runs').toBe(true);
    // What the stack should store: the demo's verdicts, except the known gateway second verdict.
    const expected = new Map<string, number>();
    for (const [cause, n] of demo) {
      expected.set(cause, (expected.get(cause) ?? 0) + n);
    }
    const causes = [...expected.keys()].sort();
    let found = new Map<string, number>();
    await waitFor(
      'Jaeger to hold every incident trace',
      async () => {
        found = new Map(
          await Promise.all(causes.map(async (c): Promise<[string, number]> => [c, await jaegerTraces(c)])),
        );
        return causes.every((c) => found.get(c) === expected.get(c)) ? true : undefined;
      },
      {
        timeoutMillis: 60_000,
        services,
        intervalMillis: 1000,
        describe: () => JSON.stringify(Object.fromEntries(found)),
      },
    );
    const table = causes
      .map(
        (c) =>
          `${c.padEnd(32)} demo ${String(demo.get(c) ?? 0).padStart(3)}  jaeger ${String(found.get(c)).padStart(3)}`,
      )
      .join('\n');
    process.stdout.write(`\nruns per incident.cause, both waves:\n${table}\n`);
    for (const c of causes) expect(found.get(c), `Jaeger traces with incident.cause=${c}`).toBe(expected.get(c));
    // Runs the demo's processor finalized as never ended keep that verdict through the gateway.
    expect(found.get('crash_or_restart_incomplete')).toBeGreaterThan(0);
  });

  it('tail sampling keeps only a sample of the successful runs', async () => {
    const successes = waves.flat().filter((r) => r.outcome === 'success').length;
    const tags = encodeURIComponent(JSON.stringify({ 'incident.outcome': 'success' }));
    const { status, body } = await getJson(
      `http://127.0.0.1:16686/api/traces?service=${SERVICE_NAME}&tags=${tags}&limit=10000`,
    );
    const kept = status === 404 ? 0 : ((body as { data?: unknown[] | null }).data ?? []).length;
    process.stdout.write(`successful runs kept by tail sampling: ${kept} of ${successes}\n`);
    // 10% of ~370 runs: the chance of keeping none, or all, is negligible.
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(successes / 2);
  });

  it('Prometheus has agent_incidents_calls_total for every cause, one count per run', async () => {
    const byCause = await promQuery('sum by (incident_cause) (agent_incidents_calls_total{incident_cause!=""})');
    const prom = new Map(byCause.map((r) => [r.metric.incident_cause!, Number(r.value[1])]));
    const expected = new Map<string, number>();
    for (const [cause, n] of countByCause(waves.flat())) {
      expected.set(cause, (expected.get(cause) ?? 0) + n);
    }
    expect(Object.fromEntries(prom)).toEqual(Object.fromEntries(expected));
    const successes = waves.flat().filter((r) => r.outcome === 'success').length;
    expect(await promSum('sum(agent_incidents_calls_total{incident_outcome="success"})')).toBe(successes);
    // Every label the alert rules select on is there.
    const labels = await promQuery(
      'count by (incident_outcome, incident_cause, incident_phase, incident_retry_safety, service_name, status_code) (agent_incidents_calls_total{incident_cause!=""})',
    );
    for (const r of labels) {
      expect(r.metric).toMatchObject({ service_name: SERVICE_NAME });
      expect(Object.keys(r.metric).sort()).toEqual([
        'incident_cause',
        'incident_outcome',
        'incident_phase',
        'incident_retry_safety',
        'service_name',
        'status_code',
      ]);
    }
  });

  it('Prometheus has the lost usage of the same run spans, by closed labels only (signal_to_metrics)', async () => {
    // The demo reports no usage: its runs lost attempts worth 0 tokens, a floor. The series exist all the same.
    const runs = waves.flat().length;
    const lostRuns = await promSum('sum(agent_incidents_spans_lost_runs_total)');
    expect(lostRuns).toBeGreaterThan(0);
    expect(lostRuns).toBeLessThanOrEqual(runs);
    // One count per run span the demo exported with lost usage (the gateway keeps the verdicts they carry).
    const exported = readdirSync(scratch)
      .filter((f) => /^wave-.*\.otlp\.jsonl$/.test(f))
      .map((f) => readFileSync(join(scratch, f), 'utf8').match(/"incident\.lost\.attempts"/g)?.length ?? 0)
      .reduce((a, b) => a + b, 0);
    expect(lostRuns).toBe(exported);
    const tokens = await promQuery('agent_incidents_spans_tokens_lost_total');
    expect(new Set(tokens.map((r) => r.metric.gen_ai_token_type))).toEqual(new Set(['input', 'output']));
    const allowed = new Set([
      '__name__',
      'job',
      'instance',
      'exported_job',
      'otel_scope_name',
      'otel_scope_schema_url',
      'otel_scope_version',
      'incident_outcome',
      'incident_cause',
      'incident_retry_safety',
      'gen_ai_token_type',
    ]);
    for (const r of tokens) {
      expect(r.metric.exported_job).toBe(SERVICE_NAME);
      expect(Object.keys(r.metric).filter((k) => !allowed.has(k))).toEqual([]);
    }
  });

  it.skipIf(!existsSync(ALERTS))('Prometheus fires alerts from deploy/prometheus/alerts.yaml', async () => {
    const { body: rules } = await getJson(prometheusURL('/api/v1/rules'));
    const loaded = (rules as { data: { groups: { rules: { name: string; type: string }[] }[] } }).data.groups
      .flatMap((g) => g.rules)
      .filter((r) => r.type === 'alerting');
    expect(loaded.map((r) => r.name).sort()).toEqual([...alertNames].sort());
    let firing: string[] = [];
    await waitFor(
      'an alert to fire',
      async () => {
        const { body } = await getJson(prometheusURL('/api/v1/alerts'));
        const alerts = (body as { data: { alerts: { state: string; labels: Record<string, string> }[] } }).data.alerts;
        firing = [...new Set(alerts.filter((a) => a.state === 'firing').map((a) => a.labels.alertname!))].sort();
        return firing.length > 0 ? firing : undefined;
      },
      {
        timeoutMillis: 60_000,
        services,
        intervalMillis: 500,
        describe: () => `firing: ${firing.join(', ') || 'none'}`,
      },
    );
    process.stdout.write(`\nfiring alerts: ${firing.join(', ')}\n`);
    expect(firing.every((name) => alertNames.includes(name))).toBe(true);
  });
});

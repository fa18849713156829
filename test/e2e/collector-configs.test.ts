/**
 * The collector configurations we ship: every one except Jaeger's own passes
 * `otelcol-lb validate` as shipped (otelcol-lb: the project's collector build,
 * collector-contrib v0.161.0, every component the configs use) and names its
 * components only by their current names, never a deprecated alias; every one
 * the Jaeger v2 binary has components for (deploy/jaeger/jaeger.yaml) passes
 * `jaeger validate`; the gateway's config joins the collector's; every address
 * is on loopback. Each validate part skips when its binary is missing (build
 * them with scripts/ci/install-otelcol-lb.sh and scripts/ci/install-jaeger.sh,
 * or point AGENT_INCIDENTS_OTELCOL_LB / AGENT_INCIDENTS_JAEGER at them).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadGatewayConfig } from '../../src/gateway/config.js';
import { JAEGER_PATH, jaegerBinary, OTELCOL_LB_PATH, otelcolLbBinary, ROOT } from './support.js';

const KINDS = ['receivers', 'processors', 'exporters', 'connectors', 'extensions'] as const;
type Kind = (typeof KINDS)[number];
type Doc = Record<string, unknown>;

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(entry.name) ? [path] : [];
  });
}

function read(path: string): Doc {
  return parse(readFileSync(path, 'utf8')) as Doc;
}

/** Collector configurations: the root file and every YAML under deploy/ with service.pipelines. */
const CONFIGS = [join(ROOT, 'otel-collector-config.yaml'), ...yamlFiles(join(ROOT, 'deploy'))]
  .filter((path) => {
    const doc = read(path);
    return typeof (doc?.service as Doc | undefined)?.pipelines === 'object';
  })
  .map((path) => relative(ROOT, path))
  .sort();

/** The component types a config uses, by kind (`otlp/folded` is of type `otlp`). */
function componentsOf(doc: Doc): Record<Kind, string[]> {
  const out = {} as Record<Kind, string[]>;
  for (const kind of KINDS)
    out[kind] = Object.keys((doc[kind] as Doc | undefined) ?? {}).map((id) => id.split('/')[0]!);
  return out;
}

/** `${env:NAME:-default}` → default, as the collector resolves it with NAME unset. */
function withDefaults(value: unknown): string {
  return String(value).replace(/\$\{env:[A-Za-z_][A-Za-z0-9_]*:-([^}]*)\}/g, '$1');
}

/** `<binary> validate --config=<file>`: exit status and output (the version banner left out). */
function validateWith(binary: string, file: string): { status: number | null; output: string } {
  const result = spawnSync(binary, ['validate', `--config=${file}`], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return {
    status: result.status,
    output: `${result.stdout}${result.stderr}`.replace(/^.*application version.*\n/gm, ''),
  };
}

/** The component types a collector binary has, by kind (`<binary> components`). */
function componentsIn(binary: string | undefined): Record<Kind, Set<string>> {
  if (!binary) return Object.fromEntries(KINDS.map((k) => [k, new Set<string>()])) as Record<Kind, Set<string>>;
  const listed = parse(spawnSync(binary, ['components'], { encoding: 'utf8', timeout: 60_000 }).stdout) as Record<
    string,
    { name: string }[] | null
  >;
  return Object.fromEntries(KINDS.map((k) => [k, new Set((listed[k] ?? []).map((c) => c.name))])) as Record<
    Kind,
    Set<string>
  >;
}

/** The components `file` uses that `available` lacks, as `kind.type`. */
function missingFrom(available: Record<Kind, Set<string>>, file: string): string[] {
  const used = componentsOf(read(join(ROOT, file)));
  return [
    ...new Set(
      KINDS.flatMap((kind) => used[kind].filter((type) => !available[kind].has(type)).map((type) => `${kind}.${type}`)),
    ),
  ];
}

/** Every `endpoint`/`host`/`hostnames` value in a document, with its path. */
function addresses(node: unknown, path = ''): [string, string][] {
  if (Array.isArray(node)) return node.flatMap((item, i) => addresses(item, `${path}[${i}]`));
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node as Doc).flatMap(([key, value]) => {
    const here = path ? `${path}.${key}` : key;
    if ((key === 'endpoint' || key === 'host') && typeof value !== 'object') return [[here, withDefaults(value)]];
    if (key === 'hostnames' && Array.isArray(value))
      return value.map((v, i): [string, string] => [`${here}[${i}]`, withDefaults(v)]);
    return addresses(value, here);
  });
}

describe('shipped collector configurations', () => {
  it('finds the collector configurations', () => {
    expect(CONFIGS).toEqual(
      expect.arrayContaining([
        'otel-collector-config.yaml',
        'deploy/jaeger/jaeger.yaml',
        'deploy/collector/scale-out.yaml',
        'deploy/collector/scale-out-sidecar.yaml',
      ]),
    );
    expect(CONFIGS).not.toContain('deploy/collector/gateway.yaml');
  });

  it.each(CONFIGS)('%s listens and sends on loopback only', (file) => {
    const found = addresses(read(join(ROOT, file)));
    expect(found.length).toBeGreaterThan(0);
    for (const [path, address] of found) {
      expect(address, `${file} ${path}`).toMatch(/^(https?:\/\/)?127\.0\.0\.1(:\d+)?(\/|$)/);
    }
  });

  it('deploy/collector/gateway.yaml is a valid gateway config between the two halves of otel-collector-config.yaml', () => {
    const gateway = loadGatewayConfig(join(ROOT, 'deploy/collector/gateway.yaml'));
    const collector = read(join(ROOT, 'otel-collector-config.yaml'));
    const exporters = collector.exporters as Doc;
    const receivers = collector.receivers as Doc;
    // The collector sends application spans to the gateway's listen address…
    const toGateway = new URL(withDefaults((exporters['otlp_http/gateway'] as Doc).endpoint));
    expect(toGateway.hostname).toBe(gateway.listen.host);
    expect(Number(toGateway.port)).toBe(gateway.listen.port);
    // …and the gateway forwards to the collector's second receiver, not back into the first.
    const upstream = new URL(gateway.upstream.endpoint);
    const folded = ((receivers['otlp/folded'] as Doc).protocols as Doc).http as Doc;
    expect(`${upstream.hostname}:${upstream.port}`).toBe(withDefaults(folded.endpoint));
    expect(upstream.pathname).toBe('/v1/traces');
    const first = (receivers.otlp as Doc).protocols as Doc;
    expect(withDefaults((first.http as Doc).endpoint)).not.toBe(withDefaults(folded.endpoint));
  });

  it('deploy/collector/scale-out.yaml routes by trace ID to two sidecars, the first at scale-out-sidecar.yaml’s default address', () => {
    const tier1 = read(join(ROOT, 'deploy/collector/scale-out.yaml'));
    const balancing = (tier1.exporters as Doc).load_balancing as {
      routing_key: string;
      resolver: { static: { hostnames: string[] } };
    };
    expect(balancing.routing_key).toBe('traceID');
    const hostnames = balancing.resolver.static.hostnames;
    expect(hostnames).toHaveLength(2);
    expect(new Set(hostnames).size).toBe(2);
    const sidecar = read(join(ROOT, 'deploy/collector/scale-out-sidecar.yaml'));
    const grpc = (((sidecar.receivers as Doc).otlp as Doc).protocols as Doc).grpc as Doc;
    expect(withDefaults(grpc.endpoint)).toBe(hostnames[0]);
  });

  it('otel-collector-config.yaml names its span metrics as the alert rules expect', () => {
    const collector = read(join(ROOT, 'otel-collector-config.yaml'));
    const spanmetrics = (collector.connectors as Doc).span_metrics as Doc;
    // agent_incidents.calls → agent_incidents_calls_total{incident_cause, …} in Prometheus.
    expect(spanmetrics.namespace).toBe('agent_incidents');
    expect((spanmetrics.dimensions as { name: string }[]).map((d) => d.name)).toEqual([
      'incident.outcome',
      'incident.cause',
      'incident.phase',
      'incident.retry_safety',
    ]);
    const pipelines = (collector.service as Doc).pipelines as Record<
      string,
      { processors?: string[]; exporters?: string[] }
    >;
    const feeding = Object.values(pipelines).filter((p) => p.exporters?.includes('span_metrics'));
    expect(feeding).toHaveLength(1);
    expect(feeding[0]!.processors).toContain('filter/runs');
    // One collector writes these series: no per-start UUID label (the connector adds one by default in v0.161; v0.140 did not).
    expect(spanmetrics.exclude_dimensions).toEqual(['collector.instance.id']);
  });

  it('otel-collector-config.yaml sums the lost usage of the same run spans, by closed labels only, under the names the alert rules use', () => {
    const collector = read(join(ROOT, 'otel-collector-config.yaml'));
    const lost = ((collector.connectors as Doc).signal_to_metrics as Doc).spans as {
      name: string;
      include_resource_attributes: { key: string }[];
      attributes: { key: string; default_value?: unknown }[];
    }[];
    // agent_incidents.spans.tokens.lost → agent_incidents_spans_tokens_lost_total{…, gen_ai_token_type} in Prometheus.
    expect(lost.map((m) => m.name)).toEqual([
      'agent_incidents.spans.tokens.lost',
      'agent_incidents.spans.tokens.lost',
      'agent_incidents.spans.cost.lost',
      'agent_incidents.spans.lost.runs',
    ]);
    const closed = ['incident.outcome', 'incident.cause', 'incident.retry_safety'];
    expect(lost.map((m) => m.attributes.map((a) => a.key))).toEqual([
      [...closed, 'gen_ai.token.type'],
      [...closed, 'gen_ai.token.type'],
      closed,
      [...closed, 'incident.lost.lower_bound'],
    ]);
    expect(lost.slice(0, 2).map((m) => m.attributes[3]?.default_value)).toEqual(['input', 'output']);
    // Never a per-process resource attribute: one set of series per service.
    for (const metric of lost) expect(metric.include_resource_attributes).toEqual([{ key: 'service.name' }]);
    const pipelines = (collector.service as Doc).pipelines as Record<
      string,
      { receivers?: string[]; processors?: string[]; exporters?: string[] }
    >;
    const feeding = Object.entries(pipelines).filter(([, p]) => p.exporters?.includes('signal_to_metrics'));
    expect(feeding.map(([name]) => name)).toEqual(['traces/runs']);
    // Its deltas are added up before the prometheus exporter, which would read two batches as a reset.
    const out = Object.values(pipelines).filter((p) => p.receivers?.includes('signal_to_metrics'));
    expect(out).toEqual([
      { receivers: ['signal_to_metrics'], processors: ['delta_to_cumulative'], exporters: ['prometheus'] },
    ]);
  });
});

const jaeger = jaegerBinary();

describe.skipIf(!jaeger)(
  `jaeger validate${jaeger ? '' : ` (skipped: no Jaeger binary at ${JAEGER_PATH}; run scripts/ci/install-jaeger.sh)`}`,
  () => {
    const scratch = mkdtempSync(join(tmpdir(), 'agent-incidents-configs-'));
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));

    /** The component types this Jaeger build has, by kind. */
    const available = componentsIn(jaeger);

    for (const file of CONFIGS) {
      const missing = jaeger ? missingFrom(available, file) : [];
      if (missing.length > 0) {
        it.skip(`${file} (skipped: needs ${missing.join(', ')}, which this Jaeger build lacks; otelcol-lb validates it below)`, () => {});
        continue;
      }
      it(`${file} passes jaeger validate`, () => {
        const { status, output } = validateWith(jaeger!, file);
        expect(status, output).toBe(0);
      });
    }

    it('covers the trace backend, deploy/jaeger/jaeger.yaml', () => {
      expect(CONFIGS.filter((file) => missingFrom(available, file).length === 0)).toContain(
        'deploy/jaeger/jaeger.yaml',
      );
    });

    it('rejects a broken configuration (the check is not vacuous)', () => {
      const broken = join(scratch, 'broken.yaml');
      writeFileSync(
        broken,
        readFileSync(join(ROOT, 'deploy/jaeger/jaeger.yaml'), 'utf8').replace('max_traces:', 'max_trace_count:'),
      );
      const { status, output } = validateWith(jaeger!, broken);
      expect(status).not.toBe(0);
      expect(output).toContain('max_trace_count');
    });
  },
);

const otelcolLb = otelcolLbBinary();

describe.skipIf(!otelcolLb)(
  `otelcol-lb validate${otelcolLb ? '' : ` (skipped: no otelcol-lb binary at ${OTELCOL_LB_PATH}; run scripts/ci/install-otelcol-lb.sh)`}`,
  () => {
    const scratch = mkdtempSync(join(tmpdir(), 'agent-incidents-configs-lb-'));
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));

    /** The component types of otelcol-lb, by kind. */
    const available = componentsIn(otelcolLb);
    /** The shipped configurations otelcol-lb has every component for. */
    const covered = CONFIGS.filter((file) => otelcolLb && missingFrom(available, file).length === 0);

    it("covers every collector configuration but Jaeger's own, by the current component names", () => {
      // `components` lists each component by its current name only (span_metrics, otlp_http, otlp_grpc,
      // load_balancing), not by a deprecated alias (spanmetrics, otlphttp, otlp, loadbalancing), which
      // would still load, with a warning: a config using one would fall out of `covered` and fail here.
      expect(available.connectors.has('span_metrics')).toBe(true);
      expect(available.connectors.has('spanmetrics')).toBe(false);
      expect(available.exporters.has('load_balancing')).toBe(true);
      expect(covered).toEqual(CONFIGS.filter((file) => file !== 'deploy/jaeger/jaeger.yaml'));
    });

    // As shipped: no component swapped, no option overridden.
    it.each(covered)('%s passes otelcol-lb validate', (file) => {
      const { status, output } = validateWith(otelcolLb!, file);
      expect(status, output).toBe(0);
    });

    it('rejects a broken configuration (the check is not vacuous)', () => {
      const broken = join(scratch, 'broken.yaml');
      writeFileSync(
        broken,
        readFileSync(join(ROOT, 'otel-collector-config.yaml'), 'utf8').replace('limit_mib:', 'limit_mebibytes:'),
      );
      const { status, output } = validateWith(otelcolLb!, broken);
      expect(status).not.toBe(0);
      expect(output).toContain('limit_mebibytes');
    });

    it('rejects a broken load_balancing exporter (the check is not vacuous)', () => {
      const broken = join(scratch, 'broken-scale-out.yaml');
      writeFileSync(
        broken,
        readFileSync(join(ROOT, 'deploy/collector/scale-out.yaml'), 'utf8').replace(
          'routing_key: traceID',
          'routing_key: nonsense',
        ),
      );
      const { status, output } = validateWith(otelcolLb!, broken);
      expect(status).not.toBe(0);
      expect(output).toContain('nonsense');
    });
  },
);

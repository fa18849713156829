/**
 * Ports agree everywhere: every loopback port the docs, the examples' READMEs and the CLI name is one a
 * shipped config listens on (otel-collector-config.yaml, deploy/**, deploy/compose.yaml), and the port
 * table of docs/quickstart.md says what each config says.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadGatewayConfig } from '../../src/gateway/config.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string): string => readFileSync(join(root, path), 'utf8');

function files(dir: string, match: RegExp): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : files(path, match);
    return match.test(entry.name) ? [path] : [];
  });
}

/** `${env:NAME:-default}` → default: what the configs listen on when nothing overrides them. */
const withDefaults = (value: unknown): string => String(value).replace(/\$\{env:[A-Za-z_]\w*:-([^}]*)\}/g, '$1');

/** Ports the shipped configs listen on, each with the files that say so. */
function listenedPorts(): Map<number, string[]> {
  const found = new Map<number, string[]>();
  const ports = { set: (port: number, file: string): void => void found.set(port, [...(found.get(port) ?? []), file]) };
  const collectorFiles = ['otel-collector-config.yaml', ...files('deploy', /\.ya?ml$/)].filter((f) => {
    const doc = parse(read(f)) as { service?: { pipelines?: unknown } } | null;
    return typeof doc?.service?.pipelines === 'object';
  });
  for (const file of collectorFiles) {
    const doc = parse(read(file)) as Record<string, unknown>;
    const walk = (node: unknown): void => {
      if (node === null || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
        if (key === 'endpoint' && typeof value === 'string') {
          const port = /:(\d+)$/.exec(withDefaults(value))?.[1];
          if (port) ports.set(Number(port), file);
        } else if (key === 'port' && typeof value === 'number') ports.set(value, file);
        else walk(value);
      }
    };
    // Listeners only: receivers, extensions, the Prometheus exporter and the collector's own telemetry.
    walk(doc.receivers);
    walk(doc.extensions);
    for (const [id, exporter] of Object.entries((doc.exporters as Record<string, unknown>) ?? {}))
      if (id.startsWith('prometheus')) walk(exporter);
    walk((doc.service as Record<string, unknown>).telemetry);
    // The scale-out tier 1 names its sidecars' listeners (each sidecar's AGENT_INCIDENTS_SIDECAR_LISTEN).
    const balancing = (
      doc.exporters as Record<string, { resolver?: { static?: { hostnames?: string[] } } }> | undefined
    )?.load_balancing;
    for (const host of balancing?.resolver?.static?.hostnames ?? []) ports.set(Number(/:(\d+)$/.exec(host)![1]), file);
  }
  ports.set(
    loadGatewayConfig(join(root, 'deploy/collector/gateway.yaml')).listen.port,
    'deploy/collector/gateway.yaml',
  );
  const compose = read('deploy/compose.yaml');
  ports.set(Number(/--web\.listen-address=[\d.]+:(\d+)/.exec(compose)![1]), 'deploy/compose.yaml (prometheus)');
  ports.set(Number(/GF_SERVER_HTTP_PORT: '(\d+)'/.exec(compose)![1]), 'deploy/compose.yaml (grafana)');
  return found;
}

/**
 * Ports a doc may name that no config holds, each with why: the scale-out recipe's second gateway
 * (a listen.port the operator picks; deploy/collector/scale-out.yaml names it), and the fake provider's
 * random port in the examples' sample output.
 */
const EXEMPT = (line: string, port: number): boolean =>
  (port === 4329 && /gateway|4427/.test(line)) || /Fake provider on/.test(line);

const DOCS = [
  'README.md',
  ...files('docs', /\.md$/),
  ...files('examples', /^README\.md$/),
  ...files('deploy', /\.md$/),
  ...files('src/cli', /\.ts$/),
];

describe('ports', () => {
  const listened = listenedPorts();

  it('finds the listeners of the whole stack', () => {
    expect([...listened.keys()].sort((a, b) => a - b)).toEqual(
      expect.arrayContaining([3000, 4317, 4318, 4319, 4320, 8888, 8889, 9090, 14317, 14318, 16685, 16686]),
    );
  });

  it.each(DOCS.map((f) => relative(root, join(root, f))))(
    '%s names only loopback ports a shipped config listens on',
    (file) => {
      const wrong: string[] = [];
      for (const [n, line] of read(file).split('\n').entries()) {
        for (const m of line.matchAll(/(?:127\.0\.0\.1|localhost|0\.0\.0\.0):(\d{2,5})/g)) {
          const port = Number(m[1]);
          if (!listened.has(port) && !EXEMPT(line, port)) wrong.push(`${file}:${n + 1}: ${m[0]}`);
        }
      }
      expect(wrong).toEqual([]);
    },
  );

  it('docs/quickstart.md has one row per port, naming the file that sets it', () => {
    const rows = read('docs/quickstart.md')
      .split('\n')
      .filter((l) => /^\| \**\d/.test(l))
      .map((l) => l.split('|').map((c) => c.trim()));
    const tabled = new Map<number, string>();
    for (const row of rows)
      for (const port of row[1]!.replace(/\*/g, '').split(/,\s*/)) tabled.set(Number(port), row[3]!);
    for (const [port, sources] of listened) {
      // The scale-out recipe has its own ports (docs/gateway.md); it reuses 4317/4318 for its tier 1.
      const pipeline = sources.filter((f) => !f.startsWith('deploy/collector/scale-out'));
      if (pipeline.length === 0) continue;
      expect(tabled.has(port), `port ${port} (${pipeline.join(', ')}) is in the table`).toBe(true);
      for (const file of pipeline) expect(tabled.get(port), `port ${port}`).toContain(file.replace(/ \(.*\)$/, ''));
    }
    for (const port of tabled.keys()) expect(listened.has(port), `table port ${port}`).toBe(true);
  });

  it('the demo, the README and the CLI send to the collector on 4318, where it receives OTLP/HTTP', () => {
    expect(listened.get(4318)).toContain('otel-collector-config.yaml');
    expect(read('README.md')).toContain('--otlp-endpoint http://127.0.0.1:4318/v1/traces');
    expect(read('docs/quickstart.md')).toContain('--otlp-endpoint http://127.0.0.1:4318/v1/traces');
    expect(read('src/cli/program.ts')).toContain('http://127.0.0.1:4318/v1/traces');
  });
});

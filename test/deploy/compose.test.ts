/**
 * deploy/compose.yaml, checked without a Docker engine (none where the tests run): it mounts the very
 * config files the end-to-end pipeline runs, where each service's command reads them; every port it
 * publishes reaches a listener that the mounted config, with the environment compose sets, binds on
 * the shared namespace's address; no two services of that namespace take one port; images are pinned;
 * every environment override is a variable its config reads. When scripts/ci/install-compose-check.sh
 * has built .cache/bin/compose-check (compose-spec/compose-go, the loader of `docker compose`), the
 * file is also validated against the Compose Specification; when .cache/bin/otelcol-lb and
 * .cache/bin/jaeger are there, the binaries the e2e runs resolve the collector and the Jaeger config
 * with the compose environment. The images are those of the binaries the e2e builds.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadGatewayConfig } from '../../src/gateway/config.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const COMPOSE = join(root, 'deploy/compose.yaml');
const composeDir = dirname(COMPOSE);
const read = (path: string): string => readFileSync(join(root, path), 'utf8');

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  network_mode?: string;
}
const compose = parse(read('deploy/compose.yaml')) as { services: Record<string, Service> };
const services = compose.services;

/** Compose's own `${NAME:-default}` interpolation, with `env` as the shell environment. */
function interpolate(text: string, env: Record<string, string | undefined> = {}): string {
  return text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_m, name: string, fallback?: string) => env[name] || (fallback ?? ''),
  );
}

/** The collector's `${env:NAME:-default}` substitution, with `env` as the container's environment. */
function substitute(value: unknown, env: Record<string, string | undefined>): string {
  return String(value).replace(
    /\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_m, name: string, fallback?: string) => env[name] || (fallback ?? ''),
  );
}

/** Bind mounts of a service: host path relative to the repository root, container path. */
function binds(service: Service, env: Record<string, string | undefined> = {}): { source: string; target: string }[] {
  return (service.volumes ?? []).flatMap((spec) => {
    const [source, target] = interpolate(spec, env).split(':') as [string, string];
    if (!source.startsWith('.') && !source.startsWith('/')) return []; // a named volume
    return [{ source: relative(root, resolve(composeDir, source)), target }];
  });
}

/** What a service in the shared namespace listens on: port → host, read from its config and flags. */
type Listeners = Map<number, string>;

function hostPort(address: string): [string, number] {
  const m = /^(.*):(\d+)$/.exec(address);
  if (!m) throw new Error(`not host:port: ${address}`);
  return [m[1]!, Number(m[2])];
}

/** Listeners of a collector config (receivers, extensions, the prometheus exporter, own telemetry). */
function collectorListeners(file: string, env: Record<string, string | undefined>): Listeners {
  const doc = parse(read(file)) as Record<string, Record<string, unknown> | undefined>;
  const out: Listeners = new Map();
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (key === 'endpoint' && typeof value === 'string') {
        const [host, port] = hostPort(substitute(value, env));
        out.set(port, host);
      } else walk(value);
    }
  };
  walk(doc.receivers);
  walk(doc.extensions);
  for (const [id, exporter] of Object.entries(doc.exporters ?? {}))
    if (id.split('/')[0] === 'prometheus') walk(exporter);
  const readers =
    (
      doc.service?.telemetry as {
        metrics?: { readers?: { pull?: { exporter?: { prometheus?: { host: string; port: number } } } }[] };
      }
    )?.metrics?.readers ?? [];
  for (const reader of readers) {
    const prom = reader.pull?.exporter?.prometheus;
    if (prom) out.set(Number(substitute(prom.port, env)), substitute(prom.host, env));
  }
  return out;
}

/** The value of `--flag=value` in a command. */
const flag = (command: string[] | undefined, name: string): string | undefined =>
  command?.find((arg) => arg.startsWith(`${name}=`))?.slice(name.length + 1);

/** In-container path a command argument names, relative paths against the image's working directory. */
const inContainer = (path: string, workdir: string): string => posix.resolve(workdir, path);

/** WORKDIR of the final stage of deploy/gateway.Dockerfile. */
const dockerfile = read('deploy/gateway.Dockerfile');
const gatewayWorkdir = [...dockerfile.matchAll(/^WORKDIR\s+(\S+)/gm)].at(-1)?.[1] ?? '/';

/** Listeners of every service in the namespace, with the environment compose gives each. */
function listenersByService(): Record<string, Listeners> {
  const collectorConfig = binds(services.collector!)[0]!.source;
  const jaegerConfig = binds(services.jaeger!)[0]!.source;
  const gateway = loadGatewayConfig(join(root, binds(services.gateway!)[0]!.source));
  const grafanaEnv = services.grafana!.environment!;
  return {
    jaeger: collectorListeners(jaegerConfig, services.jaeger!.environment ?? {}),
    collector: collectorListeners(collectorConfig, services.collector!.environment ?? {}),
    gateway: new Map([[gateway.listen.port, gateway.listen.host]]),
    prometheus: new Map(
      [hostPort(flag(services.prometheus!.command, '--web.listen-address')!)].map(([h, p]) => [p, h]),
    ),
    grafana: new Map([[Number(grafanaEnv.GF_SERVER_HTTP_PORT), grafanaEnv.GF_SERVER_HTTP_ADDR!]]),
  };
}

/** The config files test/e2e/pipeline.test.ts runs: the paths it names. */
const e2eText = read('test/e2e/pipeline.test.ts');
const E2E_FILES = [
  'otel-collector-config.yaml',
  'deploy/collector/gateway.yaml',
  'deploy/jaeger/jaeger.yaml',
  'deploy/prometheus/prometheus.yaml',
  'deploy/prometheus/alerts.yaml',
];

describe('deploy/compose.yaml', () => {
  it('runs the pipeline of the e2e: jaeger, collector, gateway, prometheus, grafana, in one network namespace', () => {
    expect(Object.keys(services).sort()).toEqual(['collector', 'gateway', 'grafana', 'jaeger', 'net', 'prometheus']);
    for (const [name, service] of Object.entries(services)) {
      if (name === 'net') continue;
      expect(service.network_mode, name).toBe('service:net');
      expect(service.ports, `${name} publishes nothing itself (the namespace's owner does)`).toBeUndefined();
    }
  });

  it('mounts the very files the e2e runs (no copies), read-only, where each command reads them', () => {
    for (const file of E2E_FILES) expect(e2eText, `test/e2e/pipeline.test.ts runs ${file}`).toContain(file);
    const mounted = ['jaeger', 'collector', 'gateway', 'prometheus'].flatMap((name) =>
      binds(services[name]!).map((b) => b.source),
    );
    expect(mounted.sort()).toEqual([...E2E_FILES].sort());
    for (const name of ['jaeger', 'collector', 'gateway', 'prometheus', 'grafana']) {
      for (const spec of (services[name]!.volumes ?? []).filter((v) => v.startsWith('.')))
        expect(spec, name).toMatch(/:ro$/);
      for (const { source } of binds(services[name]!)) expect(existsSync(join(root, source)), source).toBe(true);
    }
    // Each command names the mount target.
    expect(flag(services.jaeger!.command, '--config')).toBe(binds(services.jaeger!)[0]!.target);
    expect(flag(services.collector!.command, '--config')).toBe(binds(services.collector!)[0]!.target);
    const gatewayCommand = services.gateway!.command!;
    const gatewayConfig = gatewayCommand[gatewayCommand.indexOf('--config') + 1]!;
    expect(inContainer(gatewayConfig, gatewayWorkdir)).toBe(binds(services.gateway!)[0]!.target);
    // prometheus.yaml's rule_files resolve next to it, where the rules are mounted.
    const promConfig = flag(services.prometheus!.command, '--config.file')!;
    const ruleFiles = (parse(read('deploy/prometheus/prometheus.yaml')) as { rule_files: string[] }).rule_files;
    const targets = binds(services.prometheus!).map((b) => b.target);
    expect(targets).toContain(promConfig);
    for (const rule of ruleFiles) expect(targets).toContain(posix.resolve(posix.dirname(promConfig), rule));
  });

  it('swaps in alerts.quick.yaml, at the same path, when AGENT_INCIDENTS_ALERTS names it', () => {
    const quick = binds(services.prometheus!, { AGENT_INCIDENTS_ALERTS: 'alerts.quick.yaml' });
    const normal = binds(services.prometheus!);
    expect(quick.map((b) => b.target)).toEqual(normal.map((b) => b.target));
    expect(quick.map((b) => b.source)).toContain('deploy/prometheus/alerts.quick.yaml');
    expect(existsSync(join(root, 'deploy/prometheus/alerts.quick.yaml'))).toBe(true);
  });

  it('publishes on the host loopback only, each port to a listener bound on the namespace address', () => {
    const listeners = listenersByService();
    const published = services.net!.ports!.map((spec) => {
      const [hostIp, hostPortText, containerPort] = spec.split(':') as [string, string, string];
      expect(hostIp, spec).toBe('127.0.0.1');
      expect(hostPortText, `${spec}: the same port inside and out, as the docs name it`).toBe(containerPort);
      return Number(containerPort);
    });
    expect(published.sort((a, b) => a - b)).toEqual([3000, 4317, 4318, 9090, 16686]);
    for (const port of published) {
      const owners = Object.entries(listeners).filter(([, l]) => l.has(port));
      expect(
        owners.map(([name]) => name),
        `port ${port}`,
      ).toHaveLength(1);
      // A published port arrives at the container's address, never at its loopback.
      expect(owners[0]![1].get(port), `${owners[0]![0]} port ${port}`).toBe('0.0.0.0');
    }
  });

  it('binds nothing else beyond loopback, and no two services take one port', () => {
    const listeners = listenersByService();
    const published = new Set(services.net!.ports!.map((spec) => Number(spec.split(':')[2])));
    const seen = new Map<number, string>();
    for (const [name, ports] of Object.entries(listeners)) {
      for (const [port, host] of ports) {
        expect(seen.get(port), `port ${port} of ${name}`).toBeUndefined();
        seen.set(port, name);
        if (!published.has(port)) expect(host, `${name} port ${port}`).toBe('127.0.0.1');
      }
    }
  });

  it('pins every image to a version tag (the gateway is built from this repository)', () => {
    for (const [name, service] of Object.entries(services)) {
      if (service.build) {
        expect(existsSync(join(composeDir, service.build.context, service.build.dockerfile)), name).toBe(true);
        continue;
      }
      expect(service.image, name).toMatch(/^[\w./-]+:v?\d+\.\d+(\.\d+)?$/);
    }
    for (const from of dockerfile.matchAll(/^FROM\s+(\S+)/gm))
      expect(from[1]).toMatch(/^[\w./-]+:\d+\.\d+\.\d+[\w.-]*$/);
  });

  it('builds the gateway image from the sources the CLI needs, with the config path the command names', () => {
    const ignore = read('deploy/gateway.Dockerfile.dockerignore');
    for (const copied of dockerfile.matchAll(/^COPY\s+(?!--from)(.+)\s+\S+$/gm)) {
      for (const path of copied[1]!.split(/\s+/)) {
        expect(existsSync(join(root, path)), path).toBe(true);
        expect(ignore, `${path} is in the build context`).toMatch(
          new RegExp(`^!${path.replace(/\./g, '\\.')}(/\\*\\*)?$`, 'm'),
        );
      }
    }
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", "dist\/cli\.js"\]$/m);
    expect(statSync(join(root, 'src/cli.ts')).isFile()).toBe(true);
  });

  it('sets only environment variables its configs read', () => {
    for (const name of ['jaeger', 'collector']) {
      const config = read(binds(services[name]!)[0]!.source);
      for (const key of Object.keys(services[name]!.environment ?? {}))
        expect(config, `${name}: ${key}`).toContain(`\${env:${key}:-`);
    }
    // Compose's own interpolation: each variable has a default that exists.
    for (const [, name, fallback] of read('deploy/compose.yaml').matchAll(/\$\{([A-Za-z_]\w*)(?::-([^}]*))?\}/g)) {
      expect(fallback, `${name} has a default`).toBeTruthy();
    }
  });

  it('provisions Grafana with Prometheus, Jaeger and the dashboard, at the addresses their configs listen on', () => {
    const grafana = binds(services.grafana!);
    expect(grafana.map((b) => b.source).sort()).toEqual([
      'deploy/grafana/agent-incidents.json',
      'deploy/grafana/provisioning',
    ]);
    const datasources = (
      parse(read('deploy/grafana/provisioning/datasources/agent-incidents.yaml')) as {
        datasources: { type: string; url: string }[];
      }
    ).datasources;
    const listeners = listenersByService();
    const byType = Object.fromEntries(datasources.map((d) => [d.type, new URL(d.url)]));
    expect(Object.keys(byType).sort()).toEqual(['jaeger', 'prometheus']);
    expect(listeners.prometheus!.has(Number(byType.prometheus!.port))).toBe(true);
    expect(listeners.jaeger!.has(Number(byType.jaeger!.port))).toBe(true);
    const providers = (
      parse(read('deploy/grafana/provisioning/dashboards/agent-incidents.yaml')) as {
        providers: { options: { path: string } }[];
      }
    ).providers;
    const dashboardTarget = grafana.find((b) => b.source.endsWith('.json'))!.target;
    expect(posix.dirname(dashboardTarget)).toBe(providers[0]!.options.path);
  });
});

const promtoolProbe = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
const hasPromtool = promtoolProbe.error === undefined && promtoolProbe.status === 0;

describe.skipIf(!hasPromtool)(
  `Prometheus as compose mounts it${hasPromtool ? '' : ' (skipped: no promtool on PATH)'}`,
  () => {
    const scratch = mkdtempSync(join(tmpdir(), 'compose-prometheus-'));
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));

    const alertsIn = (text: string): number => text.match(/^\s+- alert:/gm)?.length ?? 0;

    it.each(['alerts.yaml', 'alerts.quick.yaml'])(
      'with AGENT_INCIDENTS_ALERTS=%s, promtool loads the config and rules from the mounted layout',
      (alerts) => {
        // The container's /etc/prometheus, rebuilt from the bind mounts as symbolic links.
        const dir = join(scratch, alerts);
        const promConfig = flag(services.prometheus!.command, '--config.file')!;
        for (const { source, target } of binds(services.prometheus!, { AGENT_INCIDENTS_ALERTS: alerts })) {
          const link = join(dir, posix.relative(posix.dirname(promConfig), target));
          mkdirSync(dirname(link), { recursive: true });
          symlinkSync(join(root, source), link);
        }
        const result = spawnSync('promtool', ['check', 'config', join(dir, posix.basename(promConfig))], {
          encoding: 'utf8',
          timeout: 60_000,
        });
        expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
        expect(`${result.stdout}${result.stderr}`).toContain('SUCCESS: 14 rules found');
        const rules = readFileSync(join(dir, 'alerts.yaml'), 'utf8');
        expect(alertsIn(rules)).toBe(alertsIn(read('deploy/prometheus/alerts.yaml')));
        expect(rules.includes('keep_firing_for')).toBe(alerts === 'alerts.quick.yaml');
      },
    );
  },
);

const composeCheck = join(root, '.cache/bin/compose-check');
const hasComposeCheck = existsSync(composeCheck);

describe.skipIf(!hasComposeCheck)(
  `Compose Specification (compose-go)${hasComposeCheck ? '' : ' (skipped: run scripts/ci/install-compose-check.sh)'}`,
  () => {
    const scratch = mkdtempSync(join(tmpdir(), 'compose-check-'));
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));

    const check = (
      file: string,
      env: Record<string, string> = {},
    ): { status: number | null; stdout: string; stderr: string } => {
      const result = spawnSync(composeCheck, [file], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, ...env },
        timeout: 60_000,
      });
      return { status: result.status, stdout: result.stdout, stderr: result.stderr };
    };

    it('deploy/compose.yaml loads as docker compose would load it, with the bind mounts read above', () => {
      const { status, stdout, stderr } = check(COMPOSE);
      expect(status, stderr).toBe(0);
      const project = JSON.parse(stdout) as {
        services: Record<string, { volumes?: { type: string; source: string }[] }>;
      };
      for (const [name, service] of Object.entries(project.services)) {
        const loaded = (service.volumes ?? []).filter((v) => v.type === 'bind').map((v) => relative(root, v.source));
        expect(loaded, name).toEqual(binds(services[name]!).map((b) => b.source));
      }
    });

    it('resolves AGENT_INCIDENTS_ALERTS=alerts.quick.yaml to the quick rules', () => {
      const { status, stdout, stderr } = check(COMPOSE, { AGENT_INCIDENTS_ALERTS: 'alerts.quick.yaml' });
      expect(status, stderr).toBe(0);
      expect(stdout).toContain(join(root, 'deploy/prometheus/alerts.quick.yaml'));
    });

    it('rejects a file that breaks the specification (the check is not vacuous)', () => {
      const broken = join(scratch, 'compose.yaml');
      writeFileSync(
        broken,
        read('deploy/compose.yaml').replace(
          'network_mode: service:net',
          'network_mode: service:net\n    restart_policy: always',
        ),
      );
      const { status, stderr } = check(broken);
      expect(status).not.toBe(0);
      expect(stderr).toContain('restart_policy');
    });
  },
);

/** The binary the e2e runs each config service's file on: the image's counterpart, built by scripts/ci/. */
const BINARIES: Record<'collector' | 'jaeger', { path: string; install: string }> = {
  collector: {
    path: process.env.AGENT_INCIDENTS_OTELCOL_LB || join(root, '.cache/bin/otelcol-lb'),
    install: 'scripts/ci/install-otelcol-lb.sh',
  },
  jaeger: {
    path: process.env.AGENT_INCIDENTS_JAEGER || join(root, '.cache/bin/jaeger'),
    install: 'scripts/ci/install-jaeger.sh',
  },
};

describe('images and the binaries the e2e builds', () => {
  it('the collector image is otelcol-contrib of the collector-contrib release otelcol-lb is built from', () => {
    const goMod = read('scripts/ci/otelcol-lb-wrapper/go.mod');
    const release = /opentelemetry-collector-contrib\/connector\/spanmetricsconnector v(\d+\.\d+\.\d+)/.exec(
      goMod,
    )?.[1];
    expect(release).toBeDefined();
    // Every collector-contrib module of the build is of that one release.
    for (const [, version] of goMod.matchAll(/opentelemetry-collector-contrib\/\S+ v(\S+)/g))
      expect(version).toBe(release);
    expect(services.collector!.image).toBe(`otel/opentelemetry-collector-contrib:${release}`);
    expect(read(BINARIES.collector.install)).toContain(`RELEASE=v${release} `);
  });

  it('the Jaeger image is the release scripts/ci/install-jaeger.sh builds', () => {
    const built = /^FALLBACK_JAEGER_VERSION=v(\S+)$/m.exec(read(BINARIES.jaeger.install))?.[1];
    expect(built).toBeDefined();
    expect(services.jaeger!.image).toBe(`jaegertracing/jaeger:${built}`);
  });
});

for (const name of ['collector', 'jaeger'] as const) {
  const { path: binary, install } = BINARIES[name];
  const present = existsSync(binary);
  describe.skipIf(!present)(
    `${name}: the binary the e2e runs, with the compose environment${present ? '' : ` (skipped: run ${install})`}`,
    () => {
      /** `<binary> print-config` of a file: the configuration after `${env:…}` substitution. */
      const printConfig = (file: string, env: Record<string, string>): Record<string, unknown> => {
        const result = spawnSync(binary, ['print-config', `--config=${file}`], {
          cwd: root,
          encoding: 'utf8',
          env: { PATH: process.env.PATH, ...env },
          timeout: 60_000,
        });
        expect(result.status, result.stderr).toBe(0);
        return parse(result.stdout) as Record<string, unknown>;
      };

      it('validates and resolves to the listeners this test reads from the file', () => {
        const service = services[name]!;
        const file = binds(service)[0]!.source;
        const env = service.environment ?? {};
        const validate = spawnSync(binary, ['validate', `--config=${file}`], {
          cwd: root,
          encoding: 'utf8',
          env: { PATH: process.env.PATH, ...env },
          timeout: 60_000,
        });
        expect(validate.status, validate.stderr).toBe(0);
        const resolved: Listeners = new Map();
        const walk = (node: unknown): void => {
          if (node === null || typeof node !== 'object') return;
          for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
            if (key === 'endpoint' && typeof value === 'string' && /^[\d.]+:\d+$/.test(value)) {
              const [host, port] = hostPort(value);
              resolved.set(port, host);
            } else walk(value);
          }
        };
        const doc = printConfig(file, env);
        walk(doc.receivers);
        walk(doc.extensions);
        expect(resolved.size).toBeGreaterThan(0);
        for (const [port, host] of resolved) expect(collectorListeners(file, env).get(port), `port ${port}`).toBe(host);
        expect([...resolved.values()]).toContain('0.0.0.0');
        // Without the compose environment the same file stays on loopback (the e2e and local path).
        const local = printConfig(file, {});
        expect(JSON.stringify(local)).not.toContain('0.0.0.0');
      });
    },
  );
}

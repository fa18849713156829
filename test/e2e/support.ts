/**
 * Helpers of the end-to-end tests: where the Jaeger, otelcol-lb and Prometheus binaries
 * are, child processes in their own process groups with the tail of their
 * output kept for failure messages, and polling on loopback.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** The Jaeger binary (the trace backend): $AGENT_INCIDENTS_JAEGER, else what scripts/ci/install-jaeger.sh builds. */
export const JAEGER_PATH = process.env.AGENT_INCIDENTS_JAEGER || join(ROOT, '.cache', 'bin', 'jaeger');

/** The Jaeger binary, or undefined when it is not there. */
export function jaegerBinary(): string | undefined {
  return existsSync(JAEGER_PATH) ? JAEGER_PATH : undefined;
}

/**
 * The collector that runs otel-collector-config.yaml and deploy/collector/*.yaml (otelcol-lb,
 * collector-contrib v0.161.0, with the `load_balancing` exporter it is named for):
 * $AGENT_INCIDENTS_OTELCOL_LB, else what scripts/ci/install-otelcol-lb.sh builds.
 */
export const OTELCOL_LB_PATH = process.env.AGENT_INCIDENTS_OTELCOL_LB || join(ROOT, '.cache', 'bin', 'otelcol-lb');

/** The collector (otelcol-lb), or undefined when it is not there. */
export function otelcolLbBinary(): string | undefined {
  return existsSync(OTELCOL_LB_PATH) ? OTELCOL_LB_PATH : undefined;
}

/** An executable on PATH (or an absolute path from `env`), or undefined. */
export function executable(name: string, env?: string): string | undefined {
  const explicit = env ? process.env[env] : undefined;
  if (explicit) return existsSync(explicit) ? explicit : undefined;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

const TAIL = 4000;

/** A child process in its own process group, its output's tail kept. */
export class Service {
  readonly #child: ChildProcess;
  #output = '';
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  readonly #exited: Promise<void>;

  constructor(
    readonly name: string,
    command: string,
    args: readonly string[],
    options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
  ) {
    this.#child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, ...options.env },
      detached: true, // own process group, so stop() reaches its children too
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer): void => {
      this.#output = (this.#output + chunk.toString('utf8')).slice(-TAIL);
    };
    this.#child.stdout?.on('data', keep);
    this.#child.stderr?.on('data', keep);
    this.#exited = new Promise((done) => {
      this.#child.on('exit', (code, signal) => {
        this.exit = { code, signal };
        done();
      });
      this.#child.on('error', (error) => {
        keep(Buffer.from(`spawn failed: ${error.message}\n`));
        this.exit ??= { code: null, signal: null };
        done();
      });
    });
  }

  /** The last few thousand characters it printed, stdout and stderr interleaved. */
  tail(): string {
    const status = this.exit ? ` (exited: code ${this.exit.code}, signal ${this.exit.signal})` : '';
    return `----- ${this.name}${status} -----\n${this.#output.trimEnd() || '(no output)'}\n`;
  }

  /** SIGKILL to the process group at once (a crash, an OOM kill), and waits for the exit. */
  async kill(): Promise<void> {
    if (this.exit || this.#child.pid === undefined) return;
    try {
      process.kill(-this.#child.pid, 'SIGKILL');
    } catch {
      return;
    }
    await this.#exited;
  }

  /** SIGTERM to the process group, SIGKILL after `graceMillis`. */
  async stop(graceMillis = 10_000): Promise<void> {
    if (this.exit || this.#child.pid === undefined) return;
    const group = -this.#child.pid;
    try {
      process.kill(group, 'SIGTERM');
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(group, 'SIGKILL');
      } catch {
        // already gone
      }
    }, graceMillis);
    await this.#exited;
    clearTimeout(timer);
  }
}

/** The tails of every service, for a failure message. */
export function tails(services: readonly Service[]): string {
  return services.map((s) => s.tail()).join('\n');
}

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
export function listening(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ port, host });
    const finish = (open: boolean): void => {
      socket.destroy();
      done(open);
    };
    socket.setTimeout(1000, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** A port on 127.0.0.1 nothing listens on now (for a process the test starts, or an upstream that is down). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Polls `check` until it returns a value other than undefined. Fails at once
 * when one of `services` exited, and at `timeoutMillis`, with `what`, the last
 * value seen and every service's output.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  options: { timeoutMillis: number; services: readonly Service[]; intervalMillis?: number; describe?: () => string },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMillis;
  let last = '';
  for (;;) {
    const dead = options.services.find((s) => s.exit);
    if (dead) throw new Error(`${dead.name} exited while waiting for ${what}\n\n${tails(options.services)}`);
    try {
      const value = await check();
      if (value !== undefined) return value;
      last = options.describe?.() ?? '';
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${options.timeoutMillis} ms waiting for ${what}${last ? `; last: ${last}` : ''}\n\n${tails(options.services)}`,
      );
    }
    await sleep(options.intervalMillis ?? 500);
  }
}

/** GET `url` (loopback only), as JSON. */
export async function getJson(url: string, init?: RequestInit): Promise<{ status: number; body: unknown }> {
  if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(url)) throw new Error(`refusing non-loopback URL ${url}`);
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(5000) });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body };
}

/**
 * Starts the gateway CLI from dist/ with `config` (a YAML file), adds it to
 * `services` for the caller's cleanup, and waits until it answers `/healthz`
 * on `port`.
 */
export async function startCliGateway(config: string, port: number, services: Service[]): Promise<Service> {
  const gateway = new Service('gateway', process.execPath, [
    join(ROOT, 'dist', 'cli.js'),
    'gateway',
    '--config',
    config,
  ]);
  services.push(gateway);
  await waitFor(
    'the gateway to listen',
    async () => ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok ? true : undefined),
    { timeoutMillis: 15_000, services: [gateway], intervalMillis: 100 },
  );
  return gateway;
}

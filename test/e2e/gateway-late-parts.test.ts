/**
 * Late evidence never reads success, under real faults: the real CLI gateway
 * with its persistent queue, on 127.0.0.1, between agents that send each
 * failing run in two requests (the run span and its tool call in one, the
 * failed attempts in the other) and an upstream that goes down, answers slowly,
 * swallows requests, or outlives a SIGTERM and restart of the gateway. Each
 * request is retried as the collector's OTLP exporter does (1 s, x1.5, up to
 * 10 s, +-50% jitter, the longer of that and Retry-After). Every run's final
 * verdict (its highest `incident.verdict_revision`, or the verdict on its run
 * span) must equal the verdict of the same spans judged in one piece, and every
 * acknowledged span must be delivered.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { judgeTrace } from '../../src/gateway/judge-trace.js';
import { ReleasedRuns } from '../../src/gateway/released-runs.js';
import { ResourceCache } from '../../src/gateway/resource-cache.js';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import * as K from '../../src/model/attributes.js';
import type { DecodedSpan } from '../../src/otlp/otlp-json-spans.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { decodeExportTraceRequest } from '../../src/otlp/otlp-protobuf.js';
import { createSanitizer } from '../../src/sanitize/sanitizer.js';
import type { Service } from './support.js';
import { freePort, sleep, startCliGateway, waitFor } from './support.js';

type Mode = 'up' | 'down' | 'slow' | 'black-hole';

/** The upstream: keeps every span delivered, and can be down, slow (answers after 3 s) or a black hole (never answers). */
class Upstream {
  readonly delivered = new Map<string, DecodedSpan[]>();
  mode: Mode = 'up';
  port = 0;
  #server: Server | undefined;
  readonly #hanging = new Set<ServerResponse>();

  async up(): Promise<void> {
    if (this.#server) return;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        if (this.mode === 'black-hole') {
          this.#hanging.add(response);
          return;
        }
        const answer = (): void => {
          for (const span of decodeOtlpJsonSpans(decodeExportTraceRequest(Buffer.concat(chunks)))) {
            const list = this.delivered.get(span.spanId) ?? [];
            list.push(span);
            this.delivered.set(span.spanId, list);
          }
          response.writeHead(200, { 'content-type': 'application/x-protobuf' });
          response.end();
        };
        if (this.mode === 'slow') setTimeout(answer, 3_000);
        else answer();
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.#server = server;
    this.mode = 'up';
  }

  async down(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    this.mode = 'down';
    if (!server) return;
    for (const response of this.#hanging) response.destroy();
    this.#hanging.clear();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  /** Back to answering at once; requests swallowed meanwhile are cut (their sender retries them). */
  normal(): void {
    this.mode = 'up';
    for (const response of this.#hanging) response.destroy();
    this.#hanging.clear();
  }
}

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');
const op = (name: string) => ({ key: 'gen_ai.operation.name', value: { stringValue: name } });

/** One failing run: its spans in two requests, and the spans as one piece. */
interface SplitRun {
  readonly traceId: string;
  readonly runId: string;
  readonly requests: readonly object[][];
  readonly all: readonly object[];
}

/**
 * Run `n`: the run span and a tool call in one request, the attempts in the
 * other. Kinds vary: a 503 then a socket drop (failed), a 503 then a success
 * (recovered), a 429 alone (failed).
 */
function splitRun(n: number): SplitRun {
  const traceId = hex(n, 32);
  const runId = hex(16 * n, 16);
  const now = BigInt(Date.now()) * 1_000_000n;
  const at = (ms: number) => String(now - 5_000_000_000n + BigInt(ms) * 1_000_000n);
  const attempt = (k: number, start: number, error?: { code: number; type: string }) => ({
    traceId,
    spanId: hex(16 * n + k, 16),
    parentSpanId: runId,
    name: 'chat model',
    kind: 3,
    startTimeUnixNano: at(start),
    endTimeUnixNano: at(start + 50),
    attributes: [
      op('chat'),
      ...(error
        ? [
            { key: 'error.type', value: { stringValue: error.type } },
            { key: 'http.response.status_code', value: { intValue: String(error.code) } },
          ]
        : []),
    ],
    status: error ? { code: 2, message: error.type } : {},
  });
  const kind = n % 3;
  const attempts =
    kind === 0
      ? [attempt(1, 10, { code: 503, type: '503' }), attempt(2, 100, { code: 0, type: 'UND_ERR_SOCKET' })]
      : kind === 1
        ? [attempt(1, 10, { code: 503, type: '503' }), attempt(2, 100)]
        : [attempt(1, 10, { code: 429, type: '429' })];
  const run = {
    traceId,
    spanId: runId,
    name: 'invoke_agent chaos',
    kind: 1,
    startTimeUnixNano: at(0),
    endTimeUnixNano: at(400),
    attributes: [op('invoke_agent')],
    status: {},
  };
  const tool = {
    traceId,
    spanId: hex(16 * n + 9, 16),
    parentSpanId: runId,
    name: 'execute_tool search',
    kind: 1,
    startTimeUnixNano: at(200),
    endTimeUnixNano: at(300),
    attributes: [op('execute_tool'), { key: 'gen_ai.tool.name', value: { stringValue: 'search' } }],
    status: {},
  };
  return { traceId, runId, requests: [[run, tool], attempts], all: [run, tool, ...attempts] };
}

const request = (spans: readonly object[]) =>
  JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'late-parts' } }] },
        scopeSpans: [{ scope: { name: 'chaos' }, spans }],
      },
    ],
  });

/** Agents sending split runs, each request retried like the collector's OTLP exporter until acknowledged. */
class Agents {
  readonly runs: SplitRun[] = [];
  readonly acknowledged = new Set<string>();
  refusals = 0;
  #next = 1;
  #stopping = false;
  readonly #running: Promise<void>[] = [];

  constructor(readonly url: string) {}

  start(agents: number): void {
    for (let i = 0; i < agents; i += 1) this.#running.push(this.#agent());
  }

  async finish(): Promise<void> {
    this.#stopping = true;
    await Promise.all(this.#running);
  }

  async #agent(): Promise<void> {
    while (!this.#stopping) {
      const run = splitRun(this.#next++);
      this.runs.push(run);
      // The two halves go out at once, as two exporters' batches would.
      await Promise.all(run.requests.map((spans) => this.#send(spans)));
      await sleep(50);
    }
  }

  /** The collector's retry: 1 s, x1.5 up to 10 s, +-50% jitter, never sooner than Retry-After. */
  async #send(spans: readonly object[]): Promise<void> {
    const body = request(spans);
    let interval = 1_000;
    for (let tries = 0; ; tries += 1) {
      let status = 0;
      let retryAfter = 0;
      try {
        const response = await fetch(`${this.url}/v1/traces`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(5_000),
        });
        status = response.status;
        retryAfter = Number(response.headers.get('retry-after') ?? 0) * 1_000;
        await response.arrayBuffer();
      } catch {
        status = 0; // refused or cut: the gateway is down or restarting
      }
      if (status === 200) {
        for (const span of spans as { spanId: string }[]) this.acknowledged.add(span.spanId);
        return;
      }
      expect([0, 429, 503]).toContain(status);
      this.refusals += 1;
      if (tries > 100) throw new Error('a request was never acknowledged');
      const jittered = interval * (0.5 + Math.random());
      await sleep(Math.max(jittered, retryAfter));
      interval = Math.min(interval * 1.5, 10_000);
    }
  }
}

const sanitizer = createSanitizer();
const verdictOf = (attributes: Record<string, unknown>) =>
  Object.fromEntries(K.RUN_ATTRIBUTE_KEYS.filter((key) => key in attributes).map((key) => [key, attributes[key]]));

/** The verdict of the run's spans judged in one piece, as one request would have them. */
function oneRequestVerdict(run: SplitRun): Record<string, unknown> {
  const options = {
    policy: DEFAULT_POLICY,
    sanitizer,
    resources: new ResourceCache(sanitizer),
    released: new ReleasedRuns(60_000),
  };
  const judged = judgeTrace(decodeOtlpJsonSpans(JSON.parse(request(run.all))), options, Date.now());
  return verdictOf(judged.spans.find((span) => span.spanContext().spanId === run.runId)?.attributes ?? {});
}

/** The run's final delivered verdict: its highest revision, or the verdict on its run span. */
function deliveredVerdict(
  upstream: Upstream,
  run: SplitRun,
  revisions: Map<string, DecodedSpan[]>,
): Record<string, unknown> | undefined {
  const latest = (revisions.get(run.runId) ?? []).sort(
    (a, b) =>
      Number(b.attributes[K.ATTR_INCIDENT_REVISION_NUMBER]) - Number(a.attributes[K.ATTR_INCIDENT_REVISION_NUMBER]),
  )[0];
  const carrier = latest ?? upstream.delivered.get(run.runId)?.at(-1);
  return carrier ? verdictOf(carrier.attributes) : undefined;
}

let dirs: string[] = [];
let services: Service[] = [];
let upstreams: Upstream[] = [];
afterEach(async () => {
  for (const service of services) await service.stop(5_000);
  for (const upstream of upstreams) await upstream.down();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
  services = [];
  upstreams = [];
});

const startGateway = (config: string, port: number): Promise<Service> => startCliGateway(config, port, services);

/** A gateway with the shipped hold and backoff defaults, a persistent queue, and a 1 s upstream timeout. */
async function setUp(queueMaxBytes?: number) {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-late-parts-'));
  dirs.push(dir);
  const upstream = new Upstream();
  upstreams.push(upstream);
  await upstream.up();
  const port = await freePort();
  const config = join(dir, 'gateway.yaml');
  writeFileSync(
    config,
    `listen: { host: 127.0.0.1, port: ${port} }
upstream: { endpoint: http://127.0.0.1:${upstream.port}/v1/traces, timeoutMillis: 1000, initialBackoffMillis: 100, maxBackoffMillis: 1000 }
hold: { decisionWaitMillis: 200, tickMillis: 50 }
limits: { retryAfterSeconds: 1, upstreamFailingAttempts: 2 }
shutdown: { timeoutMillis: 5000 }
persistence: { directory: ${join(dir, 'queue')}${queueMaxBytes === undefined ? '' : `, maxBytes: ${queueMaxBytes}`} }
`,
  );
  const gateway = await startGateway(config, port);
  return { upstream, port, config, gateway, agents: new Agents(`http://127.0.0.1:${port}`) };
}

/**
 * Waits until the gateway delivers, and keeps delivering: a start with a persistent queue holds
 * every trace for the senders a restart may have refused (15 s by default),
 * and the faults below are meant for a gateway already at work.
 */
async function delivering(upstream: Upstream, gateway: Service): Promise<void> {
  await waitFor('the gateway to deliver', async () => (upstream.delivered.size > 0 ? true : undefined), {
    timeoutMillis: 30_000,
    services: [gateway],
    intervalMillis: 200,
  });
  const first = upstream.delivered.size;
  await waitFor(
    'the gateway to keep delivering',
    async () => (upstream.delivered.size >= first + 40 ? true : undefined),
    {
      timeoutMillis: 30_000,
      services: [gateway],
      intervalMillis: 50,
    },
  );
}

/** Waits until the agents got `more` spans acknowledged than they had: requests are taken again. */
async function taking(agents: Agents, gateway: Service, what: string, more = 40): Promise<void> {
  const from = agents.acknowledged.size;
  await waitFor(
    `${more} more spans acknowledged ${what}`,
    async () => (agents.acknowledged.size >= from + more ? true : undefined),
    {
      timeoutMillis: 60_000,
      services: [gateway],
      intervalMillis: 50,
      describe: () => `acknowledged ${agents.acknowledged.size}, refusals ${agents.refusals}`,
    },
  );
}

/** Waits until the agents were refused (or found the gateway down) once more than they had been. */
async function refused(agents: Agents, services: readonly Service[], what: string): Promise<void> {
  const from = agents.refusals;
  await waitFor(what, async () => (agents.refusals > from ? true : undefined), {
    timeoutMillis: 60_000,
    services,
    intervalMillis: 50,
  });
}

/** Waits until every acknowledged span is delivered and no verdict changes any more, then counts wrong verdicts. */
async function expectEveryVerdictRight(
  upstream: Upstream,
  agents: Agents,
  gateway: () => Service,
  what: string,
): Promise<void> {
  await waitFor(
    `every acknowledged span of ${what} to be delivered`,
    async () => ([...agents.acknowledged].every((id) => upstream.delivered.has(id)) ? true : undefined),
    {
      timeoutMillis: 90_000,
      services: [gateway()],
      describe: () => `acknowledged ${agents.acknowledged.size}, delivered ${upstream.delivered.size}`,
    },
  );
  const wrong = (): SplitRun[] => {
    const revisions = new Map<string, DecodedSpan[]>();
    for (const copies of upstream.delivered.values()) {
      const span = copies.at(-1)!;
      if (span.name !== K.VERDICT_REVISION_SPAN) continue;
      const of = String(span.attributes[K.ATTR_INCIDENT_REVISION_OF]);
      revisions.set(of, [...(revisions.get(of) ?? []), span]);
    }
    return agents.runs.filter(
      (run) => JSON.stringify(deliveredVerdict(upstream, run, revisions)) !== JSON.stringify(oneRequestVerdict(run)),
    );
  };
  // A run judged early is judged a last time once its refused senders can no longer be back (15 s by default).
  await waitFor(`every verdict of ${what} to be final`, async () => (wrong().length === 0 ? true : undefined), {
    timeoutMillis: 40_000,
    services: [gateway()],
    intervalMillis: 500,
    describe: () => {
      const run = wrong()[0];
      const revisions = [...upstream.delivered.values()]
        .map((copies) => copies.at(-1)!)
        .filter((span) => span.attributes[K.ATTR_INCIDENT_REVISION_OF] === run?.runId);
      const shown = run && {
        run: run.runId,
        delivered: verdictOf(upstream.delivered.get(run.runId)?.at(-1)?.attributes ?? {}),
        revisions: revisions.map((span) => verdictOf(span.attributes)),
        oneRequest: oneRequestVerdict(run),
      };
      return `${wrong().length} of ${agents.runs.length} runs with a verdict unlike the one-request verdict, e.g. ${JSON.stringify(shown)}`;
    },
  });
  const metrics = await (await fetch(`${agents.url}/metrics`)).text();
  const counter = (name: string) =>
    metrics
      .split('\n')
      .filter((line) => line.startsWith(name))
      .reduce((n, line) => n + Number(line.split(' ').at(-1)), 0);
  console.log(
    `${what}: ${agents.runs.length} split runs, ${agents.acknowledged.size} spans acknowledged, all delivered; wrong verdicts 0; refusals ${agents.refusals}; judged early ${counter('agent_incidents_gateway_runs_judged_early_total')}, corrected ${counter('agent_incidents_gateway_verdicts_revised_total')}`,
  );
  expect(agents.refusals).toBeGreaterThan(0);
}

// Each fault lasts 8 s (the test names say so): the gateway is a child process on the real clock, so the
// outage is waited out for real; what comes before and after it is waited for as a condition.
describe('split failing runs under faults, retried with the collector backoff', () => {
  it.each([
    [
      'upstream down for 8 s',
      async (upstream: Upstream) => {
        await upstream.down();
        await sleep(8_000);
        await upstream.up();
      },
    ],
    [
      'upstream slower than the upstream timeout for 8 s',
      async (upstream: Upstream) => {
        upstream.mode = 'slow';
        await sleep(8_000);
        upstream.normal();
      },
    ],
    [
      'upstream a black hole for 8 s',
      async (upstream: Upstream) => {
        upstream.mode = 'black-hole';
        await sleep(8_000);
        upstream.normal();
      },
    ],
  ])('gets every verdict right: %s', async (what, fault) => {
    const { upstream, gateway, agents } = await setUp();
    agents.start(4);
    await delivering(upstream, gateway);
    await fault(upstream);
    await taking(agents, gateway, 'after the fault');
    await agents.finish();
    await expectEveryVerdictRight(upstream, agents, () => gateway, what);
  });

  it('gets every verdict right when a full persistent queue refuses during an outage: runs judged early are corrected', async () => {
    // Room for a few seconds of the outage's requests: then 503 without holding (delivering is what frees the
    // queue), so the gateway judges runs while refused parts of them are on their way back.
    const { upstream, gateway, agents } = await setUp(400_000);
    agents.start(4);
    await delivering(upstream, gateway);
    await upstream.down();
    await sleep(8_000);
    await upstream.up();
    await taking(agents, gateway, 'after the outage');
    await agents.finish();
    await expectEveryVerdictRight(upstream, agents, () => gateway, 'full persistent queue during an outage');
    const metrics = await (await fetch(`${agents.url}/metrics`)).text();
    expect(metrics).toMatch(/agent_incidents_gateway_spans_refused_total\{reason="persistence"\} [1-9]/);
    expect(metrics).toMatch(/agent_incidents_gateway_runs_judged_early_total [1-9]/);
  }, 300_000);

  it('gets every verdict right after a SIGTERM during an outage and a restart', async () => {
    const { upstream, gateway, agents, config, port } = await setUp();
    let current = gateway;
    agents.start(4);
    await delivering(upstream, gateway);
    await upstream.down();
    // The SIGTERM comes once the outage shows: the gateway pushes senders back.
    await refused(agents, [current], 'the gateway pushing back during the outage');
    await current.stop(10_000);
    expect(current.exit?.code).toBe(0);
    // stop() returned once the process exited: the gateway is down, and stays down while the next one starts.
    current = await startGateway(config, port);
    // Restarted during the outage: upstream comes back once the new process takes requests.
    await taking(agents, current, 'by the restarted gateway');
    await upstream.up();
    await taking(agents, current, 'after the outage');
    await agents.finish();
    await expectEveryVerdictRight(upstream, agents, () => current, 'SIGTERM during an outage, restart');
  });
});

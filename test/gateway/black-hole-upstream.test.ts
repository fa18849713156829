/**
 * Every wait of the gateway is bounded by a timer it holds: an upstream that
 * accepts the connection and never answers (a black hole) costs each attempt
 * `upstream.timeoutMillis`, not undici's own minutes, even when the garbage
 * collector runs all the time (the gateway runs under `node --expose-gc`,
 * collecting every 10 ms); once upstream answers again, delivery resumes.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { Server, Socket } from 'node:net';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { startUpstream } from '../support/upstream.js';
import { waitFor } from '../support/wait-for.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'gateway', 'gateway-under-gc.mjs');
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A TCP server that accepts every connection and never writes a byte. */
async function blackHole(): Promise<{ server: Server; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, sockets };
}

async function gatewayUnderGc(config: object): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--expose-gc', FIXTURE, JSON.stringify(config)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanups.push(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return { url: (JSON.parse(line) as { url: string }).url, child };
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? 0 : Number(line.split(' ')[1]);
}

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

function request(runs: number): string {
  const now = BigInt(Date.now()) * 1_000_000n;
  const spans = Array.from({ length: runs }, (_, i) => ({
    traceId: hex(i + 1, 32),
    spanId: hex(i + 1, 16),
    name: 'invoke_agent helper',
    kind: 1,
    startTimeUnixNano: String(now - 1_000_000n),
    endTimeUnixNano: String(now),
    attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } }],
    status: {},
  }));
  return JSON.stringify({
    resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'test' }, spans }] }],
  });
}

describe('an upstream that never answers', () => {
  it('costs each attempt upstream.timeoutMillis under constant garbage collection, and delivery resumes when upstream answers', async () => {
    const hole = await blackHole();
    cleanups.push(() => {
      for (const socket of hole.sockets) socket.destroy();
      hole.server.close();
    });
    const { url } = await gatewayUnderGc({
      listen: { host: '127.0.0.1', port: 0 },
      hold: { decisionWaitMillis: 0, maxHoldMillis: 60_000, tickMillis: 10 },
      upstream: {
        endpoint: `http://127.0.0.1:${hole.port}/v1/traces`,
        timeoutMillis: 300,
        initialBackoffMillis: 20,
        maxBackoffMillis: 100,
      },
    });
    const accepted = await fetch(`${url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: request(20),
    });
    expect(accepted.status).toBe(200);

    // Each attempt ends at its deadline and is retried: three retries take about a second, not minutes.
    await waitFor(async () => (await metric(url, 'agent_incidents_gateway_forward_retries_total')) >= 3, {
      what: 'three timed-out attempts retried',
      timeoutMs: 10_000,
    });
    expect(hole.sockets.size).toBeGreaterThan(0);

    // Upstream comes back on the same port: the next attempt delivers every accepted span.
    for (const socket of hole.sockets) socket.destroy();
    hole.server.close();
    await once(hole.server, 'close');
    const upstream = await startUpstream([], hole.port);
    cleanups.push(() => upstream.close());
    await waitFor(() => upstream.received.length === 20, {
      what: 'all 20 accepted spans delivered',
      timeoutMs: 10_000,
    });
    expect(await metric(url, 'agent_incidents_gateway_spans_dropped_total')).toBe(0);
  });
});

/**
 * The gateway soak: the CLI with the shipped deploy/collector/gateway.yaml
 * (persistent queue included) under a steady load of half its measured
 * capacity for SOAK_SECONDS (default 600), forwarding to a counting upstream.
 * Not in CI:
 *
 *   npm run soak:gateway
 *
 * 1. Capacity: CAPACITY_SECONDS (default 20) of SENDERS senders as fast as the
 *    gateway answers; capacity = spans accepted per second (or CAPACITY=n).
 * 2. Soak: requests paced at half that rate, each sent until acknowledged.
 *    Every 30 s: RSS, held bytes, event-loop delay p99 and max since the last
 *    line, spans sent, acknowledged and delivered so far.
 * 3. End: the gateway stops (SIGTERM) and the final counts are printed; the
 *    distinct spans delivered must equal the acknowledged ones.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  mib,
  readMetrics,
  renewed,
  requestPool,
  sendUntilAccepted,
  shippedConfig,
  sleep,
  startGateway,
  startUpstream,
} from './gateway-harness.mjs';

const SOAK_SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const CAPACITY_SECONDS = Number(process.env.CAPACITY_SECONDS ?? 20);
const SENDERS = Number(process.env.SENDERS ?? 8);
const REQUEST_RUNS = Number(process.env.REQUEST_RUNS ?? 100);
const REPORT_SECONDS = Number(process.env.REPORT_SECONDS ?? 30);

const dir = mkdtempSync(join(tmpdir(), 'gateway-soak-'));
const shipped = shippedConfig();
const config = (name, port) => ({
  ...shipped,
  listen: { host: '127.0.0.1', port: 0 },
  upstream: { ...shipped.upstream, endpoint: `http://127.0.0.1:${port}/v1/traces` },
  persistence: { ...shipped.persistence, directory: join(dir, `queue-${name}`) },
});

// 200 distinct requests, renewed with fresh trace ids each round: every span sent is new.
const POOL = 200;
const pool = requestPool(POOL, REQUEST_RUNS);
let turn = 0;
const next = () => renewed(pool[turn % POOL], 1 + Math.floor(turn++ / POOL));

async function measureCapacity() {
  if (process.env.CAPACITY) return Number(process.env.CAPACITY);
  const upstream = await startUpstream();
  const gateway = await startGateway(dir, config('capacity', upstream.port));
  const deadline = performance.now() + CAPACITY_SECONDS * 1000;
  let accepted = 0;
  const statuses = new Map();
  await Promise.all(
    Array.from({ length: SENDERS }, async () => {
      while (performance.now() < deadline) {
        const request = next();
        if (await sendUntilAccepted(gateway.url, request, statuses, 100, () => performance.now() < deadline))
          accepted += request.spans;
      }
    }),
  );
  await gateway.stop();
  await upstream.close();
  console.log(
    `capacity: ${Math.round(accepted / CAPACITY_SECONDS)} spans/s accepted over ${CAPACITY_SECONDS} s (answers ${JSON.stringify(Object.fromEntries(statuses))})`,
  );
  return accepted / CAPACITY_SECONDS;
}

try {
  const capacity = await measureCapacity();
  if (!(capacity > 0)) throw new Error('the gateway accepted nothing while its capacity was measured');
  const rate = capacity / 2;
  const upstream = await startUpstream({ count: true });
  const gateway = await startGateway(dir, config('soak', upstream.port));
  const sent = new Set();
  const acknowledged = new Set();
  const statuses = new Map();
  const perRequest = next().spans;
  const interval = (1000 * perRequest) / rate;
  console.log(
    `soak: ${SOAK_SECONDS} s at ${Math.round(rate)} spans/s (half of capacity), ${perRequest} spans a request every ${interval.toFixed(0)} ms, shipped limits`,
  );
  const start = performance.now();
  const inFlight = new Set();
  let due = start;
  let nextReport = start + REPORT_SECONDS * 1000;
  let peakRss = 0;
  let worstP99 = 0;
  const lines = [];
  while (performance.now() - start < SOAK_SECONDS * 1000) {
    const request = next();
    for (const id of request.ids) sent.add(id);
    const sending = sendUntilAccepted(gateway.url, request, statuses, 1000).then(() => {
      for (const id of request.ids) acknowledged.add(id);
    });
    inFlight.add(sending);
    void sending.then(() => inFlight.delete(sending));
    if (performance.now() >= nextReport) {
      nextReport += REPORT_SECONDS * 1000;
      const m = await readMetrics(gateway.url).catch((error) => {
        throw new Error(`the gateway stopped answering /metrics: ${error.message}`);
      });
      peakRss = Math.max(peakRss, m.rss);
      worstP99 = Math.max(worstP99, m.p99);
      const line = `t=${String(Math.round((performance.now() - start) / 1000)).padStart(4)}s rss ${mib(m.rss)} MiB held ${mib(m.held)} MiB event-loop p99 ${m.p99.toFixed(1)} ms max ${m.max.toFixed(0)} ms; sent ${sent.size} acknowledged ${acknowledged.size} delivered ${upstream.delivered.size}`;
      lines.push(line);
      console.log(line);
    }
    due += interval;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
  }
  await Promise.all(inFlight);
  await gateway.stop();
  await sleep(500);
  const lost = [...acknowledged].filter((id) => !upstream.delivered.has(id)).length;
  console.log(`answers ${JSON.stringify(Object.fromEntries(statuses))}`);
  console.log(
    `final: sent ${sent.size}, acknowledged ${acknowledged.size}, delivered ${upstream.delivered.size} distinct (${upstream.spans} with duplicates), acknowledged but not delivered ${lost}`,
  );
  console.log(
    `soak_rss_peak_mib=${mib(peakRss)} limit_mib=${mib(shipped.limits.maxHeldBytes)} soak_rss_peak_over_limit=${(peakRss / shipped.limits.maxHeldBytes).toFixed(2)}`,
  );
  console.log(`soak_event_loop_p99_ms=${worstP99.toFixed(1)} (worst ${REPORT_SECONDS}-s window)`);
  await upstream.close();
  if (lost > 0) process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}

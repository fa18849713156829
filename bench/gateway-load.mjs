/**
 * The gateway's memory and event-loop delay under load, measured on the
 * gateway's own process (the CLI, as operators run it, with the shipped
 * deploy/collector/gateway.yaml and its persistent queue), fed by senders in
 * this process:
 *
 *   npm run bench:gateway-load
 *
 * Three phases, each PHASE_SECONDS (default 30) with SENDERS requests in
 * flight (default 8) of REQUEST_RUNS runs each (default 100 runs, 600 spans),
 * as fast as the gateway answers (saturation: the worst case):
 *
 * 1. held:     traces are held (decision wait 10 min) until limits.maxHeldBytes
 *              is reached; past it the gateway must answer 429.
 * 2. backlog:  upstream down and no "upstream failing" refusal, so folded spans
 *              pile up waiting upstream until the memory bounds refuse.
 * 3. steady:   a working upstream at full speed.
 * 4. neighbour: steady, in NEIGHBOUR_ROUNDS rounds (default 2) alternating
 *              with a CPU-busy neighbour process spinning beside the gateway
 *              and without it. It prints `busy_neighbour_over_quiet=`, the
 *              spans accepted per second with the neighbour over without it
 *              (the gateway sheds only what exceeds its capacity: must stay
 *              ≥ 0.5), and the requests it shed as busy in each.
 *
 * maxTraces, maxSpans and maxForwardBacklogSpans are raised so that memory is
 * the bound that binds. Every 2 s it reads the gateway's /metrics: RSS
 * (process_resident_memory_bytes) and the event-loop delay since the previous
 * reading (monitorEventLoopDelay). It prints, per phase, `rss_peak_over_limit=`
 * (peak RSS over limits.maxHeldBytes; must stay ≤ 1.5) and `event_loop_p99_ms=`
 * (the worst 2-s window's p99 after the first, which holds the warm-up; must
 * stay < 100). Over every phase (neighbour rounds included) it prints
 * `gateway_rss_over_limit_max=` (the largest of the phases' peak RSS over
 * limits.maxHeldBytes) and `intake_event_loop_p99_ms=` (the largest of the
 * phases' event-loop p99 as above: the gateway's main thread, which takes the
 * requests in), each with the phase it came from; they are the last two lines.
 * POOL distinct requests (default 400) are made before the phases
 * start, so the senders' CPU does not compete with the gateway's while it is
 * measured.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  freePort,
  mib,
  postOnce,
  readMetrics,
  requestPool,
  shippedConfig,
  sleep,
  startGateway,
  startUpstream,
} from './gateway-harness.mjs';

const PHASE_SECONDS = Number(process.env.PHASE_SECONDS ?? 30);
const SENDERS = Number(process.env.SENDERS ?? 8);
const REQUEST_RUNS = Number(process.env.REQUEST_RUNS ?? 100);
const POOL = Number(process.env.POOL ?? 400);
const NEIGHBOUR_ROUNDS = Number(process.env.NEIGHBOUR_ROUNDS ?? 2);
const ONLY_NEIGHBOUR = process.env.NEIGHBOUR_ONLY === '1';

/** A process that keeps one core busy until killed: a neighbour on the gateway's machine. */
function busyNeighbour() {
  return spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
}

/** SENDERS senders, as fast as the gateway answers, for `seconds`; reads /metrics every 2 s. */
async function drive(url, next, seconds) {
  const statuses = new Map();
  const samples = [];
  const deadline = performance.now() + seconds * 1000;
  let accepted = 0;
  const sender = async () => {
    while (performance.now() < deadline) {
      const request = next();
      if ((await postOnce(url, request, statuses)) === 200) accepted += request.spans;
      // A refused sender backs off a little, as an OTLP exporter does (shorter than Retry-After, to keep the pressure on).
      else await sleep(200);
    }
  };
  const sampler = (async () => {
    while (performance.now() < deadline) {
      await sleep(2_000);
      try {
        samples.push(await readMetrics(url));
      } catch {
        // a missed sample
      }
    }
  })();
  await Promise.all([...Array.from({ length: SENDERS }, sender), sampler]);
  return { statuses, samples, accepted };
}

/**
 * The worst of every phase so far, for the lines over all phases: peak RSS over limits.maxHeldBytes, and the
 * event-loop p99 of the intake thread (the gateway's main thread, which takes requests in: its /metrics reports
 * that thread's delay; with worker threads it stays the intake thread).
 */
const worst = { rssOverLimit: { value: Number.NEGATIVE_INFINITY }, p99: { value: Number.NEGATIVE_INFINITY } };

/** A phase's readings: peak RSS, the worst window's p99 after the first and with it, the longest single delay. */
function summarize(phase, limit, samples) {
  const peak = Math.max(...samples.map((s) => s.rss));
  const p99 = Math.max(...samples.map((s) => s.p99));
  // The first window holds the process's warm-up (JIT compilation of every path): shown apart.
  const warm = Math.max(...samples.slice(1).map((s) => s.p99));
  const max = Math.max(...samples.map((s) => s.max));
  if (peak / limit > worst.rssOverLimit.value) worst.rssOverLimit = { value: peak / limit, phase };
  if (warm > worst.p99.value) worst.p99 = { value: warm, phase };
  return { peak, p99, warm, max };
}

function report(phase, limit, result) {
  const { peak, p99, warm, max } = summarize(phase, limit, result.samples);
  console.log(
    `${phase}: answers ${JSON.stringify(Object.fromEntries(result.statuses))}, ${result.accepted} spans accepted in ${PHASE_SECONDS} s (${Math.round(result.accepted / PHASE_SECONDS)}/s)`,
  );
  console.log(`  rss MiB every 2 s: ${result.samples.map((s) => mib(s.rss)).join(' ')}`);
  console.log(`  held (estimated) MiB: ${result.samples.map((s) => mib(s.held)).join(' ')}`);
  console.log(`  event-loop p99 ms per 2 s: ${result.samples.map((s) => s.p99.toFixed(0)).join(' ')}`);
  console.log(`${phase}_rss_peak_mib=${mib(peak)} limit_mib=${mib(limit)}`);
  console.log(`${phase}_rss_peak_over_limit=${(peak / limit).toFixed(2)}`);
  console.log(
    `${phase}_event_loop_p99_ms=${warm.toFixed(1)} (after the first 2 s; with it ${p99.toFixed(1)}; longest single delay ${max.toFixed(0)} ms)`,
  );
}

const pool = requestPool(POOL, REQUEST_RUNS);
let turn = 0;
const next = () => pool[turn++ % pool.length];
const dir = mkdtempSync(join(tmpdir(), 'gateway-load-'));
const receiver = await startUpstream();
const shipped = shippedConfig();
const limit = shipped.limits.maxHeldBytes;

/** The shipped config, on a free port, with memory the bound that binds. */
function config(name, upstreamPort, hold) {
  return {
    ...shipped,
    listen: { host: '127.0.0.1', port: 0 },
    upstream: { ...shipped.upstream, endpoint: `http://127.0.0.1:${upstreamPort}/v1/traces`, maxBackoffMillis: 1000 },
    hold: { ...shipped.hold, ...hold },
    limits: {
      ...shipped.limits,
      maxTraces: 10_000_000,
      maxSpans: 100_000_000,
      maxForwardBacklogSpans: 100_000_000,
      upstreamFailingAttempts: 1_000_000_000,
    },
    persistence: { ...shipped.persistence, directory: join(dir, `queue-${name}`), maxBytes: 16 * 1024 ** 3 },
    shutdown: { timeoutMillis: 2000 },
  };
}

try {
  console.log(
    `gateway-load: ${SENDERS} senders, ${REQUEST_RUNS} runs (${pool[0].spans} spans, ${(pool[0].body.length / 1024).toFixed(0)} KiB) a request, ${POOL} distinct requests, shipped limits (maxHeldBytes ${mib(limit)} MiB, maxRssBytes ${mib(shipped.limits.maxRssBytes)} MiB, maxEventLoopDelayMillis ${shipped.limits.maxEventLoopDelayMillis}), ${PHASE_SECONDS} s a phase`,
  );
  if (ONLY_NEIGHBOUR) console.log('NEIGHBOUR_ONLY=1: the held, backlog and steady phases are skipped');
  else {
    const held = await startGateway(
      dir,
      config('held', receiver.port, { decisionWaitMillis: 600_000, maxHoldMillis: 600_000 }),
    );
    report('held', limit, await drive(held.url, next, PHASE_SECONDS));
    await held.stop();

    const backlog = await startGateway(dir, config('backlog', await freePort(), { decisionWaitMillis: 100 }));
    report('backlog', limit, await drive(backlog.url, next, PHASE_SECONDS));
    await backlog.stop();

    const steady = await startGateway(dir, config('steady', receiver.port, { decisionWaitMillis: 500 }));
    report('steady', limit, await drive(steady.url, next, PHASE_SECONDS));
    await steady.stop();
  }

  // Quiet and busy rounds alternate on one gateway, so drift (JIT, page cache) falls on both alike. The memory
  // guard is left out here: under this churn it refuses for V8's garbage, not live data (a separate problem), and
  // would hide what the shedding does.
  const neighbourConfig = config('neighbour', receiver.port, { decisionWaitMillis: 500 });
  const neighbour = await startGateway(dir, {
    ...neighbourConfig,
    limits: { ...neighbourConfig.limits, maxRssBytes: undefined },
  });
  const totals = { quiet: { accepted: 0, busy: 0 }, busy: { accepted: 0, busy: 0 } };
  for (let round = 0; round < NEIGHBOUR_ROUNDS; round += 1) {
    for (const kind of ['quiet', 'busy']) {
      const spinner = kind === 'busy' ? busyNeighbour() : undefined;
      const before = await readMetrics(neighbour.url);
      const result = await drive(neighbour.url, next, PHASE_SECONDS);
      const after = await readMetrics(neighbour.url);
      spinner?.kill('SIGKILL');
      totals[kind].accepted += result.accepted;
      totals[kind].busy += after.shedBusy - before.shedBusy;
      const phase = `neighbour round ${round + 1} ${kind}`;
      const { peak, warm } = summarize(phase, limit, result.samples);
      console.log(
        `${phase}: answers ${JSON.stringify(Object.fromEntries(result.statuses))}, ${Math.round(result.accepted / PHASE_SECONDS)} spans/s accepted, ${after.shedBusy - before.shedBusy} requests shed as busy; ` +
          `rss peak ${mib(peak)} MiB (${(peak / limit).toFixed(2)}x maxHeldBytes, no maxRssBytes here), event-loop p99 ${warm.toFixed(1)} ms (after the first 2 s)`,
      );
    }
  }
  await neighbour.stop();
  const perSecond = (kind) => totals[kind].accepted / (PHASE_SECONDS * NEIGHBOUR_ROUNDS);
  console.log(
    `neighbour_quiet_spans_per_s=${Math.round(perSecond('quiet'))} busy_spans_per_s=${Math.round(perSecond('busy'))} shed_busy_quiet=${totals.quiet.busy} shed_busy_with_neighbour=${totals.busy.busy}`,
  );
  console.log(`busy_neighbour_over_quiet=${(perSecond('busy') / perSecond('quiet')).toFixed(2)}`);
  // Over every phase above, neighbour rounds included, from the same 2-s readings as the per-phase lines.
  console.log(`gateway_rss_over_limit_max=${worst.rssOverLimit.value.toFixed(2)} (${worst.rssOverLimit.phase})`);
  console.log(
    `intake_event_loop_p99_ms=${worst.p99.value.toFixed(1)} (${worst.p99.phase}; worst 2-s window after each phase's first)`,
  );
} finally {
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
}

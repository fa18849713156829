// Over 300 lines: a pass, recovery, drain and corrections share one gateway state of real parts, set up here once.
/**
 * The release loop (src/gateway/release-loop.ts) on a gateway state of real parts, delivering to a real OTLP/HTTP
 * upstream on 127.0.0.1, with runs recorded by RunRecorder on a real tracer provider: docs/gateway.md, "When a
 * trace is folded", "Late parts", "The persistent queue" and "Delivery guarantee". A pass judges the traces that
 * are ready (every one when asked for all; a part whose run span has not come waits for it, and is judged under a
 * stand-in when it is taken anyway), forwards them in requests of at most 256 spans, takes nothing while the
 * forward backlog is full, and releases their stored requests once delivered; a trace the fold cannot take is
 * dropped (`fold_failed`), not the pass. What an earlier process left in the persistent queue is read back first,
 * a segment at a time while under half the bounds; a stored request that no longer decodes is counted
 * (`unreadable`), not retried. A trace judged while a refused sender may still come is judged at best
 * `incomplete`, kept, and judged a last time (with a revision when the verdict changes) once no sender can be back.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diag, DiagLogLevel } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resolvePolicy } from '../../src/derive/policy.js';
import type { GatewayConfigInput } from '../../src/gateway/config.js';
import { resolveGatewayConfig } from '../../src/gateway/config.js';
import { Forwarder } from '../../src/gateway/forwarder.js';
import { GatewayMetrics } from '../../src/gateway/gateway-metrics.js';
import { GatewayState } from '../../src/gateway/gateway-state.js';
import type { TraceJudgeOptions } from '../../src/gateway/judge-trace.js';
import { LoadGauge } from '../../src/gateway/load-gauge.js';
import { ReleaseLoop } from '../../src/gateway/release-loop.js';
import { ReleasedRuns } from '../../src/gateway/released-runs.js';
import { ResourceCache } from '../../src/gateway/resource-cache.js';
import { RevisableTraces } from '../../src/gateway/revisable-traces.js';
import { SpillLog } from '../../src/gateway/spill-log.js';
import { TraceStore } from '../../src/gateway/trace-store.js';
import { encodableSpansOf } from '../../src/otlp/encodable-of-decoded.js';
import { encodeTraceRequestJson } from '../../src/otlp/otlp-encode.js';
import type { DecodedSpan } from '../../src/otlp/otlp-json-spans.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { decodeExportTraceRequest } from '../../src/otlp/otlp-protobuf.js';
import { createSanitizer } from '../../src/sanitize/sanitizer.js';
import { decodedSpan } from '../support/decoded-span.js';
import { freezeDate } from '../support/frozen-date.js';
import { startUpstream } from '../support/upstream.js';
import { dropsAfterBash, isRunSpan, lineOf, readsThenAnswers, recordRun } from '../report/otlp-lines.js';

const cleanups: (() => unknown)[] = [];
let errors: string[] = [];
beforeEach(() => {
  errors = [];
  const ignore = () => undefined;
  diag.setLogger(
    { error: (m: string) => errors.push(m), warn: ignore, info: ignore, debug: ignore, verbose: ignore },
    { logLevel: DiagLogLevel.ERROR, suppressOverrideMessage: true },
  );
});
afterEach(async () => {
  vi.useRealTimers();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  diag.disable();
});

type Config = Omit<GatewayConfigInput, 'upstream'>;

/** A release loop over real parts; upstream takes everything, unless `endpoint` says where else to send. */
async function loopOn(config: Config = {}, options: { spill?: SpillLog; endpoint?: string } = {}) {
  const up = await startUpstream();
  cleanups.push(() => up.close());
  const resolved = resolveGatewayConfig({
    ...config,
    hold: { decisionWaitMillis: 0, refusedSenderBackoffMillis: 0, tickMillis: 10, ...config.hold },
    upstream: { endpoint: options.endpoint ?? up.endpoint, initialBackoffMillis: 600_000 },
  });
  const metrics = new GatewayMetrics();
  const sanitizer = createSanitizer();
  const revisable = new RevisableTraces();
  const judge: TraceJudgeOptions = {
    policy: resolvePolicy({}),
    sanitizer,
    resources: new ResourceCache(sanitizer),
    released: new ReleasedRuns(resolved.hold.maxHoldMillis),
    revisable,
  };
  const store = new TraceStore(resolved.limits, resolved.hold, { judged: judge.released.runs });
  const forwarder = new Forwarder(resolved.upstream, metrics);
  const state = new GatewayState({
    config: resolved,
    metrics,
    store,
    forwarder,
    revisable,
    gauge: new LoadGauge(),
    spill: options.spill,
    window: undefined,
  });
  const loop = new ReleaseLoop(state, judge);
  cleanups.push(async () => {
    loop.stop();
    await forwarder.stop();
  });
  return { up, state, loop, metrics, store, forwarder, revisable };
}

/** A persistent queue in a temp dir; `reopen` closes it and opens it again, as the next process would. */
function queueIn(options: { segmentBytes?: number } = {}) {
  const directory = mkdtempSync(join(tmpdir(), 'release-loop-'));
  let spill = SpillLog.open({ directory, ...options });
  cleanups.push(async () => {
    await spill.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return {
    directory,
    get spill() {
      return spill;
    },
    reopen: async () => {
      await spill.close();
      spill = SpillLog.open({ directory, ...options });
      return spill;
    },
    segments: () => readdirSync(directory).filter((name) => name.startsWith('segment-')),
  };
}

/** The spans of a recorded run as the gateway receives them (no verdict); without its run span when asked. */
async function received(build: typeof dropsAfterBash, options: { runSpan?: boolean } = {}): Promise<DecodedSpan[]> {
  const spans = await recordRun(build);
  return decodeOtlpJsonSpans(
    JSON.parse(lineOf(options.runSpan === false ? spans.filter((s) => !isRunSpan(s)) : spans)),
  );
}

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');
/** `n` traces of one plain span each (no agent run: nothing to wait for). */
const plain = (n: number, from = 1) =>
  Array.from({ length: n }, (_, i) => decodedSpan(hex(from + i, 32), hex(from + i, 16)));
const verdictOf = (spans: readonly DecodedSpan[]) =>
  spans
    .filter((s) => s.attributes['incident.outcome'] !== undefined)
    .map((s) => [s.attributes['incident.outcome'], s.attributes['incident.cause']]);

describe('a pass', () => {
  it('judges the ready traces, forwards them with their verdicts and releases their stored requests once delivered', async () => {
    const q = queueIn();
    const { up, loop, store, forwarder, metrics } = await loopOn({}, { spill: q.spill });
    const spans = await received(dropsAfterBash);
    const record = await q.spill.append('json', Buffer.from('{}'), spans.length);
    store.add(spans, Date.now(), record);
    await loop.release(false);
    await forwarder.idle();
    expect([store.traces, up.received.length, record.pending]).toEqual([0, spans.length, 0]);
    expect(verdictOf(up.received)).toEqual([['failed', 'provider_transport_disconnect']]);
    expect(metrics.runs.get('failed\u0000provider_transport_disconnect')).toBe(1);
  });

  it('leaves a trace that is not quiet yet, unless every trace is asked for', async () => {
    const { up, loop, store, forwarder } = await loopOn({ hold: { decisionWaitMillis: 60_000 } });
    store.add(await received(readsThenAnswers), Date.now());
    await loop.release(false);
    expect(store.traces).toBe(1);
    await loop.release(true);
    await forwarder.idle();
    expect([store.traces, verdictOf(up.received)]).toEqual([0, [['success', undefined]]]);
  });

  it('leaves the parts of a run whose run span has not come; taken anyway, they are judged under a stand-in', async () => {
    const { up, loop, store, forwarder, metrics } = await loopOn();
    store.add(await received(readsThenAnswers, { runSpan: false }), Date.now());
    await loop.release(false);
    expect(store.traces).toBe(1);
    await loop.release(true);
    await forwarder.idle();
    expect(verdictOf(up.received)).toEqual([['incomplete', 'crash_or_restart_incomplete']]);
    expect(metrics.runs.get('incomplete\u0000crash_or_restart_incomplete')).toBe(1);
  });

  it('forwards in requests of at most 256 spans', async () => {
    const { up, loop, store, forwarder } = await loopOn();
    store.add(plain(300), Date.now());
    await loop.release(false);
    await forwarder.idle();
    const sizes = up.bodies.map((body) => decodeOtlpJsonSpans(decodeExportTraceRequest(body)).length);
    expect([sizes, store.traces]).toEqual([[256, 44], 0]);
  });

  it('takes nothing while the forward backlog is full: the traces stay held', async () => {
    const { up, loop, store, forwarder } = await loopOn(
      { limits: { maxForwardBacklogSpans: 1 } },
      { endpoint: 'http://127.0.0.1:1/v1/traces' },
    );
    forwarder.send(encodableSpansOf(plain(1, 50)));
    store.add(plain(2), Date.now());
    await loop.release(true);
    expect([store.traces, forwarder.backlogSpans, up.requests]).toEqual([2, 1, 0]);
  });

  it('drops a trace the fold cannot take as fold_failed, releases its stored request, and goes on', async () => {
    const q = queueIn();
    const { up, loop, store, forwarder, metrics } = await loopOn({}, { spill: q.spill });
    const record = await q.spill.append('json', Buffer.from('{}'), 1);
    // No resource object: the judge cannot forward it under one.
    store.add([{ ...plain(1)[0]!, resource: null as never }], Date.now(), record);
    store.add(plain(1, 2), Date.now());
    await loop.release(false);
    await forwarder.idle();
    expect([metrics.droppedSpans.get('fold_failed'), record.pending, up.received.length]).toEqual([1, 0, 1]);
    expect(errors.some((m) => m.includes('a trace could not be folded'))).toBe(true);
  });

  it('a pass that fails is logged, and the passes after it still run', async () => {
    const { up, loop, store, forwarder } = await loopOn();
    // No attributes at all: telling whether it waits for a run span fails, and with it the whole pass.
    store.add([{ ...plain(1)[0]!, attributes: null as never }], Date.now());
    store.add(plain(1, 2), Date.now());
    await expect(loop.release(false)).resolves.toBeUndefined();
    expect([store.traces, errors.filter((m) => m.includes('releasing held traces failed')).length]).toEqual([2, 1]);
    await loop.release(true);
    await forwarder.idle();
    expect(up.received.map((s) => s.traceId)).toEqual([hex(2, 32)]);
  });
});

describe('recover', () => {
  it('reads back what an earlier process left; once delivered, its segment is deleted', async () => {
    const q = queueIn();
    const body = Buffer.from(encodeTraceRequestJson(encodableSpansOf(plain(2))));
    await q.spill.append('json', body, 2);
    const spill = await q.reopen();
    const { up, loop, store, forwarder, metrics } = await loopOn({}, { spill });
    expect(spill.recoveryPending).toBe(1);
    loop.recover();
    expect([spill.recoveryPending, store.spans, metrics.spansRecovered]).toEqual([0, 2, 2]);
    await loop.release(false);
    await forwarder.idle();
    expect([up.received.length, q.segments()]).toEqual([2, []]);
  });

  it('counts a stored request that no longer decodes as unreadable, logs it, and frees it', async () => {
    const q = queueIn();
    await q.spill.append('json', Buffer.from('not json'), 1);
    const spill = await q.reopen();
    const { loop, store, metrics } = await loopOn({}, { spill });
    loop.recover();
    expect([store.spans, metrics.droppedSpans.get('unreadable'), q.segments()]).toEqual([0, 0, []]);
    expect(errors).toEqual([
      'agent-incidents gateway: a stored request could not be read back: malformed OTLP JSON: body is not valid JSON',
    ]);
  });

  it('reads a segment at a time while what is held stays under half the bounds; the rest on a later pass', async () => {
    // One record per segment.
    const q = queueIn({ segmentBytes: 1 });
    for (const from of [1, 3]) {
      const body = Buffer.from(encodeTraceRequestJson(encodableSpansOf(plain(2, from))));
      await q.spill.append('json', body, 2);
    }
    const spill = await q.reopen();
    const { up, loop, store, forwarder } = await loopOn({ limits: { maxSpans: 4 } }, { spill });
    loop.recover();
    expect([store.spans, spill.recoveryPending]).toEqual([2, 1]);
    await loop.release(false);
    await forwarder.idle();
    // The next pass reads the second segment first, now that the first left the store.
    await loop.release(false);
    await forwarder.idle();
    expect([up.received.length, spill.recoveryPending, store.spans]).toEqual([4, 0, 0]);
  });
});

describe('drain', () => {
  it('with no deadline, releases every held trace and waits until upstream has them', async () => {
    const { up, loop, store } = await loopOn({ hold: { decisionWaitMillis: 60_000 } });
    store.add(plain(3), Date.now());
    await loop.drain(Number.POSITIVE_INFINITY);
    expect([store.traces, up.received.length]).toEqual([0, 3]);
  });

  it('returns by its deadline when upstream does not take them, the spans left in the backlog', async () => {
    const { loop, store, forwarder } = await loopOn({}, { endpoint: 'http://127.0.0.1:1/v1/traces' });
    store.add(plain(3), Date.now());
    await loop.drain(Date.now() + 50);
    expect([store.traces, forwarder.backlogSpans]).toEqual([0, 3]);
  });
});

describe('traces judged while a refused sender may still come', () => {
  it('are judged at best incomplete, kept, and judged a last time with a revision once no sender can be back', async () => {
    const clock = freezeDate();
    const { up, state, loop, store, forwarder, metrics, revisable } = await loopOn();
    // A 503 was answered: its sender may be back within twice Retry-After (10 s).
    state.expectSenderBack(false);
    store.add(await received(readsThenAnswers), Date.now());
    await loop.release(false);
    await forwarder.idle();
    expect([metrics.runsJudgedEarly, revisable.size, verdictOf(up.received)[0]![0]]).toEqual([1, 1, 'incomplete']);
    clock.advance(10_000);
    await loop.release(false);
    // Not before the sender's way back, the decision wait and a tick are over.
    expect(revisable.size).toBe(1);
    clock.advance(10);
    await loop.release(false);
    await forwarder.idle();
    expect([revisable.size, metrics.revisions.get('success\u0000')]).toEqual([0, 1]);
    const revision = up.received.find((s) => s.name === 'incident.verdict_revision');
    expect(revision?.attributes['incident.outcome']).toBe('success');
  });
});

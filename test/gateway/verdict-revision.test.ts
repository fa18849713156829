/**
 * Late evidence is corrected, never silent: a run the gateway judged while a
 * part of it could still come is judged again when the part arrives and once
 * more when no refused sender can be back, and a verdict that changed goes
 * out as an `incident.verdict_revision` span (docs/attributes.md, "Verdict
 * revisions"). The final verdict equals the verdict of the same spans judged
 * in one piece.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/gateway.js';
import { createGateway } from '../../src/gateway/gateway.js';
import type { TraceJudgeOptions } from '../../src/gateway/judge-trace.js';
import { judgeKeptTrace, judgeTrace } from '../../src/gateway/judge-trace.js';
import { ReleasedRuns } from '../../src/gateway/released-runs.js';
import { ResourceCache } from '../../src/gateway/resource-cache.js';
import { RevisableTraces } from '../../src/gateway/revisable-traces.js';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import * as K from '../../src/model/attributes.js';
import type { DecodedSpan } from '../../src/otlp/otlp-json-spans.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { createSanitizer } from '../../src/sanitize/sanitizer.js';
import { startUpstream } from '../support/upstream.js';

const sanitizer = createSanitizer();
const judging = (): TraceJudgeOptions => ({
  policy: DEFAULT_POLICY,
  sanitizer,
  resources: new ResourceCache(sanitizer),
  released: new ReleasedRuns(60_000),
  revisable: new RevisableTraces(),
});

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');
const NOW = BigInt(Date.now()) * 1_000_000n;
const op = (name: string) => ({ key: 'gen_ai.operation.name', value: { stringValue: name } });

/**
 * A run whose first attempt failed (ERROR, HTTP 503) and whose second
 * succeeded, or (`recovered` false) whose only attempt failed; a tool call
 * after it. Split by part: `run`, `attempts`, `tool`.
 */
function splitRun(i: number, recovered: boolean): { run: object[]; attempts: object[]; tool: object[] } {
  const traceId = hex(i + 1, 32);
  const runId = hex(16 * i + 1, 16);
  const at = (ms: number) => String(NOW - 10_000_000_000n + BigInt(ms) * 1_000_000n);
  const failed = {
    traceId,
    spanId: hex(16 * i + 2, 16),
    parentSpanId: runId,
    name: 'chat model',
    kind: 3,
    startTimeUnixNano: at(10),
    endTimeUnixNano: at(20),
    attributes: [
      op('chat'),
      { key: 'error.type', value: { stringValue: '503' } },
      { key: 'http.response.status_code', value: { intValue: '503' } },
    ],
    status: { code: 2, message: 'Service Unavailable' },
  };
  const retried = {
    traceId,
    spanId: hex(16 * i + 3, 16),
    parentSpanId: runId,
    name: 'chat model',
    kind: 3,
    startTimeUnixNano: at(30),
    endTimeUnixNano: at(40),
    attributes: [op('chat')],
    status: {},
  };
  return {
    run: [
      {
        traceId,
        spanId: runId,
        name: 'invoke_agent helper',
        kind: 1,
        startTimeUnixNano: at(0),
        endTimeUnixNano: at(100),
        attributes: [op('invoke_agent')],
        status: {},
      },
    ],
    attempts: recovered ? [failed, retried] : [failed],
    tool: [
      {
        traceId,
        spanId: hex(16 * i + 4, 16),
        parentSpanId: runId,
        name: 'execute_tool read',
        kind: 1,
        startTimeUnixNano: at(50),
        endTimeUnixNano: at(60),
        attributes: [op('execute_tool'), { key: 'gen_ai.tool.name', value: { stringValue: 'read' } }],
        status: {},
      },
    ],
  };
}

const request = (spans: object[]) => ({
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'revision-test' } }] },
      scopeSpans: [{ scope: { name: 'test' }, spans }],
    },
  ],
});
const decode = (spans: object[]): DecodedSpan[] => decodeOtlpJsonSpans(request(spans));
const verdictKeys = (attributes: Record<string, unknown>) =>
  Object.fromEntries(K.RUN_ATTRIBUTE_KEYS.filter((key) => key in attributes).map((key) => [key, attributes[key]]));

/** The run's verdict when every span is judged in one piece, with no refused sender. */
function verdictInOnePiece(spans: object[]): Record<string, unknown> {
  const judged = judgeTrace(decode(spans), judging(), Date.now());
  const run = judged.spans.find((span) => span.name.startsWith('invoke_agent'));
  return verdictKeys(run?.attributes ?? {});
}

describe('a run judged while a part could still come', () => {
  it.each([
    ['a failed attempt comes late', false],
    ['a failed then recovered attempt come late', true],
  ])(
    'is corrected when the part arrives and again when no sender can be back, ending at the one-piece verdict: %s',
    (_name, recovered) => {
      const parts = splitRun(1, recovered);
      const options = judging();
      const now = Date.now();
      const first = judgeTrace(decode([...parts.run, ...parts.tool]), options, now, true, now + 10_000);
      const delivered = first.spans.find((span) => span.name.startsWith('invoke_agent'));
      expect(delivered?.attributes[K.ATTR_INCIDENT_OUTCOME]).toBe('incomplete');
      expect(first.revisions).toEqual([]);

      // The refused request comes back while the window is still open: corrected, still flagged as possibly incomplete.
      const late = judgeTrace(decode(parts.attempts), options, now + 1_000, true, now + 10_000);
      expect(late.lateParts).toBe(parts.attempts.length);
      const revision = late.spans.find((span) => span.name === K.VERDICT_REVISION_SPAN);
      expect(revision, 'a revision span for the late failure').toBeDefined();
      expect(revision?.attributes[K.ATTR_INCIDENT_REVISION_OF]).toBe(delivered?.spanId);
      expect(revision?.attributes[K.ATTR_INCIDENT_REVISION_NUMBER]).toBe(1);
      expect(revision?.parentSpanId).toBe(delivered?.spanId);
      expect(revision?.links.map((link) => link.spanId)).toEqual([delivered?.spanId]);
      expect(revision?.traceId).toBe(delivered?.traceId);
      expect(revision?.attributes[K.ATTR_INCIDENT_MISSING_FACTS]).toContain('evidence_truncated');
      expect(late.revisions).toHaveLength(1);

      // No sender can be back: judged with all that came, it reads what one piece reads.
      const kept = options.revisable?.expire(now + 10_001) ?? [];
      expect(kept).toHaveLength(1);
      const last = judgeKeptTrace(kept[0]!, options, now + 10_001);
      const final = last.spans.find((span) => span.name === K.VERDICT_REVISION_SPAN);
      expect(final?.attributes[K.ATTR_INCIDENT_REVISION_NUMBER]).toBe(2);
      expect(verdictKeys(final?.attributes ?? {})).toEqual(
        verdictInOnePiece([...parts.run, ...parts.attempts, ...parts.tool]),
      );
    },
  );

  it('is judged again when no sender can be back although nothing came: the run had all its parts', () => {
    const parts = splitRun(2, false);
    const all = [...parts.run, ...parts.attempts, ...parts.tool];
    const options = judging();
    const now = Date.now();
    judgeTrace(decode(all), options, now, true, now + 5_000);
    const last = judgeKeptTrace(options.revisable!.expire(now + 5_000)[0]!, options, now + 5_000);
    expect(verdictKeys(last.spans[0]?.attributes ?? {})).toEqual(verdictInOnePiece(all));
  });

  it('gets no revision span when the correction would say what was already delivered', () => {
    const parts = splitRun(3, false);
    const options = judging();
    const now = Date.now();
    judgeTrace(decode([...parts.run, ...parts.attempts, ...parts.tool]), options, now, true, now + 5_000);
    // An HTTP call of the agent comes late: no fact in it, so the verdict stays as delivered.
    const run = parts.run[0] as { traceId: string; spanId: string; startTimeUnixNano: string; endTimeUnixNano: string };
    const http = {
      traceId: run.traceId,
      spanId: hex(99, 16),
      parentSpanId: run.spanId,
      name: 'GET',
      kind: 3,
      startTimeUnixNano: run.startTimeUnixNano,
      endTimeUnixNano: run.endTimeUnixNano,
      attributes: [{ key: 'http.request.method', value: { stringValue: 'GET' } }],
      status: {},
    };
    const late = judgeTrace(decode([http]), options, now + 100, true, now + 5_000);
    expect(late.lateParts).toBe(1);
    expect(late.revisions).toEqual([]);
    expect(late.spans.map((span) => span.name)).toEqual(['GET']);
  });

  it('keeps nothing for a run judged when no sender was refused: a late part is counted and forwarded as it is', () => {
    const parts = splitRun(4, false);
    const options = judging();
    const now = Date.now();
    judgeTrace(decode([...parts.run, ...parts.tool]), options, now);
    expect(options.revisable?.size).toBe(0);
    const late = judgeTrace(decode(parts.attempts), options, now + 100);
    expect(late.lateParts).toBe(1);
    expect(late.revisions).toEqual([]);
  });

  it('is not judged the last time while a part of it waits to be judged: the part is folded with it first', () => {
    const parts = splitRun(13, false);
    const options = judging();
    const now = Date.now();
    judgeTrace(decode([...parts.run, ...parts.tool]), options, now, true, now + 1_000);
    const traceId = hex(14, 32);
    // Past its time, but the store still holds the late attempt: it stays kept.
    expect(options.revisable!.expire(now + 2_000, (id) => id !== traceId)).toEqual([]);
    const late = judgeTrace(decode(parts.attempts), options, now + 2_100);
    expect(verdictKeys(late.spans.find((span) => span.name === K.VERDICT_REVISION_SPAN)?.attributes ?? {})).toEqual(
      verdictInOnePiece([...parts.run, ...parts.attempts, ...parts.tool]),
    );
  });

  it('lets the oldest kept trace go first when asked to shrink, and counts it', () => {
    const options = judging();
    const now = Date.now();
    for (const i of [5, 6, 7]) {
      const parts = splitRun(i, false);
      judgeTrace(decode([...parts.run, ...parts.tool]), options, now, true, now + 5_000);
    }
    const revisable = options.revisable!;
    const each = revisable.bytes / 3;
    revisable.shrinkTo(each * 2);
    expect(revisable.size).toBe(2);
    expect(revisable.evicted).toBe(1);
    expect(revisable.take(hex(6, 32))).toBeUndefined();
  });
});

describe('the gateway corrects a verdict a late part changes', () => {
  const open: { gateways: Gateway[]; upstreams: Awaited<ReturnType<typeof startUpstream>>[] } = {
    gateways: [],
    upstreams: [],
  };
  const dirs: string[] = [];
  afterEach(async () => {
    for (const gateway of open.gateways) await gateway.close();
    for (const upstream of open.upstreams) await upstream.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    open.gateways = [];
    open.upstreams = [];
  });

  it('sends a revision span under the run and counts it, after a refusal that does not hold (a full persistent queue)', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'revision-queue-'));
    dirs.push(directory);
    const upstream = await startUpstream();
    open.upstreams.push(upstream);
    const gateway = await createGateway({
      listen: { host: '127.0.0.1', port: 0 },
      upstream: { endpoint: upstream.endpoint, initialBackoffMillis: 10, maxBackoffMillis: 50 },
      hold: { decisionWaitMillis: 50, maxHoldMillis: 60_000, tickMillis: 10, refusedSenderBackoffMillis: 600 },
      limits: { retryAfterSeconds: 1 },
      persistence: { directory, maxBytes: 3_000 },
    });
    open.gateways.push(gateway);
    const parts = splitRun(8, false);
    const post = (spans: object[]) =>
      fetch(`${gateway.url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request(spans)),
      });
    expect((await post([...parts.run, ...parts.tool])).status).toBe(200);
    // Another sender's request does not fit the queue: refused with 503, it will be back, and the gateway does not wait for it.
    const others = [9, 10, 11, 12].flatMap((i) => {
      const p = splitRun(i, true);
      return [...p.run, ...p.attempts, ...p.tool];
    });
    expect((await post(others)).status).toBe(503);
    await expect
      .poll(() => upstream.received.filter((span) => span.name.startsWith('invoke_agent')).length, { timeout: 5_000 })
      .toBe(1);
    expect((await post(parts.attempts)).status).toBe(200);
    await expect
      .poll(() => upstream.received.filter((span) => span.name === K.VERDICT_REVISION_SPAN).length, { timeout: 5_000 })
      .toBeGreaterThanOrEqual(1);
    const revisions = upstream.received.filter((span) => span.name === K.VERDICT_REVISION_SPAN);
    const final = revisions.at(-1);
    expect(final?.resource['service.name']).toEqual('revision-test');
    await expect
      .poll(
        () =>
          verdictKeys(
            upstream.received.filter((span) => span.name === K.VERDICT_REVISION_SPAN).at(-1)?.attributes ?? {},
          ),
        { timeout: 5_000 },
      )
      .toEqual(verdictInOnePiece([...parts.run, ...parts.attempts, ...parts.tool]));
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/agent_incidents_gateway_verdicts_revised_total\{outcome="failed",cause="[a-z_]+"\} [1-9]/);
    expect(metrics).toMatch(/agent_incidents_gateway_late_parts_total [1-9]/);
  });
});

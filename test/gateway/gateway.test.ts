/**
 * The gateway in-process: real HTTP on 127.0.0.1 in and out. It gives the
 * processor's verdict to traces from any client, refuses bad input with the
 * right status and keeps serving, pushes back when full, retries a failing
 * upstream, and judges a run whose span never arrived.
 */
import { gzipSync } from 'node:zlib';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/gateway.js';
import { createGateway } from '../../src/gateway/gateway.js';
import type { GatewayConfigInput } from '../../src/gateway/config.js';
import type { RunRecorder } from '../../src/index.js';
import { startUpstream } from '../support/upstream.js';
import { createPipeline, errors, LOCAL_TOOLS } from '../support/harness.js';

/** Raw spans of one run as an instrumented agent would send them: no verdict on them yet. */
async function agentSpans(build: (run: RunRecorder) => void): Promise<ReadableSpan[]> {
  const pipeline = createPipeline({ sanitization: { mode: 'off' } });
  const run = pipeline.startRun();
  build(run);
  run.end();
  await pipeline.provider.forceFlush();
  for (const span of pipeline.spans()) {
    // What the agent sent had no incident attributes: strip what this local processor added.
    for (const key of Object.keys(span.attributes))
      if (key.startsWith('incident.') || key === 'error.type') delete (span.attributes as Record<string, unknown>)[key];
  }
  return pipeline.spans();
}

const dropAfterText = (run: RunRecorder): void => {
  const attempt = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
  attempt.textOutput();
  attempt.fail(errors.socketDrop());
};

let gateway: Gateway | undefined;
let upstream: Awaited<ReturnType<typeof startUpstream>> | undefined;
afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
  gateway = undefined;
  upstream = undefined;
});

async function start(config: Partial<GatewayConfigInput> = {}, statuses: number[] = []) {
  upstream = await startUpstream(statuses);
  gateway = await createGateway({
    listen: { host: '127.0.0.1', port: 0 },
    hold: { decisionWaitMillis: 0, maxHoldMillis: 60_000, tickMillis: 20 },
    ...config,
    upstream: { endpoint: upstream.endpoint, initialBackoffMillis: 10, maxBackoffMillis: 50, ...config.upstream },
  });
  return { gateway, upstream };
}

function post(body: Uint8Array | string, headers: Record<string, string>) {
  return fetch(`${gateway!.url}/v1/traces`, { method: 'POST', headers, body });
}

describe('the gateway', () => {
  it('gives a trace sent as OTLP protobuf the verdict the SDK processor gives, and forwards it', async () => {
    const { gateway, upstream } = await start();
    const spans = await agentSpans(dropAfterText);
    const response = await post(ProtobufTraceSerializer.serializeRequest(spans)!, {
      'content-type': 'application/x-protobuf',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-protobuf');
    await gateway.flush();
    expect(upstream.received).toHaveLength(spans.length);
    const run = upstream.received.find((s) => s.name.startsWith('invoke_agent'));
    expect(run?.attributes).toMatchObject({
      'incident.outcome': 'failed',
      'incident.cause': 'provider_transport_disconnect',
      'incident.phase': 'text_generation',
      'incident.retry_safety': 'offer_continue',
    });
    expect(run?.statusCode).toBe(2);
    expect(new Set(upstream.received.map((s) => s.spanId))).toEqual(new Set(spans.map((s) => s.spanContext().spanId)));
  });

  it('accepts OTLP JSON, gzip-compressed, and answers in JSON', async () => {
    const { gateway, upstream } = await start();
    const spans = await agentSpans(dropAfterText);
    const response = await post(gzipSync(JsonTraceSerializer.serializeRequest(spans)!), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({});
    await gateway.flush();
    expect(upstream.received.find((s) => s.name.startsWith('invoke_agent'))?.attributes['incident.cause']).toBe(
      'provider_transport_disconnect',
    );
  });

  it('removes content and secrets from spans and resources before forwarding', async () => {
    const { gateway, upstream } = await start();
    const spans = await agentSpans((run) => {
      run.span.setAttribute('gen_ai.input.messages', '[{"role":"user","content":"my password is hunter2"}]');
      run.span.setAttribute('note', 'token sk-abcdefghijklmnopqrstuvwx');
    });
    const json = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans))) as {
      resourceSpans: { resource: { attributes: unknown[] } }[];
    };
    json.resourceSpans[0]!.resource.attributes.push({
      key: 'deployment.owner',
      value: { stringValue: 'alice@example.com' },
    });
    await post(JSON.stringify(json), { 'content-type': 'application/json' });
    await gateway.flush();
    const forwarded = JSON.stringify(upstream.received, (_key, value: unknown) =>
      typeof value === 'bigint' ? String(value) : value,
    );
    expect(forwarded).not.toContain('hunter2');
    expect(forwarded).not.toContain('sk-abcdefghijklmnopqrstuvwx');
    expect(forwarded).not.toContain('alice@example.com');
  });

  it.each([
    ['a wrong content type is 415', { 'content-type': 'text/plain' }, 'x', 415],
    [
      'an unsupported content encoding is 415',
      { 'content-type': 'application/json', 'content-encoding': 'br' },
      '{}',
      415,
    ],
    ['malformed protobuf is 400', { 'content-type': 'application/x-protobuf' }, '\u00ff\u00ff\u00ff\u00ff', 400],
    ['malformed JSON is 400', { 'content-type': 'application/json' }, '{"resourceSpans": [', 400],
    ['broken gzip is 400', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, 'not gzip', 400],
  ])('%s, and it keeps serving', async (_name, headers, body, status) => {
    const { gateway } = await start();
    const response = await post(body, headers as Record<string, string>);
    expect(response.status).toBe(status);
    expect((await response.json()) as { code: number }).toMatchObject({ code: status });
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
  });

  it('refuses a body over the limit with 413, declared or streamed, and keeps serving', async () => {
    const { gateway } = await start({ limits: { maxBodyBytes: 1024 } });
    expect((await post('x'.repeat(4096), { 'content-type': 'application/json' })).status).toBe(413);
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
  });

  it('refuses a gzip bomb with 413 without expanding it', async () => {
    const { gateway } = await start({ limits: { maxBodyBytes: 64 * 1024 } });
    // 32 MiB of zeros gzip to ~32 KiB: within the limit compressed, 512 times over it expanded.
    const bomb = gzipSync(Buffer.alloc(32 * 1024 * 1024), { level: 9 });
    expect(bomb.length).toBeLessThan(64 * 1024);
    const before = process.memoryUsage().rss;
    const response = await post(bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(response.status).toBe(413);
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
  });

  it('rejects spans without ids as an OTLP partial success and keeps the rest', async () => {
    const { gateway, upstream } = await start();
    const spans = await agentSpans(dropAfterText);
    const json = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans))) as {
      resourceSpans: { scopeSpans: { spans: unknown[] }[] }[];
    };
    json.resourceSpans[0]!.scopeSpans[0]!.spans.push({ name: 'no ids' });
    const response = await post(JSON.stringify(json), { 'content-type': 'application/json' });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ partialSuccess: { rejectedSpans: 1 } });
    await gateway.flush();
    expect(upstream.received).toHaveLength(spans.length);
  });

  it('answers 429 with Retry-After when it holds as much as it may, and counts the refusal', async () => {
    const { gateway } = await start({
      limits: { maxSpans: 3 },
      hold: { decisionWaitMillis: 60_000, maxHoldMillis: 60_000, tickMillis: 1000 },
    });
    const spans = await agentSpans(dropAfterText);
    expect(
      (await post(ProtobufTraceSerializer.serializeRequest(spans)!, { 'content-type': 'application/x-protobuf' }))
        .status,
    ).toBe(200);
    const more = await agentSpans(dropAfterText);
    const response = await post(ProtobufTraceSerializer.serializeRequest(more)!, {
      'content-type': 'application/x-protobuf',
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('5');
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toContain(`agent_incidents_gateway_spans_refused_total{reason="capacity"} ${more.length}`);
  });

  it('retries an upstream that answers 503, then delivers', async () => {
    const { gateway, upstream } = await start({}, [503, 503]);
    const spans = await agentSpans(dropAfterText);
    await post(ProtobufTraceSerializer.serializeRequest(spans)!, { 'content-type': 'application/x-protobuf' });
    await gateway.flush();
    expect(upstream.requests).toBe(3);
    expect(upstream.received).toHaveLength(spans.length);
    expect(gateway.metrics.forwardRetries).toBe(2);
  });

  it('pushes back with 503 when the upstream is down and the backlog is full, instead of growing', async () => {
    const { gateway, upstream } = await start({
      limits: { maxForwardBacklogSpans: 3 },
      upstream: { endpoint: 'http://127.0.0.1:1/v1/traces', maxAttempts: 20 },
    });
    const spans = await agentSpans(dropAfterText);
    const body = ProtobufTraceSerializer.serializeRequest(spans)!;
    expect((await post(body, { 'content-type': 'application/x-protobuf' })).status).toBe(200);
    await expect.poll(() => gateway.metrics.forwardRetries, { timeout: 2000 }).toBeGreaterThan(0);
    const second = await post(body, { 'content-type': 'application/x-protobuf' });
    expect(second.status).toBe(503);
    expect(second.headers.get('retry-after')).toBe('5');
    expect(upstream.requests).toBe(0);
  });

  it('counts the tokens and cost of the lost attempts on /metrics, by outcome, cause and retry safety', async () => {
    const { gateway } = await start();
    const spans = await agentSpans((run) => {
      const attempt = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
      attempt.usage({ inputTokens: 1200, outputTokens: 80, costUsd: 0.02 });
      attempt.textOutput();
      attempt.fail(errors.socketDrop());
    });
    await post(ProtobufTraceSerializer.serializeRequest(spans)!, { 'content-type': 'application/x-protobuf' });
    await gateway.flush();
    const page = await (await fetch(`${gateway.url}/metrics`)).text();
    const labels = 'outcome="failed",cause="provider_transport_disconnect",retry_safety="offer_continue"';
    expect(page).toContain(`agent_incidents_gateway_tokens_lost_total{${labels},type="input"} 1200\n`);
    expect(page).toContain(`agent_incidents_gateway_tokens_lost_total{${labels},type="output"} 80\n`);
    expect(page).toContain(`agent_incidents_gateway_cost_lost_usd_total{${labels}} 0.02\n`);
    expect(page).toContain(`agent_incidents_gateway_lost_runs_total{${labels},lower_bound="false"} 1\n`);
  });

  it('judges a run whose run span never arrives as a crash, found by incident.cause', async () => {
    const { gateway, upstream } = await start({ hold: { decisionWaitMillis: 0, maxHoldMillis: 100, tickMillis: 20 } });
    const spans = (
      await agentSpans((run) => {
        const attempt = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
        attempt.textOutput();
        attempt.finish();
      })
    ).filter((s) => !s.name.startsWith('invoke_agent'));
    await post(ProtobufTraceSerializer.serializeRequest(spans)!, { 'content-type': 'application/x-protobuf' });
    await expect.poll(() => upstream.received.length, { timeout: 3000 }).toBe(spans.length);
    const judged = upstream.received.filter((s) => s.attributes['incident.cause'] !== undefined);
    expect(judged.map((s) => s.attributes['incident.cause'])).toEqual(['crash_or_restart_incomplete']);
    expect(judged[0]?.attributes['incident.missing_facts']).toContain('run_never_ended');
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toContain(
      'agent_incidents_gateway_runs_total{outcome="incomplete",cause="crash_or_restart_incomplete"} 1',
    );
  });

  it('flushes held traces when it closes', async () => {
    const { gateway, upstream } = await start({
      hold: { decisionWaitMillis: 60_000, maxHoldMillis: 60_000, tickMillis: 1000 },
    });
    const spans = await agentSpans(dropAfterText);
    await post(ProtobufTraceSerializer.serializeRequest(spans)!, { 'content-type': 'application/x-protobuf' });
    expect(upstream.received).toHaveLength(0);
    await gateway.close();
    expect(upstream.received).toHaveLength(spans.length);
  });
});

describe('the gateway against hostile input', () => {
  it('refuses with 413 a small protobuf body that would decode to too many items', async () => {
    const { gateway } = await start({ limits: { maxRequestItems: 1000 } });
    // One ResourceSpans, one ScopeSpans, 2,000 empty spans: 4 KB on the wire, far more in memory.
    const spans = Buffer.from(new Array<number[]>(2000).fill([0x12, 0x00]).flat());
    const scope = Buffer.concat([Buffer.from([0x12]), Buffer.from(varint(spans.length)), spans]);
    const body = Buffer.concat([Buffer.from([0x0a]), Buffer.from(varint(scope.length)), scope]);
    const response = await post(body, { 'content-type': 'application/x-protobuf' });
    expect(response.status).toBe(413);
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
  });

  it('refuses with 413 a request holding more spans than it may ever hold', async () => {
    await start({ limits: { maxSpans: 1, maxForwardBacklogSpans: 1 } });
    const spans = await agentSpans(dropAfterText);
    const response = await post(ProtobufTraceSerializer.serializeRequest(spans)!, {
      'content-type': 'application/x-protobuf',
    });
    expect(response.status).toBe(413);
  });

  it('rejects spans with ids of the wrong length, so they cannot poison a forwarded batch', async () => {
    const { gateway, upstream } = await start();
    const spans = await agentSpans(dropAfterText);
    const json = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans))) as {
      resourceSpans: { scopeSpans: { spans: unknown[] }[] }[];
    };
    json.resourceSpans[0]!.scopeSpans[0]!.spans.push({
      traceId: 'abc',
      spanId: '',
      name: 'bad ids',
      startTimeUnixNano: '1',
    });
    const response = await post(JSON.stringify(json), { 'content-type': 'application/json' });
    expect(await response.json()).toMatchObject({ partialSuccess: { rejectedSpans: 1 } });
    await gateway.flush();
    expect(upstream.received.map((s) => s.name)).not.toContain('bad ids');
  });

  it('names a bad policy as a configuration error', async () => {
    await expect(
      createGateway({
        upstream: { endpoint: 'http://127.0.0.1:1/v1/traces' },
        listen: { port: 0 },
        policy: { maxAutoRetries: -1 },
      }),
    ).rejects.toThrow(/policy/);
  });
});

function varint(value: number): number[] {
  const out: number[] = [];
  while (value >= 0x80) {
    out.push((value & 0x7f) | 0x80);
    value >>>= 7;
  }
  out.push(value);
  return out;
}

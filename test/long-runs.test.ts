/**
 * A run may last weeks. Neither the processor nor the gateway judges a run
 * incomplete, or rewrites its end, because of how long ago it started: ages
 * are measured from when the edge began tracking the run, and no duration is
 * ever put in a 32-bit timer (2^31 ms is 24.8 days).
 */
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import type { Gateway } from '../src/gateway/gateway.js';
import { createGateway } from '../src/gateway/gateway.js';
import { resolveOptions } from '../src/sdk/options.js';
import { createPipeline } from './support/harness.js';
import { startUpstream } from './support/upstream.js';

const DAY = 86_400_000;
const LENGTHS = [
  ['1 day', 1 * DAY],
  ['25 days (past 2^31 ms)', 25 * DAY],
  ['60 days', 60 * DAY],
] as const;

describe('a long run, through the SDK processor', () => {
  it.each(LENGTHS)('is judged by its facts, not its age, after %s', (_name, length) => {
    const pipeline = createPipeline();
    const now = Date.now();
    const run = pipeline.tracer.startSpan('invoke_agent planner', {
      startTime: now - length,
      attributes: { 'gen_ai.operation.name': 'invoke_agent' },
    });
    // A chat call inside the run: the processor's age check runs as it starts.
    pipeline.tracer
      .startSpan(
        'chat model',
        { attributes: { 'gen_ai.operation.name': 'chat' } },
        trace.setSpan(context.active(), run),
      )
      .end();
    run.end(now);
    const [exported] = pipeline.runSpans() as ReadableSpan[];
    expect(exported?.attributes['incident.outcome']).toBe('success');
    expect(exported?.attributes['incident.missing_facts']).toBeUndefined();
    expect(exported?.endTime[0]).toBe(Math.floor(now / 1000));
  });

  it.each(LENGTHS)(
    'keeps a run open for %s when maxRunAgeMillis allows it, while other spans come and go',
    (_name, length) => {
      const pipeline = createPipeline({ maxRunAgeMillis: 90 * DAY });
      const now = Date.now();
      const run = pipeline.tracer.startSpan('invoke_agent planner', {
        startTime: now - length,
        attributes: { 'gen_ai.operation.name': 'invoke_agent' },
      });
      // Another span starting runs the processor's age check.
      pipeline.tracer.startSpan('unrelated').end();
      expect(pipeline.runSpans()).toHaveLength(0);
      run.setStatus({ code: SpanStatusCode.OK });
      run.end(now);
      expect(pipeline.runSpans()[0]?.attributes['incident.outcome']).toBe('success');
    },
  );

  it('accepts a maxRunAgeMillis longer than a 32-bit timer can hold', () => {
    expect(resolveOptions({ maxRunAgeMillis: 60 * DAY }).maxRunAgeMillis).toBe(60 * DAY);
  });
});

describe('a long run, through the gateway', () => {
  let gateway: Gateway | undefined;
  let upstream: Awaited<ReturnType<typeof startUpstream>> | undefined;
  afterEach(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it.each(LENGTHS)('is judged by its facts and keeps its end after %s', async (_name, length) => {
    upstream = await startUpstream();
    gateway = await createGateway({
      listen: { port: 0 },
      upstream: { endpoint: upstream.endpoint },
      hold: { decisionWaitMillis: 0, tickMillis: 10 },
    });
    const end = BigInt(Date.now()) * 1_000_000n;
    const start = end - BigInt(length) * 1_000_000n;
    const traceId = '7'.repeat(32);
    const body = {
      resourceSpans: [
        {
          resource: {},
          scopeSpans: [
            {
              scope: {},
              spans: [
                {
                  traceId,
                  spanId: '1'.repeat(16),
                  name: 'invoke_agent planner',
                  kind: 1,
                  startTimeUnixNano: String(start),
                  endTimeUnixNano: String(end),
                  attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } }],
                  status: {},
                },
                {
                  traceId,
                  spanId: '2'.repeat(16),
                  parentSpanId: '1'.repeat(16),
                  name: 'chat model',
                  kind: 3,
                  startTimeUnixNano: String(start + 1_000n),
                  endTimeUnixNano: String(end - 1_000n),
                  attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }],
                  status: {},
                },
              ],
            },
          ],
        },
      ],
    };
    const response = await fetch(`${gateway.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    await gateway.flush();
    const run = upstream.received.find((s) => s.spanId === '1'.repeat(16));
    expect(run?.attributes['incident.outcome']).toBe('success');
    expect(run?.endTimeUnixNano).toBe(end);
    expect(run?.startTimeUnixNano).toBe(start);
  });
});

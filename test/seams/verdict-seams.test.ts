/**
 * The six classes of wrong verdicts found on the seams between the edges
 * (processor, recorder, gateway), each through the surfaces users touch:
 * RunRecorder, a tracer provider with IncidentSpanProcessor, and the gateway
 * over real HTTP on 127.0.0.1 with an OTLP receiver behind it. Each failed
 * before the fold core (src/fold/) was shared by every edge.
 */
import type { Span } from '@opentelemetry/api';
import { trace } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Gateway } from '../../src/gateway/gateway.js';
import { createGateway } from '../../src/gateway/gateway.js';
import type { GatewayConfigInput } from '../../src/gateway/config.js';
import type { DecodedSpan } from '../../src/otlp/otlp-json-spans.js';
import { RunRecorder } from '../../src/index.js';
import { checkpointResume, createTask, recoveryContext } from '../../src/recovery/index.js';
import { freezeDate } from '../support/frozen-date.js';
import { startUpstream } from '../support/upstream.js';
import { waitFor } from '../support/wait-for.js';
import { createPipeline, errors, KeepingExporter, LOCAL_TOOLS, steppingClock } from '../support/harness.js';

let gateway: Gateway | undefined;
let upstream: Awaited<ReturnType<typeof startUpstream>> | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await gateway?.close();
  await upstream?.close();
  gateway = undefined;
  upstream = undefined;
});

async function startGateway(hold: Partial<NonNullable<GatewayConfigInput['hold']>> = {}, workers?: number) {
  upstream = await startUpstream();
  gateway = await createGateway({
    listen: { host: '127.0.0.1', port: 0 },
    workers,
    hold: { decisionWaitMillis: 50, maxHoldMillis: 60_000, tickMillis: 20, ...hold },
    upstream: { endpoint: upstream.endpoint },
  });
  return { gateway, upstream };
}

async function send(spans: readonly ReadableSpan[]): Promise<void> {
  const response = await fetch(`${gateway!.url}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-protobuf' },
    body: ProtobufTraceSerializer.serializeRequest([...spans])!,
  });
  expect(response.status).toBe(200);
}

async function sendJson(request: unknown): Promise<void> {
  const response = await fetch(`${gateway!.url}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request),
  });
  expect(response.status).toBe(200);
}

/** Waits until the upstream received `count` spans (fails after 5 s). */
async function receivedAtLeast(count: number): Promise<DecodedSpan[]> {
  await waitFor(() => upstream!.received.length >= count, { what: `${count} spans received upstream` });
  return upstream!.received;
}

/** A tracer provider an agent without the processor would run: raw spans, no verdict. */
function rawPipeline() {
  const exporter = new KeepingExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer('agent') };
}

const runSpanOf = (spans: readonly DecodedSpan[], name = 'invoke_agent') => spans.find((s) => s.name.startsWith(name));

describe('1. nested runs: the in-process verdict is at least as cautious as the exported one', () => {
  it("a parent recorder counts its sub-agent's unsafe tool, before and after end(), as the exported span does; checkpointResume then asks", async () => {
    const pipeline = createPipeline();
    const parent = pipeline.startRun({ agentName: 'planner' });
    const attempt = parent.startAttempt({ boundary: { tools: [{ name: 'delegate', sideEffects: 'read_only' }] } });
    attempt.toolCallMaterialized({ name: 'delegate', sideEffects: 'read_only' });
    const delegate = parent.startTool({ name: 'delegate', sideEffects: 'read_only', attempt });
    const child = RunRecorder.start({
      tracer: pipeline.tracer,
      clock: pipeline.clock,
      agentName: 'coder',
      parentContext: trace.setSpan(parent.context, delegate.span),
    });
    const childAttempt = child.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
    childAttempt.toolCallMaterialized({ name: 'bash', sideEffects: 'unsafe' });
    childAttempt.finish();
    const bash = child.startTool({ name: 'bash', sideEffects: 'unsafe', attempt: childAttempt });
    expect(parent.incident().sideEffects, 'while the sub-agent still runs its tool').toBe('unsafe');
    bash.complete();
    child.end();
    delegate.complete();
    const second = parent.startAttempt({ boundary: { tools: [{ name: 'delegate', sideEffects: 'read_only' }] } });
    second.textOutput();
    second.fail(errors.socketDrop());
    expect(parent.incident().sideEffects, 'before end()').toBe('unsafe');
    const action = await checkpointResume({ loadCheckpoint: () => ({ id: 'cp-1', data: {} }) }).recover(
      recoveryContext(parent, createTask('t1', 'IN_PROGRESS')),
    );
    expect(action.kind).toBe('ask_user');
    expect(action.reason).toBe('side_effects_unconfirmed');
    const verdict = parent.end();
    const exported = pipeline.runSpans().find((s) => s.name === 'invoke_agent planner');
    expect(verdict.sideEffects).toBe('unsafe');
    expect(exported?.attributes['incident.side_effects']).toBe(verdict.sideEffects);
  });
});

describe('2. dropped facts never make a verdict less cautious', () => {
  /** An unsafe call first, then `n` parallel read-only calls streamed one after the other, then a drop. */
  function parallelCalls(run: RunRecorder, n: number): void {
    const attempt = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
    const call = (name: string, sideEffects: 'read_only' | 'unsafe', i: number) => {
      attempt.toolInputStarted(name);
      attempt.toolInputCompleted(name);
      attempt.toolCallMaterialized({ name, callId: `call_${i}`, sideEffects });
    };
    call('bash', 'unsafe', 0);
    for (let i = 1; i <= n; i += 1) call('read', 'read_only', i);
    attempt.fail(errors.socketDrop());
  }

  it.each([50, 100, 300])(
    '%s parallel read-only calls after an unsafe one: the exported verdict still asks first',
    async (n) => {
      const pipeline = createPipeline();
      const run = pipeline.startRun();
      parallelCalls(run, n);
      const inProcess = run.end();
      const exported = pipeline.runSpans()[0]?.attributes;
      expect(inProcess.retrySafety).toBe('ask_user_before_retry');
      expect(exported?.['incident.retry_safety']).toBe('ask_user_before_retry');
      const attempt = pipeline.spans().find((s) => s.name.startsWith('chat'));
      // Where the span limit dropped events, the verdict says its facts are incomplete.
      if ((attempt?.droppedEventsCount ?? 0) > 0)
        expect(exported?.['incident.missing_facts']).toContain('evidence_truncated');
    },
  );

  /** OTLP/JSON of a run whose attempt dropped before any output (auto_retry), with `extra` on the attempt span. */
  function otlpRun(traceId: string, extra: Record<string, unknown>) {
    const t = BigInt(Date.now()) * 1_000_000n;
    const at = (ms: number) => String(t + BigInt(ms) * 1_000_000n);
    const kv = (key: string, value: unknown) => ({
      key,
      value:
        typeof value === 'number'
          ? { intValue: value }
          : typeof value === 'boolean'
            ? { boolValue: value }
            : Array.isArray(value)
              ? { arrayValue: { values: value.map((v) => ({ stringValue: v })) } }
              : { stringValue: value },
    });
    return {
      resourceSpans: [
        {
          resource: { attributes: [kv('service.name', 'py-agent')] },
          scopeSpans: [
            {
              scope: { name: 'agent' },
              spans: [
                {
                  traceId,
                  spanId: 'a000000000000001',
                  name: 'invoke_agent',
                  kind: 1,
                  startTimeUnixNano: at(0),
                  endTimeUnixNano: at(50),
                  attributes: [kv('gen_ai.operation.name', 'invoke_agent')],
                  status: {},
                },
                {
                  traceId,
                  spanId: 'a000000000000002',
                  parentSpanId: 'a000000000000001',
                  name: 'chat',
                  kind: 3,
                  startTimeUnixNano: at(10),
                  endTimeUnixNano: at(30),
                  attributes: [kv('gen_ai.operation.name', 'chat'), kv('agent_incidents.attempt.number', 1)],
                  events: [
                    {
                      name: 'agent_incidents.side_effect_boundary',
                      timeUnixNano: at(11),
                      attributes: [
                        kv('agent_incidents.boundary.read_only_tools', ['read']),
                        kv('agent_incidents.seq', 1),
                      ],
                    },
                    {
                      name: 'agent_incidents.provider_error',
                      timeUnixNano: at(29),
                      attributes: [
                        kv('agent_incidents.error.kind', 'transport'),
                        kv('agent_incidents.error.detail', 'socket_closed'),
                        kv('agent_incidents.error.retryable', true),
                        kv('agent_incidents.seq', 2),
                      ],
                    },
                  ],
                  status: { code: 2 },
                  ...extra,
                },
              ],
            },
          ],
        },
      ],
    };
  }

  it.each([
    ['nothing dropped', {}, true],
    ['droppedEventsCount', { droppedEventsCount: 5 }, false],
    ['droppedAttributesCount', { droppedAttributesCount: 2 }, false],
  ])('through the gateway, an attempt span with %s', async (_what, extra, complete) => {
    const { gateway } = await startGateway();
    await sendJson(otlpRun('b'.repeat(32), extra));
    await gateway.flush();
    const run = runSpanOf(upstream!.received)?.attributes;
    expect(run?.['incident.facts_complete']).toBe(complete);
    if (complete) expect(run?.['incident.retry_safety']).toBe('auto_retry');
    else
      expect(run).toMatchObject({
        'incident.outcome': 'incomplete',
        'incident.retry_safety': 'ask_user_before_retry',
        'incident.retry_safety.reason': 'side_effect_facts_incomplete',
      });
  });
});

describe('3. clock skew between spans changes no verdict', () => {
  it.each([0.1, 0.5, 1])(
    'a successful run whose children ended %s ms after the run span (by their clock) stays a success through the gateway',
    async (skew) => {
      const { gateway } = await startGateway();
      const { exporter, tracer } = rawPipeline();
      const run = RunRecorder.start({ tracer, clock: steppingClock() });
      const attempt = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
      attempt.textOutput();
      attempt.finish();
      run.end();
      const json = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(exporter.spans))) as {
        resourceSpans: { scopeSpans: { spans: { name: string; endTimeUnixNano: string }[] }[] }[];
      };
      const spans = json.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
      const runEnd = BigInt(spans.find((s) => s.name.startsWith('invoke_agent'))!.endTimeUnixNano);
      for (const span of spans)
        if (!span.name.startsWith('invoke_agent'))
          span.endTimeUnixNano = String(runEnd + BigInt(Math.round(skew * 1e6)));
      await sendJson(json);
      await gateway.flush();
      expect(runSpanOf(upstream!.received)?.attributes).toMatchObject({
        'incident.outcome': 'success',
        'incident.facts_complete': true,
      });
    },
  );
});

describe('4. a tool goes to the attempt that called it, not to the one running at its start', () => {
  it('an AI SDK step and the next one starting in the same millisecond: the tool belongs to the first, in the processor and the gateway', async () => {
    const T = Date.now();
    let now = T;
    const clock = () => now;
    const hr = (ms: number): [number, number] => [Math.floor(ms / 1000), (ms % 1000) * 1e6];
    const drive = (tracer: ReturnType<typeof rawPipeline>['tracer']) => {
      now = T;
      const run = RunRecorder.start({ tracer, clock, agentName: 'sdk' });
      const call = tracer.startSpan(
        'ai.streamText',
        { attributes: { 'ai.operationId': 'ai.streamText' }, startTime: hr(T + 1) },
        run.context,
      );
      const inCall = trace.setSpan(run.context, call);
      const step = (at: number): Span =>
        tracer.startSpan(
          'ai.streamText.doStream',
          { attributes: { 'ai.operationId': 'ai.streamText.doStream' }, startTime: hr(at) },
          inCall,
        );
      const s1 = step(T + 10);
      now = T + 11;
      const a1 = run.adoptAttempt(s1, { boundary: { tools: LOCAL_TOOLS } });
      a1.toolCallMaterialized({ name: 'read', sideEffects: 'read_only' });
      a1.finish();
      s1.end(hr(T + 30));
      const toolSpan = tracer.startSpan(
        'ai.toolCall',
        { attributes: { 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'read' }, startTime: hr(T + 40) },
        inCall,
      );
      const s2 = step(T + 40);
      now = T + 40;
      const tool = run.adoptTool(toolSpan, { name: 'read', sideEffects: 'read_only', attempt: a1 });
      const a2 = run.adoptAttempt(s2, { boundary: { tools: LOCAL_TOOLS } });
      now = T + 45;
      tool.complete();
      toolSpan.end(hr(T + 45));
      now = T + 50;
      a2.fail(errors.socketDrop());
      s2.end(hr(T + 50));
      call.end(hr(T + 60));
      now = T + 61;
      return run.end();
    };
    // Step 2 ran nothing and showed nothing: its drop is retryable on its own.
    const want = {
      'incident.outcome': 'failed',
      'incident.cause': 'provider_transport_disconnect',
      'incident.retry_safety': 'auto_retry',
      'incident.side_effects': 'read_only',
    };

    const pipeline = createPipeline();
    const inProcess = drive(pipeline.tracer);
    expect(inProcess.retrySafety).toBe('auto_retry');
    expect(pipeline.runSpans()[0]?.attributes).toMatchObject(want);

    const { gateway } = await startGateway();
    const raw = rawPipeline();
    drive(raw.tracer);
    await send(raw.exporter.spans);
    await gateway.flush();
    expect(runSpanOf(upstream!.received)?.attributes).toMatchObject(want);
  });
});

describe('5. a run span that reaches the gateway after its parts is not judged as an empty run', () => {
  /** A planner whose tool ran a sub-agent with an unsafe tool; then the planner's request dropped. */
  function nestedRun(tracer: ReturnType<typeof rawPipeline>['tracer']) {
    const clock = steppingClock();
    const parent = RunRecorder.start({ tracer, clock, agentName: 'planner' });
    const attempt = parent.startAttempt({ boundary: { tools: [{ name: 'delegate', sideEffects: 'read_only' }] } });
    const delegate = parent.startTool({ name: 'delegate', sideEffects: 'read_only', attempt });
    const child = RunRecorder.start({
      tracer,
      clock,
      agentName: 'coder',
      parentContext: trace.setSpan(parent.context, delegate.span),
    });
    const childAttempt = child.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
    childAttempt.finish();
    child.startTool({ name: 'bash', sideEffects: 'unsafe', attempt: childAttempt }).complete();
    child.end();
    delegate.complete();
    attempt.textOutput();
    attempt.fail(errors.socketDrop());
    return parent.end();
  }

  it.each([
    ['while the gateway still holds its parts', 60_000],
    ['after its parts were judged without it', 150],
  ])('%s', async (_when, maxHoldMillis) => {
    // Folded in this thread (workers: 0): the test's frozen clock reaches this thread only, not a worker's.
    const { gateway } = await startGateway({ maxHoldMillis }, 0);
    const { exporter, tracer } = rawPipeline();
    const inProcess = nestedRun(tracer);
    const parentSpan = exporter.spans.find((s) => s.name === 'invoke_agent planner')!;
    const parts = exporter.spans.filter((s) => s !== parentSpan);
    // The gateway's clock moves only when the test moves it: 400 ms pass between the parts and their run span.
    const clock = freezeDate();
    await send(parts);
    clock.advance(400);
    if (maxHoldMillis < 400) {
      await receivedAtLeast(parts.length);
    } else {
      // Past the decision wait, with release passes run at that time: the parts wait for their run span.
      const seen = clock.reads();
      await waitFor(() => clock.reads() >= seen + 5, { what: 'release passes past the decision wait' });
      expect(upstream!.received).toHaveLength(0);
    }
    await send([parentSpan]);
    await gateway.flush();
    const received = await receivedAtLeast(exporter.spans.length);
    const planner = received.find((s) => s.name === 'invoke_agent planner')?.attributes;
    expect(planner?.['incident.outcome']).toBeDefined();
    expect(
      planner?.['incident.outcome'] === 'success' && planner['incident.attempts'] === 0,
      'judged as an empty successful run',
    ).toBe(false);
    if (maxHoldMillis > 1_000) {
      // Held until its run span came: the verdict is the recorder's.
      expect(planner).toMatchObject({
        'incident.outcome': inProcess.outcome,
        'incident.attempts': 1,
        'incident.side_effects': 'unsafe',
        'incident.retry_safety': inProcess.retrySafety,
      });
    } else {
      expect(planner).toMatchObject({ 'incident.outcome': 'incomplete', 'incident.facts_complete': false });
      expect(planner?.['incident.missing_facts']).toContain('evidence_truncated');
    }
  });
});

describe('6. every span that leaves the gateway is sanitized, judged or not', () => {
  const SECRETS = [
    'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
  ];

  it('a run span already judged upstream keeps its verdict but not the secrets in its incident values, error.type and status message', async () => {
    const { gateway } = await startGateway();
    const pipeline = createPipeline({ sanitization: { mode: 'off' } });
    const run = pipeline.startRun();
    const attempt = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
    attempt.textOutput();
    attempt.fail(errors.socketDrop());
    run.end();
    const spans = pipeline.spans();
    const judged = spans.find((s) => s.name.startsWith('invoke_agent'))!;
    expect(judged.attributes['incident.outcome']).toBe('failed');
    const attributes = judged.attributes as Record<string, unknown>;
    attributes['incident.cause.detail'] = `socket_closed ${SECRETS[0]}`;
    attributes['error.type'] = `Bearer ${SECRETS[1]}`;
    (judged as { status: { code: number; message?: string } }).status = {
      code: 2,
      message: `upstream said ${SECRETS[2]}`,
    };
    await send(spans);
    await gateway.flush();
    const raw = Buffer.concat(upstream!.bodies).toString('latin1');
    for (const secret of SECRETS) expect(raw).not.toContain(secret);
    expect(runSpanOf(upstream!.received)?.attributes['incident.outcome']).toBe('failed');
  });
});

/**
 * What `run.callOptions` does to AI SDK 7's telemetry integrations. In 7 a
 * call's own `telemetry.integrations` replace the registered ones, so the
 * run must carry the registered ones over, and put its `@ai-sdk/otel`
 * integration in place of a registered `OpenTelemetry` (one set of SDK spans,
 * nested in the run), never beside it.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { LegacyOpenTelemetry, OpenTelemetry } from '@ai-sdk/otel';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from './otel-sdk.mjs';
import { IncidentSpanProcessor } from 'agent-incidents';
import { withAgentRun } from 'agent-incidents/ai-sdk';
import { reply, startFakeProvider } from 'agent-incidents/testing';
import { registerTelemetry, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({
  spanProcessors: [new IncidentSpanProcessor({ sweepIntervalMillis: 0 }), new SimpleSpanProcessor(exporter)],
});
/** A registered integration of the application's own (a logger, a cost meter). */
const registered = {
  starts: 0,
  ends: 0,
  onStart() {
    this.starts += 1;
  },
  onEnd() {
    this.ends += 1;
  },
};
let fake;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  registerTelemetry(new OpenTelemetry(), registered);
  fake = await startFakeProvider();
});

afterAll(async () => {
  await fake.close();
  await provider.shutdown();
  context.disable();
});

async function drain(result) {
  for await (const part of result.fullStream) void part;
}

it('keeps the registered integrations and records one set of SDK spans, nested in the run', async () => {
  exporter.reset();
  fake.enqueue(reply.text('Hello.'));
  const model = createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' }).chat('gpt-4o-mini');
  const { incident } = await withAgentRun({ agentName: 'coder' }, async (run) =>
    drain(streamText(run.callOptions({ model, prompt: 'Hi', maxRetries: 0 }))),
  );
  await provider.forceFlush();
  expect(incident.outcome).toBe('success');
  expect([registered.starts, registered.ends]).toEqual([1, 1]);
  const spans = exporter.getFinishedSpans();
  const run = spans.find((s) => s.name === 'invoke_agent coder');
  const roots = spans.filter((s) => s.attributes['agent_incidents.framework_call'] === true);
  // One SDK root (the registered OpenTelemetry was replaced, not doubled), a child of the run span.
  expect(roots).toHaveLength(1);
  expect(roots[0]?.parentSpanContext?.spanId).toBe(run?.spanContext().spanId);
  expect(spans.filter((s) => s.name.startsWith('chat '))).toHaveLength(1);
  expect(spans.filter((s) => s.attributes['incident.outcome'] !== undefined)).toEqual([run]);
});

it("keeps a call's own integrations instead of the registered ones, as AI SDK 7 does", async () => {
  exporter.reset();
  fake.enqueue(reply.text('Hello.'));
  const own = {
    starts: 0,
    onStart() {
      this.starts += 1;
    },
  };
  const before = registered.starts;
  const model = createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' }).chat('gpt-4o-mini');
  await withAgentRun({ agentName: 'coder' }, async (run) =>
    drain(
      streamText(
        run.callOptions({
          model,
          prompt: 'Hi',
          maxRetries: 0,
          telemetry: { integrations: [own], functionId: 'coder' },
        }),
      ),
    ),
  );
  expect(own.starts).toBe(1);
  expect(registered.starts).toBe(before);
});

it('keeps a LegacyOpenTelemetry (AI SDK 6-style spans) and adopts its tool span instead of adding one', async () => {
  exporter.reset();
  fake.enqueue(reply.toolCall('read_file', { path: 'README.md' }), reply.text('It says hello.'));
  const model = createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' }).chat('gpt-4o-mini');
  const tools = {
    read_file: tool({
      description: 'Reads a file',
      inputSchema: z.object({ path: z.string() }),
      execute: async () => 'hello',
    }),
  };
  const { incident } = await withAgentRun(
    { agentName: 'coder', toolSideEffects: { read_file: 'read_only' } },
    async (run) =>
      drain(
        streamText(
          run.callOptions({
            model,
            tools,
            prompt: 'Hi',
            maxRetries: 0,
            stopWhen: stepCountIs(3),
            telemetry: { integrations: [new LegacyOpenTelemetry({ tracer: provider.getTracer('ai') })] },
          }),
        ),
      ),
  );
  await provider.forceFlush();
  expect([incident.outcome, incident.sideEffects]).toEqual(['success', 'read_only']);
  const spans = exporter.getFinishedSpans();
  // The legacy tool span carries the class; no second tool span, no gen_ai spans beside the legacy ones.
  expect(
    spans.filter((s) => s.name === 'ai.toolCall').map((s) => s.attributes['agent_incidents.tool.side_effects']),
  ).toEqual(['read_only']);
  expect(spans.filter((s) => s.name.startsWith('execute_tool') || s.name.startsWith('invoke_agent gpt'))).toEqual([]);
  expect(spans.filter((s) => s.attributes['incident.outcome'] !== undefined).map((s) => s.name)).toEqual([
    'invoke_agent coder',
  ]);
  expect(spans.find((s) => s.name === 'invoke_agent coder')?.attributes['incident.side_effects']).toBe('read_only');
});

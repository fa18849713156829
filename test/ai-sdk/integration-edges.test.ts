/**
 * Edges of the AI SDK integration that the matrix does not reach: a call's
 * timer outliving the call, a call wrapped in the application's own span,
 * and the run's verdict staying the one exported.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { streamText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAgentRun } from '../../src/ai-sdk/index.js';
import { incidentAttributes } from '../../src/index.js';
import { reply, startFakeProvider } from '../../src/testing/fake-provider.js';
import { createPipeline } from '../support/harness.js';

const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  context.disable();
});

async function drain(result: { readonly fullStream: AsyncIterable<unknown> }): Promise<void> {
  for await (const part of result.fullStream) void part;
}

describe('the AI SDK integration', () => {
  it("does not fail a run when a finished call's total timeout fires later", async () => {
    const fake = await startFakeProvider();
    fake.enqueue(reply.text('Quick answer.'));
    const pipeline = createPipeline();
    const openai = createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' });
    const result = await withAgentRun({ tracer: pipeline.tracer }, async (run) => {
      // 500 ms: the call ends long before (on a loaded 2-core machine, 150 ms was not always enough).
      await drain(streamText(run.callOptions({ model: openai.chat('gpt-4o-mini'), prompt: 'Hi', timeout: 500, maxRetries: 0 })));
      // The run goes on past the finished call's timer (other work, another call).
      await new Promise((resolve) => setTimeout(resolve, 700));
    });
    await fake.close();
    expect(result.incident.outcome).toBe('success');
    expect(pipeline.runSpans()[0]?.attributes['incident.outcome']).toBe('success');
  });

  it("keeps a call wrapped in the application's own span part of the run, so one run is counted", async () => {
    const fake = await startFakeProvider();
    fake.enqueue(reply.script({ type: 'text', text: 'Half' }, { type: 'delay', ms: 20 }, { type: 'destroy' }));
    const pipeline = createPipeline();
    const openai = createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' });
    const result = await withAgentRun({ tracer: pipeline.tracer }, async (run) => {
      await pipeline.tracer.startActiveSpan('plan step', async (step) => {
        try {
          await drain(streamText(run.callOptions({ model: openai.chat('gpt-4o-mini'), prompt: 'Hi', maxRetries: 0, onError: () => undefined })));
        } finally {
          step.end();
        }
      });
    });
    await pipeline.provider.forceFlush();
    await fake.close();
    const judged = pipeline.spans().filter((s) => s.attributes['incident.outcome'] !== undefined);
    expect(judged.map((s) => s.name)).toEqual(['invoke_agent']);
    const own = incidentAttributes(result.incident);
    expect(Object.fromEntries(Object.keys(own).map((key) => [key, judged[0]?.attributes[key]]))).toEqual(own);
    expect(result.incident).toMatchObject({ cause: 'provider_transport_disconnect', phase: 'text_generation' });

  });
});

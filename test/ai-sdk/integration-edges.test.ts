/**
 * Edges of the AI SDK integration that the matrix does not reach: a call's
 * timer outliving the call, a call wrapped in the application's own span,
 * and the run's verdict staying the one exported.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { streamText } from 'ai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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
    // The SDK's total timeout is `AbortSignal.timeout(ms)`. The test holds that timer: it fires
    // when the call has certainly finished, however slow the machine (a real 150 ms timer could
    // fire while a loaded machine is still answering, which is another case).
    const TOTAL_MS = 150;
    const timer = new AbortController();
    const realTimeout = AbortSignal.timeout.bind(AbortSignal);
    const timeout = vi
      .spyOn(AbortSignal, 'timeout')
      .mockImplementation((ms) => (ms === TOTAL_MS ? timer.signal : realTimeout(ms)));
    try {
      const fake = await startFakeProvider();
      fake.enqueue(reply.text('Quick answer.'));
      const pipeline = createPipeline();
      const openai = createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' });
      const result = await withAgentRun({ tracer: pipeline.tracer }, async (run) => {
        await drain(
          streamText(
            run.callOptions({ model: openai.chat('gpt-4o-mini'), prompt: 'Hi', timeout: TOTAL_MS, maxRetries: 0 }),
          ),
        );
        expect(run.incident().outcome).toBe('success');
        // The run goes on past the finished call's timer (other work, another call): it fires now,
        // as the SDK's does (abort listeners run synchronously, so the run has seen it when this returns).
        timer.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
      });
      await fake.close();
      expect(timeout).toHaveBeenCalledWith(TOTAL_MS);
      expect(result.incident.outcome).toBe('success');
      expect(pipeline.runSpans()[0]?.attributes['incident.outcome']).toBe('success');
    } finally {
      timeout.mockRestore();
    }
  });

  it("keeps a call wrapped in the application's own span part of the run, so one run is counted", async () => {
    const fake = await startFakeProvider();
    fake.enqueue(reply.script({ type: 'text', text: 'Half' }, { type: 'delay', ms: 20 }, { type: 'destroy' }));
    const pipeline = createPipeline();
    const openai = createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' });
    const result = await withAgentRun({ tracer: pipeline.tracer }, async (run) => {
      await pipeline.tracer.startActiveSpan('plan step', async (step) => {
        try {
          await drain(
            streamText(
              run.callOptions({
                model: openai.chat('gpt-4o-mini'),
                prompt: 'Hi',
                maxRetries: 0,
                onError: () => undefined,
              }),
            ),
          );
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

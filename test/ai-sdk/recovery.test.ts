/**
 * Recovery around AI SDK calls: the SDK retries requests itself, so a task
 * strategy (fail-and-reassign) acts on the run `startAgentRun` records, before
 * the run ends, and the exported run span carries what it did.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { streamText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentRun } from '../../src/ai-sdk/index.js';
import { incidentAttributes } from '../../src/index.js';
import { createTask, failAndReassign, recoveryContext } from '../../src/recovery/index.js';
import { reply, startFakeProvider } from '../../src/testing/fake-provider.js';
import { createPipeline } from '../support/harness.js';

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => {
  context.disable();
});

describe('recovery around AI SDK calls', () => {
  it('503 twice (the SDK retried once) → failAndReassign reassigns, and the exported run says so', async () => {
    const fake = await startFakeProvider();
    const pipeline = createPipeline();
    try {
      fake.enqueue(reply.status(503, { 'retry-after': '0' }), reply.status(503, { 'retry-after': '0' }));
      const run = startAgentRun({ agentName: 'coder', tracer: pipeline.tracer });
      const model = createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' }).chat('gpt-4o-mini');
      await run.with(async () => {
        const result = streamText(run.callOptions({ model, prompt: 'hi', maxRetries: 1, onError: () => undefined }));
        for await (const part of result.fullStream) void part;
      });
      expect(run.incident()).toMatchObject({
        cause: 'provider_api_error',
        retrySafetyReason: 'retry_budget_exhausted',
        attempts: 2,
      });
      const action = await failAndReassign().recover(recoveryContext(run.recorder, createTask('ai-1', 'IN_PROGRESS')));
      expect(action).toMatchObject({ kind: 'reassign', reason: 'reassignable', task: { state: 'FAILED' } });
      const incident = run.end();
      await pipeline.provider.forceFlush();
      const exported = pipeline.runSpans()[0]!.attributes;
      expect(exported['incident.recovery.action']).toBe('reassign');
      const own = incidentAttributes(incident);
      expect(Object.fromEntries(Object.keys(own).map((k) => [k, exported[k]]))).toEqual(own);
    } finally {
      await fake.close();
    }
  });
});

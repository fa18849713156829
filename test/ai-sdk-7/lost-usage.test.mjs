/**
 * What a retried AI SDK 7 call lost (docs/attributes.md#lost-usage): the
 * AI SDK 7 twin of test/ai-sdk/lost-usage.test.ts, with the real `ai` 7,
 * `@ai-sdk/otel` and provider packages against the fake provider over real
 * sockets on 127.0.0.1, and agent-incidents from the packed package. The app
 * retries the call when its first attempt did not make the answer; the second
 * answers. The promises: the exported run span is `recovered` and carries the
 * first attempt's usage, as its `finish` part reported it (exact:
 * `lower_bound` false); a first attempt cut off before its usage came counts
 * as a floor (`lower_bound` true, never a silent zero); and the in-process
 * verdict (`Incident.lost`) is the one exported.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { IncidentSpanProcessor, incidentAttributes } from 'agent-incidents';
import { withAgentRun } from 'agent-incidents/ai-sdk';
import { reply, startFakeProvider } from 'agent-incidents/testing';
import { streamText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from './otel-sdk.mjs';

const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  context.disable();
});

function modelOf(fake, dialect) {
  if (dialect === 'anthropic') return createAnthropic({ baseURL: fake.baseURL, apiKey: 'test' })('claude-sonnet-4-5');
  const openai = createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' });
  return dialect === 'openai.chat' ? openai.chat('gpt-4o-mini') : openai('gpt-4o-mini');
}

/** The first answer's text, one delta (one output token on the fake provider) per piece. */
const PIECES = ['The ', 'README ', 'explains'];
const filtered = reply.script({ type: 'text', text: PIECES }, { type: 'finish', reason: 'content_filter' });
const dropped = reply.script({ type: 'text', text: PIECES }, { type: 'destroy' });
const DIALECTS = ['openai.chat', 'openai.responses', 'anthropic'];

/**
 * Plays the call as an app that retries it once when the first answer did not
 * finish with `stop` (or broke off); returns the run's verdict in-process and
 * as exported, and the input tokens the fake provider counted for the first
 * request.
 */
async function retried(dialect, first) {
  const fake = await startFakeProvider();
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new IncidentSpanProcessor({ sweepIntervalMillis: 0 }), new SimpleSpanProcessor(exporter)],
  });
  try {
    fake.enqueue(first, reply.text('The README explains the package.'));
    const model = modelOf(fake, dialect);
    const { incident } = await withAgentRun({ agentName: 'coder', tracer: provider.getTracer('test') }, async (run) => {
      for (let call = 0; call < 2; call += 1) {
        const result = streamText(
          run.callOptions({ model, prompt: 'Summarize README.md.', maxRetries: 0, onError: () => undefined }),
        );
        let finishReason;
        try {
          for await (const part of result.fullStream) if (part.type === 'finish') finishReason = part.finishReason;
        } catch {
          // A dropped stream throws from the iteration: the app retries.
        }
        if (finishReason === 'stop') return;
      }
    });
    await provider.forceFlush();
    const runs = exporter
      .getFinishedSpans()
      .filter((s) => s.attributes['incident.outcome'] !== undefined && s.parentSpanContext === undefined);
    expect(runs).toHaveLength(1);
    // The fake provider counts a request's input as its body's length / 4 (src/testing/fake-provider/server.ts).
    const firstInput = Math.max(1, Math.ceil(JSON.stringify(fake.requests[0].body).length / 4));
    return { incident, exported: runs[0].attributes, firstInput, requests: fake.requests.length };
  } finally {
    await provider.shutdown();
    await fake.close();
  }
}

/** The lost-usage keys of an attribute set. */
function lostKeys(attributes) {
  return Object.fromEntries(Object.entries(attributes).filter(([key]) => key.startsWith('incident.lost.')));
}

describe('a retried AI SDK 7 call says what its first attempt lost', () => {
  it.each(DIALECTS)(
    '%s: a content filter after streaming, then an answer → recovered, the first attempt’s tokens lost, exact',
    async (dialect) => {
      const { incident, exported, firstInput, requests } = await retried(dialect, filtered);
      expect(requests).toBe(2);
      expect(exported).toMatchObject({
        'incident.outcome': 'recovered',
        'incident.cause': 'provider_api_error',
        'incident.cause.detail': 'content_filter',
        'incident.lost.attempts': 1,
        'incident.lost.input_tokens': firstInput,
        'incident.lost.output_tokens': PIECES.length,
        'incident.lost.lower_bound': false,
      });
      expect(incident.lost).toMatchObject({
        attempts: 1,
        inputTokens: firstInput,
        outputTokens: PIECES.length,
        lowerBound: false,
      });
      expect(lostKeys(exported)).toEqual(lostKeys(incidentAttributes(incident)));
    },
  );

  it.each(DIALECTS)(
    '%s: the socket drops after some text, before any usage, then an answer → recovered, a lower bound',
    async (dialect) => {
      const { incident, exported, requests } = await retried(dialect, dropped);
      expect(requests).toBe(2);
      expect(exported).toMatchObject({
        'incident.outcome': 'recovered',
        'incident.cause': 'provider_transport_disconnect',
        'incident.lost.attempts': 1,
        'incident.lost.input_tokens': 0,
        'incident.lost.output_tokens': 0,
        'incident.lost.lower_bound': true,
      });
      expect(incident.lost).toEqual({ attempts: 1, inputTokens: 0, outputTokens: 0, lowerBound: true });
      expect(lostKeys(exported)).toEqual(lostKeys(incidentAttributes(incident)));
    },
  );
});

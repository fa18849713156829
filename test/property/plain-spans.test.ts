/**
 * Plain spans, as other instrumentations write them, read the same by every
 * edge: the processor in a tracer provider, the gateway over the same spans
 * sent without it (in any batches and order), and `report`. For the readings
 * the GenAI conventions' move asked for (issue 25): tries inside one span
 * (docs/conventions.md#retries-inside-one-span), finish reasons by meaning
 * (#finish-reasons-by-meaning), workflows and planning steps (#span-roles),
 * and an `error.type` that stays the instrumentation's
 * (docs/attributes.md#span-status-and-errortype); and what a run lost, read from
 * each convention's usage keys (docs/attributes.md#lost-usage).
 */
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { IncidentSpanProcessor } from '../../src/index.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { fromAttributes, rowFields, throughGateway, throughReport } from './edges.js';

const T0 = 1_700_000_000_000;

/** Writes spans with explicit times, parents and events: the same trace whichever provider it goes to. */
interface Writer {
  span(
    name: string,
    parent: Span | undefined,
    attributes: Attributes,
    start: number,
    options?: { scope?: string },
  ): Span;
  end(span: Span, at: number, status?: { code: 0 | 1 | 2; message?: string }): void;
  exception(span: Span, at: number, type: string, message: string): void;
  event(span: Span, at: number, name: string, attributes?: Attributes): void;
}

type Scenario = (w: Writer) => void;

function writer(tracerOf: (scope: string) => Tracer): Writer {
  return {
    span(name, parent, attributes, start, options = {}) {
      const context: Context = parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
      return tracerOf(options.scope ?? 'plain').startSpan(name, { attributes, startTime: T0 + start }, context);
    },
    end(span, at, status) {
      if (status) span.setStatus(status);
      span.end(T0 + at);
    },
    exception(span, at, type, message) {
      span.addEvent('exception', { 'exception.type': type, 'exception.message': message }, T0 + at);
    },
    event(span, at, name, attributes = {}) {
      span.addEvent(name, attributes, T0 + at);
    },
  };
}

function keeping(): { spans: ReadableSpan[]; processor: SpanProcessor } {
  const spans: ReadableSpan[] = [];
  const processor: SpanProcessor = {
    onStart() {},
    onEnd: (span) => spans.push(span),
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  return { spans, processor };
}

/** The verdicts of the scenario's run (its root span), from every edge. */
function everyEdge(scenario: Scenario, seed: number) {
  const judged = keeping();
  const withProcessor = new BasicTracerProvider({
    spanProcessors: [new IncidentSpanProcessor({ sweepIntervalMillis: 0 }), judged.processor],
  });
  scenario(writer((scope) => withProcessor.getTracer(scope)));
  const raw = keeping();
  const plain = new BasicTracerProvider({ spanProcessors: [raw.processor] });
  scenario(writer((scope) => plain.getTracer(scope)));
  const request = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(raw.spans))) as Parameters<
    typeof throughGateway
  >[0];
  const rawRun = decodeOtlpJsonSpans(request).find((s) => s.parentSpanId === undefined);
  const processorRun = judged.spans.find((s) => s.parentSpanContext === undefined);
  const gateway = throughGateway(request, seed).get(rawRun?.spanId ?? '');
  const row = throughReport(request, seed).find((r) => r.spanId === rawRun?.spanId);
  return {
    processor: {
      verdict: fromAttributes(processorRun?.attributes),
      errorType: processorRun?.attributes['error.type'],
      status: processorRun?.status.code,
    },
    gateway: { verdict: fromAttributes(gateway), errorType: gateway?.['error.type'] },
    report: rowFields(row),
  };
}

const chat = { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': '[]' };
const agent = { 'gen_ai.operation.name': 'invoke_agent' };

const SCENARIOS: readonly {
  readonly name: string;
  readonly scenario: Scenario;
  readonly want: Record<string, unknown>;
  readonly errorType?: string;
}[] = [
  {
    name: 'a chat span that recorded a 429 and then answered is a recovered run',
    scenario: (w) => {
      const run = w.span('invoke_agent support', undefined, agent, 0);
      const c = w.span(
        'chat gpt-4o',
        run,
        { ...chat, 'gen_ai.response.finish_reasons': ['stop'], 'gen_ai.usage.output_tokens': 9 },
        10,
      );
      w.exception(c, 30, 'openai.RateLimitError', "Error code: 429 - {'error': {'type': 'rate_limit_exceeded'}}");
      w.end(c, 80);
      w.end(run, 90);
    },
    want: {
      outcome: 'recovered',
      cause: 'provider_api_error',
      causeDetail: 'rate_limit',
      attempts: 2,
      recoveredAttempts: 1,
    },
  },
  {
    name: "AI SDK 7's generateText that ran out of retries inside one chat span counts every try",
    scenario: (w) => {
      const message = 'Failed after 3 attempts. Last error: AI_APICallError: Overloaded';
      const run = w.span('invoke_agent gpt-4o-mini', undefined, agent, 0, { scope: 'gen_ai' });
      const step = w.span('step 1', run, { 'gen_ai.operation.name': 'agent_step' }, 1, { scope: 'gen_ai' });
      const c = w.span('chat gpt-4o-mini', step, { ...chat, 'http.response.status_code': 529 }, 2, { scope: 'gen_ai' });
      for (const s of [c, step, run]) w.exception(s, 60, 'AI_RetryError', message);
      w.end(c, 60, { code: 2, message });
      w.end(step, 61, { code: 2, message });
      w.end(run, 62, { code: 2, message });
    },
    want: {
      outcome: 'failed',
      cause: 'provider_api_error',
      causeDetail: 'server_overload',
      attempts: 3,
      recoveredAttempts: 2,
      retrySafetyReason: 'retry_budget_exhausted',
    },
  },
  {
    name: 'a stream that ended without the provider’s finish after text is terminal_event_missing, never a success',
    scenario: (w) => {
      // As AI SDK 7 writes it: `interrupted` on the chat span and on the root.
      const run = w.span('invoke_agent gpt-4o-mini', undefined, agent, 0, { scope: 'gen_ai' });
      const c = w.span(
        'chat gpt-4o-mini',
        run,
        { ...chat, 'gen_ai.response.id': 'chatcmpl-1', 'gen_ai.client.operation.time_to_first_chunk': 0.02 },
        2,
        { scope: 'gen_ai' },
      );
      for (const s of [c, run]) s.setAttribute('gen_ai.response.finish_reasons', ['interrupted']);
      w.end(c, 50);
      w.end(run, 52);
    },
    want: {
      outcome: 'failed',
      cause: 'unknown_interruption',
      phase: 'text_generation',
      missingFacts: ['terminal_event_missing'],
    },
  },
  {
    name: 'a finish value no table knows is not a success',
    scenario: (w) => {
      const run = w.span('invoke_agent local', undefined, agent, 0);
      const c = w.span(
        'chat llama',
        run,
        {
          ...chat,
          'gen_ai.request.stream': true,
          'gen_ai.response.finish_reasons': ['eos_token'],
          'gen_ai.response.time_to_first_chunk': 0.01,
        },
        2,
      );
      w.end(c, 50);
      w.end(run, 52);
    },
    want: { outcome: 'failed', cause: 'unknown_interruption', missingFacts: ['terminal_event_missing'] },
  },
  {
    name: 'a content filter is a refusal that must not be retried',
    scenario: (w) => {
      const run = w.span('invoke_agent writer', undefined, agent, 0);
      const c = w.span('chat gpt-4o', run, { ...chat, 'gen_ai.response.finish_reasons': ['content_filter'] }, 2);
      w.end(c, 50);
      w.end(run, 52);
    },
    want: {
      outcome: 'failed',
      cause: 'provider_api_error',
      causeDetail: 'content_filter',
      retrySafety: 'do_not_retry',
    },
  },
  {
    name: 'a workflow is a run: its own LLM call that failed fails it',
    scenario: (w) => {
      const run = w.span('invoke_workflow crew', undefined, { 'gen_ai.operation.name': 'invoke_workflow' }, 0);
      const member = w.span('invoke_agent researcher', run, agent, 1);
      const c = w.span('chat gpt-4o', member, { ...chat, 'gen_ai.response.finish_reasons': ['stop'] }, 2);
      w.end(c, 20);
      w.end(member, 21);
      const manager = w.span('chat gpt-4o', run, { ...chat, 'http.response.status_code': 503 }, 30);
      w.end(manager, 40, { code: 2, message: 'Service Unavailable' });
      w.end(run, 50, { code: 2, message: 'Service Unavailable' });
    },
    want: { outcome: 'failed', cause: 'provider_api_error', causeDetail: 'server_overload', attempts: 1 },
  },
  {
    name: 'a failed planning call the agent went on from is a recovered attempt of the run',
    scenario: (w) => {
      const run = w.span('invoke_agent coder', undefined, agent, 0);
      const plan = w.span('plan coder', run, { 'gen_ai.operation.name': 'plan' }, 1);
      const planning = w.span('chat gpt-4o', plan, { ...chat, 'http.response.status_code': 429 }, 2);
      w.end(planning, 10, { code: 2, message: 'Too Many Requests' });
      w.end(plan, 11, { code: 2 });
      const c = w.span('chat gpt-4o', run, { ...chat, 'gen_ai.response.finish_reasons': ['stop'] }, 20);
      w.end(c, 40);
      w.end(run, 50);
    },
    want: {
      outcome: 'recovered',
      cause: 'provider_api_error',
      causeDetail: 'rate_limit',
      attempts: 2,
      recoveredAttempts: 1,
    },
  },
  {
    name: 'a failed run keeps the error.type its instrumentation set',
    errorType: 'rate_limit_error',
    scenario: (w) => {
      const run = w.span('invoke_agent billing', undefined, { ...agent, 'error.type': 'rate_limit_error' }, 0);
      const c = w.span(
        'chat claude',
        run,
        { ...chat, 'http.response.status_code': 429, 'error.type': 'rate_limit_error' },
        2,
      );
      w.end(c, 40, { code: 2, message: 'rate limited' });
      w.end(run, 50, { code: 2, message: 'rate limited' });
    },
    want: { outcome: 'failed', cause: 'provider_api_error', causeDetail: 'rate_limit' },
  },
  {
    name: 'a failed run with no error.type gets the cause',
    errorType: 'provider_api_error',
    scenario: (w) => {
      const run = w.span('invoke_agent plain', undefined, agent, 0);
      const c = w.span('chat claude', run, { ...chat, 'http.response.status_code': 500 }, 2);
      w.end(c, 40, { code: 2 });
      w.end(run, 50);
    },
    want: { outcome: 'failed', cause: 'provider_api_error' },
  },
  {
    name: 'a cancelled run is never ERROR, and keeps the error.type its instrumentation set',
    errorType: 'AbortError',
    scenario: (w) => {
      const run = w.span('invoke_agent chat-ui', undefined, { ...agent, 'error.type': 'AbortError' }, 0);
      const c = w.span('chat gpt-4o', run, { ...chat, 'gen_ai.request.stream': true }, 2);
      w.end(c, 40);
      w.event(run, 41, 'agent_incidents.user_cancel', { 'agent_incidents.cancel.origin': 'user_stop' });
      w.end(run, 50, { code: 2, message: 'AbortError' });
    },
    want: { outcome: 'cancelled', cause: 'user_cancel' },
  },
  {
    name: 'what a dropped stream had used is lost, a floor when its output never came; the retry that answered is not',
    scenario: (w) => {
      const run = w.span('invoke_agent support', undefined, agent, 0);
      const dropped = w.span(
        'chat gpt-4o',
        run,
        {
          ...chat,
          'gen_ai.request.stream': true,
          'gen_ai.response.time_to_first_chunk': 0.02,
          // Input reported at the stream's start; the output count never came.
          'gen_ai.usage.input_tokens': 1500,
        },
        2,
      );
      w.exception(dropped, 30, 'TypeError', 'terminated');
      w.end(dropped, 30, { code: 2, message: 'terminated' });
      const answer = w.span(
        'chat gpt-4o',
        run,
        {
          ...chat,
          'gen_ai.response.finish_reasons': ['stop'],
          'gen_ai.usage.input_tokens': 1600,
          'gen_ai.usage.output_tokens': 90,
        },
        40,
      );
      w.end(answer, 80);
      w.end(run, 90);
    },
    want: {
      outcome: 'recovered',
      lost: { attempts: 1, inputTokens: 1500, outputTokens: 0, lowerBound: true },
    },
  },
  {
    name: 'OpenInference token counts and cost of a failed LLM call are what the failed run lost',
    scenario: (w) => {
      const run = w.span('agent', undefined, { 'openinference.span.kind': 'AGENT' }, 0);
      const llm = w.span(
        'llm',
        run,
        {
          'openinference.span.kind': 'LLM',
          'llm.token_count.prompt': 700,
          'llm.token_count.completion': 20,
          'llm.token_count.prompt_details.cache_read': 512,
          'llm.cost.total': 0.0025,
        },
        2,
      );
      w.exception(llm, 30, 'openai.InternalServerError', 'Error code: 500');
      w.end(llm, 30, { code: 2, message: 'Error code: 500' });
      w.end(run, 31, { code: 2, message: 'Error code: 500' });
    },
    want: {
      outcome: 'failed',
      lost: {
        attempts: 1,
        inputTokens: 700,
        outputTokens: 20,
        cachedInputTokens: 512,
        costUsd: 0.0025,
        lowerBound: false,
      },
    },
  },
  {
    name: 'an AI SDK 6 attempt stopped by a content filter used tokens; the run that retried it lost them',
    scenario: (w) => {
      const ai = { 'ai.operationId': 'ai.streamText', 'operation.name': 'ai.streamText' };
      const run = w.span('ai.streamText', undefined, ai, 0, { scope: 'ai' });
      const doStream = { 'ai.operationId': 'ai.streamText.doStream', 'operation.name': 'ai.streamText.doStream' };
      const filtered = w.span(
        'ai.streamText.doStream',
        run,
        {
          ...doStream,
          'ai.response.finishReason': 'content-filter',
          'ai.usage.inputTokens': 300,
          'ai.usage.outputTokens': 12,
        },
        2,
        { scope: 'ai' },
      );
      w.end(filtered, 20);
      const answer = w.span(
        'ai.streamText.doStream',
        run,
        { ...doStream, 'ai.response.finishReason': 'stop', 'ai.usage.inputTokens': 320, 'ai.usage.outputTokens': 40 },
        30,
        { scope: 'ai' },
      );
      w.end(answer, 60);
      w.end(run, 61);
    },
    want: {
      outcome: 'recovered',
      cause: 'provider_api_error',
      causeDetail: 'content_filter',
      lost: { attempts: 1, inputTokens: 300, outputTokens: 12, lowerBound: false },
    },
  },
];

describe('plain spans: every edge reads them the same', () => {
  it.each(SCENARIOS.map((s, i) => [s.name, s, i] as const))('%s', (_name, { scenario, want, errorType }, i) => {
    const edges = everyEdge(scenario, 1000 + i);
    expect(edges.processor.verdict).toMatchObject(want);
    expect(edges.gateway.verdict, 'gateway = processor').toEqual(edges.processor.verdict);
    expect(edges.report, 'report = processor').toEqual(rowFields(edges.processor.verdict));
    if (errorType !== undefined) {
      expect(edges.processor.errorType).toBe(errorType);
      expect(edges.gateway.errorType, 'gateway error.type = processor').toBe(errorType);
    }
    if (want.outcome === 'cancelled') expect(edges.processor.status).not.toBe(2);
  });
});

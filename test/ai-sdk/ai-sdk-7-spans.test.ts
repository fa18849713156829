/**
 * How AI SDK 7's `@ai-sdk/otel` spans are read (Node 20 has no AI SDK 7: the
 * spans are built here in the shapes test/ai-sdk-7 sees from the real SDK on
 * Node 22): the root the integration marks is part of its run, and plain
 * spans never read as a success or an API error they were not.
 */
import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { FRAMEWORK_CALL } from '../../src/conventions/gen-ai.js';
import type { ExtractContext, SpanView } from '../../src/conventions/index.js';
import { ADAPTERS } from '../../src/conventions/index.js';
import { createPipeline } from '../support/harness.js';

const genAi = ADAPTERS[0]!;

function view(overrides: Partial<SpanView>): SpanView {
  return {
    spanId: 's1',
    name: 'chat',
    startMillis: 1000,
    endMillis: 2000,
    attributes: {},
    events: [],
    links: [],
    statusCode: 0,
    scopeName: 'gen_ai',
    ...overrides,
  };
}

function context(overrides: Partial<ExtractContext> = {}): ExtractContext {
  return { attempt: 's1', truncated: false, trustedReadOnlyTools: [], attemptKeyOf: () => undefined, ...overrides };
}

const ROOT = { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.request.model': 'gpt-4o-mini' };

describe('AI SDK 7 spans', () => {
  it('reads the root the integration marked as a framework call, and any other invoke_agent as a run', () => {
    expect(genAi.role({ name: 'invoke_agent gpt-4o-mini', attributes: { ...ROOT, [FRAMEWORK_CALL]: true } })).toBe(
      'call',
    );
    expect(genAi.role({ name: 'invoke_agent gpt-4o-mini', attributes: ROOT })).toBe('run');
  });

  it('never calls an error after a 200 an API error: the body broke, and the span does not say how', () => {
    const failed = view({
      attributes: { 'gen_ai.operation.name': 'chat', 'http.response.status_code': 200 },
      statusCode: 2,
      statusMessage: 'Failed to process successful response',
      events: [
        {
          name: 'exception',
          timeMillis: 2000,
          attributes: {
            'exception.type': 'AI_APICallError',
            'exception.message': 'Failed to process successful response',
          },
        },
      ],
    });
    const facts = genAi.extract(failed, 'attempt', context()).facts;
    expect(facts.find((f) => f.kind === 'provider_error')).toMatchObject({ error: { kind: 'unknown' } });
    // A real rejection keeps its status: 503 is still an API error.
    const rejected = {
      ...failed,
      attributes: { ...failed.attributes, 'http.response.status_code': 503 },
      statusMessage: 'Service Unavailable',
      events: [],
    };
    expect(genAi.extract(rejected, 'attempt', context()).facts.find((f) => f.kind === 'provider_error')).toMatchObject({
      error: { kind: 'api' },
    });
  });

  it('never reads a root that ended with no finish reason as a success: AI SDK 7 ends an aborted call that way', () => {
    expect(genAi.extract(view({ name: 'invoke_agent', attributes: ROOT }), 'run', context()).statusError).toEqual({
      kind: 'unknown',
    });
    const finished = view({
      name: 'invoke_agent',
      attributes: { ...ROOT, 'gen_ai.response.finish_reasons': ['stop'] },
    });
    expect(genAi.extract(finished, 'run', context()).statusError).toBeUndefined();
    // Only for the instrumentation known to record every finish, and not for a root whose run records why natively.
    expect(
      genAi.extract(view({ name: 'invoke_agent', attributes: ROOT, scopeName: 'other' }), 'run', context()).statusError,
    ).toBeUndefined();
    expect(
      genAi.extract(view({ name: 'invoke_agent', attributes: { ...ROOT, [FRAMEWORK_CALL]: true } }), 'call', context())
        .statusError,
    ).toBeUndefined();
  });

  it('reads a tool span ended without its duration as interrupted, with it as completed', () => {
    const tool = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'run_shell' };
    const kinds = (attributes: Record<string, unknown>, scopeName = 'gen_ai') =>
      genAi
        .extract(view({ name: 'execute_tool run_shell', attributes, scopeName }), 'tool', context())
        .facts.map((f) => f.kind);
    expect(kinds(tool)).toEqual(['tool_execution_started', 'tool_execution_interrupted']);
    expect(kinds({ ...tool, 'gen_ai.execute_tool.duration': 0.2 })).toEqual([
      'tool_execution_started',
      'tool_execution_completed',
    ]);
    expect(kinds(tool, 'other')).toEqual(['tool_execution_started', 'tool_execution_completed']);
  });

  it('judges one run when the marked SDK root sits inside the run span, with its attempt counted', async () => {
    for (const marked of [true, false]) {
      const pipeline = createPipeline();
      const run = pipeline.startRun();
      const root = pipeline.tracer.startSpan(
        'invoke_agent gpt-4o-mini',
        { attributes: { ...ROOT, ...(marked ? { [FRAMEWORK_CALL]: true } : {}) } },
        run.context,
      );
      const chat = pipeline.tracer.startSpan(
        'chat gpt-4o-mini',
        { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.response.finish_reasons': ['stop'] } },
        trace.setSpan(run.context, root),
      );
      chat.end();
      root.end();
      run.end();
      await pipeline.provider.forceFlush();
      const judged = pipeline.spans().filter((s) => s.attributes['incident.outcome'] !== undefined);
      if (marked) {
        expect(judged).toHaveLength(1);
        expect(judged[0]?.attributes['incident.attempts']).toBe(1);
      } else {
        // Unmarked, it is a sub-agent with a verdict of its own.
        expect(judged).toHaveLength(2);
      }
    }
  });
});

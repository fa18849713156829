/**
 * OpenTelemetry JS 3 keeps any `AnyValue` as a span attribute (API 1.10): maps,
 * bytes, mixed arrays, null. Through the real 3.x SDK, the processor still
 * judges the run and sanitizes inside every such value (docs/compatibility.md).
 * Runs on the 3.x line only (test/otel-3/run.sh).
 */
import type { Attributes } from '@opentelemetry/api';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { IncidentSpanProcessor } from '../../src/index.js';

/**
 * Attributes of any value. The run (test/otel-3/run.sh) is on API 1.10, whose `Attributes` take any value;
 * the root's typecheck reads this file with its own API 1.9 types, which do not: hence the cast.
 */
const anyValues = (attributes: Record<string, unknown>): Attributes => attributes as Attributes;

const SECRET = 'sk-proj-Q7vX2mLp9RtY4wZc8NbK3hJfDs6GaE1u';

function pipeline() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({
    spanProcessors: [new IncidentSpanProcessor({ sweepIntervalMillis: 0 }), new SimpleSpanProcessor({ exporter })],
  });
  return { exporter, tracer: provider.getTracer('any-value') };
}

describe('AnyValue attributes on OpenTelemetry JS 3', () => {
  it('is the 3.x SDK: a map set as an attribute is kept as a map', () => {
    const { exporter, tracer } = pipeline();
    tracer.startSpan('plain', { attributes: anyValues({ 'app.map': { a: 1 } }) }).end();
    expect(exporter.getFinishedSpans()[0]?.attributes['app.map']).toEqual({ a: 1 });
  });

  it('judges a run whose spans carry maps, bytes, mixed arrays and null, and sanitizes inside each', () => {
    const { exporter, tracer } = pipeline();
    const run = tracer.startSpan('invoke_agent coder', {
      attributes: anyValues({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'coder',
        'app.config': { endpoint: 'https://api.example.com', token: SECRET },
      }),
    });
    const chat = tracer.startSpan(
      'chat gpt-5-mini',
      {
        attributes: anyValues({
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': 'gpt-5-mini',
          // Values of the wrong shape where the conventions expect strings: not facts, and no crash.
          'gen_ai.response.finish_reasons': { reason: 'stop' },
          'app.request.headers': { authorization: `Bearer ${SECRET}`, accept: 'text/event-stream' },
          'app.body': new TextEncoder().encode(`{"api_key":"${SECRET}"}`),
          'app.mixed': ['x', 1, true, null, { nested: `key=${SECRET}` }],
          'app.nothing': null,
        }),
      },
      trace.setSpan(context.active(), run),
    );
    chat.recordException(
      Object.assign(new TypeError('terminated'), {
        cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
      }),
    );
    chat.setStatus({ code: SpanStatusCode.ERROR, message: 'terminated' });
    chat.end();
    run.end();

    const spans = exporter.getFinishedSpans();
    const runSpan = spans.find((span) => span.name === 'invoke_agent coder');
    expect(runSpan?.attributes['incident.outcome']).toBe('failed');
    expect(runSpan?.attributes['incident.cause']).toBe('provider_transport_disconnect');
    const exported = JSON.stringify(
      spans.map((span) => span.attributes),
      (_key, value: unknown) => (value instanceof Uint8Array ? new TextDecoder().decode(value) : value),
    );
    expect(exported).not.toContain(SECRET);
    const chatAttributes = spans.find((span) => span.name.startsWith('chat'))?.attributes ?? {};
    // Still the shapes they were: a map, bytes, an array with its non-text items as they were.
    expect(chatAttributes['app.request.headers']).toMatchObject({ accept: 'text/event-stream' });
    expect(chatAttributes['app.body']).toBeInstanceOf(Uint8Array);
    expect((chatAttributes['app.mixed'] as unknown[]).slice(0, 4)).toEqual(['x', 1, true, null]);
    expect(chatAttributes['app.nothing']).toBeNull();
  });
});

/**
 * Property: whatever span trees an app produces, across every supported
 * convention, no generated secret reaches the exporter through the SDK
 * processor. Each case builds a random trace with secrets of every covered
 * format placed anywhere a span holds text (test/support/span-plans.ts), ends
 * it through the processor, serializes the exported batch as OTLP/JSON and
 * searches the bytes. 50,000 cases by default; `npm run fuzz:sanitize` runs a
 * million (PROPERTY_RUNS).
 */
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeepingExporter } from '../support/keeping-exporter.js';
import { IncidentSpanProcessor } from '../../src/index.js';
import { play, secretsOf, spanPlan } from '../support/span-plans.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 50_000);
const exporter = new KeepingExporter();
const provider = new BasicTracerProvider({
  spanProcessors: [new IncidentSpanProcessor({ sweepIntervalMillis: 0 }), new SimpleSpanProcessor(exporter)],
});
const tracer = provider.getTracer('property');

describe('no secret leaves the process', () => {
  it(`keeps every generated secret out of the OTLP/JSON export of random span trees (${RUNS.toLocaleString('en')} cases)`, async () => {
    const decoder = new TextDecoder();
    let done = 0;
    await fc.assert(
      fc.asyncProperty(spanPlan, async (plan) => {
        exporter.spans.length = 0;
        play(tracer, plan, undefined, undefined);
        const json = decoder.decode(JsonTraceSerializer.serializeRequest(exporter.spans));
        for (const secret of secretsOf(plan)) {
          if (json.includes(secret)) throw new Error(`secret ${JSON.stringify(secret)} was exported`);
        }
        // Yield now and then: a million synchronous cases would starve the test runner's own messages.
        if (++done % 1000 === 0) await new Promise((resolve) => setImmediate(resolve));
      }),
      { numRuns: RUNS, seed: Number(process.env.PROPERTY_SEED ?? 20261122) },
    );
    expect(exporter.spans.length).toBeGreaterThan(0);
  }, 3_600_000);
});

/**
 * The suite runs on the OpenTelemetry JS line run.sh installed (OTEL_LINE), and
 * on line 3 it is the app of the issue: API 1.10 and sdk-trace 3 for the app and
 * agent-incidents, while @ai-sdk/otel keeps the API 1.9.1 it pins, in one
 * process. A span @ai-sdk/otel's own API copy starts reaches the provider the
 * app registered with its copy, and gets its verdict.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { trace } from '@opentelemetry/api';
import { IncidentSpanProcessor } from 'agent-incidents';
import { afterAll, expect, it } from 'vitest';
import {
  API_VERSION,
  BasicTracerProvider,
  InMemorySpanExporter,
  OTEL_LINE,
  packageDir,
  SimpleSpanProcessor,
  versionOf,
} from './otel-sdk.mjs';

/** @ai-sdk/otel's view of the API: the copy it resolves from where it is installed. */
const aiSdkOtelDir = packageDir('@ai-sdk/otel');
const theirApiVersion = versionOf('@opentelemetry/api', aiSdkOtelDir);
const aiSdkOtel = createRequire(join(aiSdkOtelDir, 'package.json'));

afterAll(() => trace.disable());

it('runs on the OpenTelemetry JS line it was installed for', () => {
  expect(OTEL_LINE).toBe(process.env.OTEL_LINE ?? '2');
  if (OTEL_LINE === '3') {
    expect(API_VERSION).toMatch(/^1\.10\./);
    // Two API copies in one process: @ai-sdk/otel pins 1.9.1 as its own dependency.
    expect(theirApiVersion).toBe('1.9.1');
  } else {
    expect(API_VERSION).toMatch(/^1\.9\./);
  }
});

it("judges a run started through @ai-sdk/otel's own API copy on the provider the app registered", async () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new IncidentSpanProcessor({ sweepIntervalMillis: 0 }), new SimpleSpanProcessor(exporter)],
  });
  expect(trace.setGlobalTracerProvider(provider)).toBe(true);
  const loaded = await import(aiSdkOtel.resolve('@opentelemetry/api'));
  // The 1.9.1 copy is CommonJS: its `trace` is a named export where Node detects it, else on the default export.
  const theirs = loaded.trace ? loaded : loaded.default;
  // Line 3: two copies (1.9.1 beside 1.10); line 2: npm gives @ai-sdk/otel the app's own 1.9.1.
  if (OTEL_LINE === '3') expect(theirs).not.toBe(await import('@opentelemetry/api'));
  theirs.trace
    .getTracer('through-their-api')
    .startSpan('invoke_agent coder', {
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'coder' },
    })
    .end();
  const [span] = exporter.getFinishedSpans();
  expect(span?.name).toBe('invoke_agent coder');
  expect(span?.attributes['incident.outcome']).toBe('success');
});

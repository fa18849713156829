/**
 * `agent-incidents demo`: plays a simulated fleet through a real tracer
 * provider and the IncidentSpanProcessor, writes OTLP/JSON (one
 * ExportTraceServiceRequest per trace, one per line) and returns the runs.
 */
import { writeFile } from 'node:fs/promises';
import type { ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { RunRow } from '../report/otlp-json.js';
import { runRowsFromOtlpJsonLines } from '../report/otlp-json.js';
import { RunRecorder } from '../runtime/run-recorder.js';
import { IncidentSpanProcessor } from '../sdk/incident-span-processor.js';
import { playFleet } from './fleet.js';
import { KeepingExporter } from './keeping-exporter.js';

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** Runs to simulate. @default 200 */
  readonly runs: number;
  /** Seed of the fleet's random choices. @default 1 */
  readonly seed: number;
  /** OTLP/JSON lines file to write. @default 'incidents.otlp.jsonl' */
  readonly out: string;
  /** Also export to this OTLP/HTTP traces endpoint (e.g. http://127.0.0.1:4318/v1/traces). */
  readonly otlpEndpoint?: string;
}

/** What the demo produced. */
export interface DemoResult {
  readonly rows: RunRow[];
  readonly spans: number;
  readonly traces: number;
  /** Set when the OTLP endpoint refused or could not be reached. */
  readonly otlpError?: string;
}

/** Wraps an exporter to remember its first failure, so the CLI can say so. */
class WatchedExporter implements SpanExporter {
  error: string | undefined;
  constructor(private readonly inner: SpanExporter) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== 0) this.error ??= result.error?.message ?? 'export failed';
      done(result);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** One OTLP/JSON ExportTraceServiceRequest per trace, in first-seen order. */
export function otlpJsonLinesByTrace(spans: readonly ReadableSpan[]): string[] {
  const byTrace = new Map<string, ReadableSpan[]>();
  for (const span of spans) {
    const traceId = span.spanContext().traceId;
    const group = byTrace.get(traceId) ?? [];
    group.push(span);
    byTrace.set(traceId, group);
  }
  const decoder = new TextDecoder();
  return [...byTrace.values()].map((group) => decoder.decode(JsonTraceSerializer.serializeRequest(group)));
}

const PROVIDERS = [
  { providerName: 'openai', model: 'gpt-5-mini' },
  { providerName: 'anthropic', model: 'claude-sonnet-4-5' },
];

/** Runs the demo fleet and writes `options.out`. */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const keeping = new KeepingExporter();
  const processors: SpanProcessor[] = [new IncidentSpanProcessor({ sweepIntervalMillis: 0 }), new SimpleSpanProcessor(keeping)];
  const otlp = options.otlpEndpoint ? new WatchedExporter(new OTLPTraceExporter({ url: options.otlpEndpoint })) : undefined;
  if (otlp) processors.push(new BatchSpanProcessor(otlp));
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'agent-incidents-demo' }),
    spanProcessors: processors,
  });
  const tracer = provider.getTracer('agent-incidents-demo');
  let index = 0;
  playFleet({
    runs: options.runs,
    seed: options.seed,
    startRun: () => {
      const { providerName, model } = PROVIDERS[index++ % PROVIDERS.length]!;
      return RunRecorder.start({ tracer, agentName: 'demo-agent', providerName, model });
    },
  });
  // Shutdown finalizes the runs that never ended (crashed agents) and flushes
  // exports. An unreachable collector must not cost the user the local file.
  let shutdownError: string | undefined;
  try {
    await provider.shutdown();
  } catch (error) {
    shutdownError = error instanceof Error ? error.message : String(error);
  }
  const lines = otlpJsonLinesByTrace(keeping.spans);
  const text = lines.join('\n') + '\n';
  await writeFile(options.out, text);
  return { rows: runRowsFromOtlpJsonLines(text), spans: keeping.spans.length, traces: lines.length, otlpError: otlp?.error ?? shutdownError };
}

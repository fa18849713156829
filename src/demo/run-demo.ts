/**
 * `agent-incidents demo`: plays a simulated fleet through a real tracer
 * provider and the IncidentSpanProcessor, writes OTLP/JSON (one
 * ExportTraceServiceRequest per trace, one per line) as each trace finishes,
 * and builds the report of what it wrote as it goes: memory stays flat
 * however many runs are asked for.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { ReportBuilder } from '../report/report-builder.js';
import type { IncidentReport } from '../report/report-model.js';
import { RunRecorder } from '../runtime/run-recorder.js';
import { IncidentSpanProcessor } from '../sdk/incident-span-processor.js';
import type { DemoModel } from './conversation.js';
import type { FleetRun } from './fleet.js';
import { FleetPlayer } from './fleet.js';
import { OtlpJsonPoster } from './otlp-json-poster.js';
import { TraceLines } from './trace-lines.js';
import type { TracingSdk } from './tracing-sdk.js';
import { loadTracingSdk } from './tracing-sdk.js';

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
  /** Called after each slice of runs with the runs played so far (for a progress bar). @default none */
  readonly onProgress?: (played: number) => void;
}

/** What the demo produced. */
export interface DemoResult {
  /** The report of the file written, as `agent-incidents report` would give it. */
  readonly report: IncidentReport;
  readonly spans: number;
  readonly traces: number;
  /** The tracing SDK package the fleet played through. */
  readonly sdkPackage: string;
  /** Set when the OTLP endpoint refused or could not be reached. */
  readonly otlpError?: string;
}

/** Runs between yields to the event loop: lets the OTLP exporter send and keeps the SDK's pending work short. */
const SLICE = 100;
/** Bytes buffered before a write. */
const WRITE_BUFFER = 1 << 20;

/**
 * Runs the demo fleet and writes `options.out`, a trace at a time.
 * @throws TracingSdkMissingError when no OpenTelemetry tracing SDK is installed (before the file is opened)
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const sdk = await loadTracingSdk();
  const fd = openSync(options.out, 'w');
  try {
    return await playInto(fd, options, sdk);
  } finally {
    closeSync(fd);
  }
}

async function playInto(fd: number, options: DemoOptions, sdk: TracingSdk): Promise<DemoResult> {
  const builder = new ReportBuilder();
  let buffered: string[] = [];
  let bufferedBytes = 0;
  const drain = (): void => {
    if (buffered.length === 0) return;
    writeSync(fd, buffered.join(''));
    buffered = [];
    bufferedBytes = 0;
  };
  const otlp = options.otlpEndpoint ? new OtlpJsonPoster(options.otlpEndpoint) : undefined;
  const lines = new TraceLines((line, spans) => {
    builder.addLine(line);
    buffered.push(line, '\n');
    bufferedBytes += line.length + 1;
    if (bufferedBytes >= WRITE_BUFFER) drain();
    otlp?.add(spans);
  }, 'agent-incidents-demo');
  const provider = sdk.createProvider([new IncidentSpanProcessor({ sweepIntervalMillis: 0 }), lines]);
  const tracer = provider.getTracer('agent-incidents-demo');
  const startRun = (_kind: FleetRun, { providerName, model }: DemoModel) =>
    RunRecorder.start({ tracer, agentName: 'demo-agent', providerName, model });
  const fleet = new FleetPlayer(options.seed);
  while (fleet.played < options.runs) {
    fleet.play(Math.min(SLICE, options.runs - fleet.played), startRun);
    options.onProgress?.(fleet.played);
    await new Promise((resolve) => setImmediate(resolve));
    await otlp?.ready();
  }
  // Shutdown finalizes the runs that never ended (crashed agents) and flushes
  // exports. An unreachable collector must not cost the user the local file.
  let shutdownError: string | undefined;
  try {
    await provider.shutdown();
  } catch (error) {
    shutdownError = error instanceof Error ? error.message : String(error);
  }
  lines.flush();
  drain();
  await otlp?.flush();
  const report = builder.finish();
  return {
    report,
    spans: lines.spans,
    traces: report.input.traces,
    sdkPackage: sdk.packageName,
    otlpError: otlp?.error ?? shutdownError,
  };
}

/**
 * Real OTLP/JSON lines for `report` tests: runs recorded by RunRecorder on a
 * real tracer provider, exported without the processor (raw spans), as the
 * processor exports them, or as the gateway forwards them (its judge and its
 * JSON encoder), and the recorded trace fixtures, one request per line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { KeepingExporter } from '../support/keeping-exporter.js';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import { judgeTrace } from '../../src/gateway/judge-trace.js';
import { ReleasedRuns } from '../../src/gateway/released-runs.js';
import { ResourceCache } from '../../src/gateway/resource-cache.js';
import { IncidentSpanProcessor, RunRecorder } from '../../src/index.js';
import { encodeTraceRequestJson } from '../../src/otlp/otlp-encode.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { createSanitizer } from '../../src/sanitize/sanitizer.js';
import { LOCAL_TOOLS, steppingClock } from '../support/harness.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'traces');

/** Every recorded trace fixture (exported by the libraries themselves, no processor), one compact request per line. */
export function fixtureLines(): string[] {
  return readdirSync(FIXTURES, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(join(FIXTURES, d.name))
        .filter((f) => f.endsWith('.otlp.json'))
        .sort()
        .map((f) => JSON.stringify(JSON.parse(readFileSync(join(FIXTURES, d.name, f), 'utf8')))),
    );
}

type Recorder = ReturnType<typeof RunRecorder.start>;

/** The spans of one run recorded by `build`; with `processor` they carry its verdicts, without it they are raw. */
export async function recordRun(
  build: (run: Recorder) => void | 'leave_open',
  options: { processor?: boolean; service?: string } = {},
): Promise<ReadableSpan[]> {
  const exporter = new KeepingExporter();
  const spanProcessors = options.processor
    ? [new IncidentSpanProcessor({ sweepIntervalMillis: 0 }), new SimpleSpanProcessor(exporter)]
    : [new SimpleSpanProcessor(exporter)];
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.service ?? 'report-test' }),
    spanProcessors,
  });
  const run = RunRecorder.start({
    tracer: provider.getTracer('test'),
    agentName: 'test-agent',
    providerName: 'openai',
    model: 'gpt-test',
    clock: steppingClock(),
  });
  if (build(run) !== 'leave_open') run.end();
  await provider.shutdown();
  return exporter.spans;
}

/** One OTLP/JSON line of `spans`, as an SDK exporter writes it. */
export function lineOf(spans: readonly ReadableSpan[]): string {
  return new TextDecoder().decode(JsonTraceSerializer.serializeRequest([...spans]));
}

/** A gateway's judge, its memory of judged runs kept across calls (as one gateway process keeps it). */
export function gateway() {
  const sanitizer = createSanitizer();
  const options = {
    policy: DEFAULT_POLICY,
    sanitizer,
    resources: new ResourceCache(sanitizer),
    released: new ReleasedRuns(600_000),
  };
  /** What the gateway forwards for `spans` received in one fold, as one OTLP/JSON line. */
  return (spans: readonly ReadableSpan[]): string => {
    const decoded = decodeOtlpJsonSpans(JSON.parse(lineOf(spans)));
    return new TextDecoder().decode(encodeTraceRequestJson(judgeTrace(decoded, options, Date.now()).spans));
  };
}

/** A run that reads a file, then answers: a success. */
export function readsThenAnswers(run: Recorder): void {
  const a = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
  a.toolCallMaterialized({ name: 'read', sideEffects: 'read_only' });
  run.startTool({ name: 'read', sideEffects: 'read_only', attempt: a }).complete();
  a.finish({ finishReasons: ['tool-calls'] });
  const b = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
  b.textOutput();
  b.finish({ finishReasons: ['stop'] });
}

/** A run whose stream drops mid-answer after an unsafe tool ran: failed. */
export function dropsAfterBash(run: Recorder): void {
  const a = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
  a.toolCallMaterialized({ name: 'bash', sideEffects: 'unsafe' });
  run.startTool({ name: 'bash', sideEffects: 'unsafe', attempt: a }).complete();
  a.finish({ finishReasons: ['tool-calls'] });
  const b = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
  b.textOutput();
  const cause = Object.assign(new Error('other side closed'), { name: 'SocketError', code: 'UND_ERR_SOCKET' });
  b.fail(new TypeError('terminated', { cause }));
}

/** True for a run span (`invoke_agent`). */
export function isRunSpan(span: ReadableSpan): boolean {
  return span.attributes['gen_ai.operation.name'] === 'invoke_agent';
}

/**
 * {@link dropsAfterBash} with usage: the first attempt reports 1,200 input and 80 output tokens ($0.004); the
 * dropped one 1,500 input tokens, and with `whole` also 40 output tokens ($0.006), else nothing more (its stream
 * was cut before the rest came: the run's figures are a floor).
 */
export function dropsAfterBashUsing(whole: boolean): (run: Recorder) => void {
  return (run) => {
    const a = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
    a.toolCallMaterialized({ name: 'bash', sideEffects: 'unsafe' });
    run.startTool({ name: 'bash', sideEffects: 'unsafe', attempt: a }).complete();
    a.finish({ finishReasons: ['tool-calls'], usage: { inputTokens: 1200, outputTokens: 80, costUsd: 0.004 } });
    const b = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
    b.usage(whole ? { inputTokens: 1500, outputTokens: 40, costUsd: 0.006 } : { inputTokens: 1500 });
    b.textOutput();
    const cause = Object.assign(new Error('other side closed'), { name: 'SocketError', code: 'UND_ERR_SOCKET' });
    b.fail(new TypeError('terminated', { cause }));
  };
}

/**
 * Drives runs through RunRecorder → a real tracer provider →
 * IncidentSpanProcessor → an in-memory exporter, with a deterministic clock.
 */
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { KeepingExporter } from '../support/keeping-exporter.js';
import type { IncidentSpanProcessorOptions } from '../../src/index.js';
import { IncidentSpanProcessor, RunRecorder } from '../../src/index.js';
import type { RunRecorderOptions } from '../../src/runtime/run-recorder.js';

/** A clock that advances one millisecond per reading, from a fixed epoch. */
export function steppingClock(start = Date.now()): (() => number) & { advance(ms: number): void; peek(): number } {
  let now = start;
  const clock = () => {
    now += 1;
    return now;
  };
  return Object.assign(clock, {
    advance: (ms: number) => {
      now += ms;
    },
    peek: () => now,
  });
}

/** A provider wired as users wire it, exporting into memory; `observers` run after the exporter. */
export function createPipeline(options: IncidentSpanProcessorOptions = {}, observers: readonly SpanProcessor[] = []) {
  const exporter = new KeepingExporter();
  const processor = new IncidentSpanProcessor({ sweepIntervalMillis: 0, ...options });
  const provider = new BasicTracerProvider({
    spanProcessors: [processor, new SimpleSpanProcessor(exporter), ...observers],
  });
  const tracer = provider.getTracer('test');
  const clock = steppingClock();
  return {
    exporter,
    processor,
    provider,
    tracer,
    clock,
    /** Starts a run on this pipeline's tracer and clock. */
    startRun(options: Omit<RunRecorderOptions, 'tracer' | 'clock'> = {}): RunRecorder {
      return RunRecorder.start({
        agentName: 'test-agent',
        providerName: 'openai',
        model: 'gpt-test',
        ...options,
        tracer,
        clock,
      });
    },
    spans(): ReadableSpan[] {
      return exporter.spans;
    },
    /** The exported run spans (`invoke_agent`). */
    runSpans(): ReadableSpan[] {
      return exporter.spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'invoke_agent');
    },
  };
}

/** Error shapes as undici, the AI SDK and providers produce them. */
export const errors = {
  /** undici's mid-stream socket drop: `TypeError: terminated` caused by `UND_ERR_SOCKET`. */
  socketDrop(): Error {
    const cause = Object.assign(new Error('other side closed'), { name: 'SocketError', code: 'UND_ERR_SOCKET' });
    return new TypeError('terminated', { cause });
  },
  http(status: number, message: string, extra: Record<string, unknown> = {}): Error {
    return Object.assign(new Error(message), { name: 'AI_APICallError', statusCode: status, ...extra });
  },
  /** A provider `error` stream chunk (Anthropic shape). */
  overloadedChunk(): unknown {
    return { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
  },
};

/** The tools of the default, complete side-effect boundary. */
export const LOCAL_TOOLS = [
  { name: 'read', sideEffects: 'read_only' as const },
  { name: 'grep', sideEffects: 'read_only' as const },
  { name: 'bash', sideEffects: 'unsafe' as const },
];

export { KeepingExporter };

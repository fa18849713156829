/**
 * One run of the AI SDK integration as its parts see it (attempts.ts, run-integration.ts,
 * ai-sdk-7.ts): a `RunRecorder` on a real tracer that keeps every span, the run's `RunState`, one
 * call's `CallState` as `callOptions` makes it, and the fact events each span recorded.
 */
import type { Span } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { TimeoutSetting } from '../../src/ai-sdk/abort-reason.js';
import type { AgentRunOptions } from '../../src/ai-sdk/options.js';
import type { CallState } from '../../src/ai-sdk/run-state.js';
import { RunState } from '../../src/ai-sdk/run-state.js';
import type { ToolLike } from '../../src/ai-sdk/tool-classes.js';
import type { ToolSideEffects } from '../../src/model/enums.js';
import { RunRecorder } from '../../src/runtime/run-recorder.js';
import { steppingClock } from '../support/harness.js';
import { KeepingExporter } from '../support/keeping-exporter.js';

const P = 'agent_incidents.';

/** A fact event, its name and attributes without the `agent_incidents.` prefix and the sequence number. */
export interface Fact {
  readonly name: string;
  readonly attributes: Readonly<Record<string, unknown>>;
}

/** The run's options and the one call's. */
export interface ObservedRunOptions extends AgentRunOptions {
  readonly declared?: Readonly<Record<string, ToolSideEffects>>;
  readonly tools?: Readonly<Record<string, ToolLike | undefined>>;
  readonly timeout?: TimeoutSetting;
  /** @default 2 */
  readonly maxRetries?: number;
}

function unprefixed(attributes: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(attributes)
      .filter(([key]) => key !== `${P}seq`)
      .map(([key, value]) => [key.startsWith(P) ? key.slice(P.length) : key, value]),
  );
}

/** A run and one call of it; `stop` is the caller's stop (the run's signal), `caller` the call's own signal. */
export function observedRun(options: ObservedRunOptions = {}) {
  const exporter = new KeepingExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('unit');
  const recorder = RunRecorder.start({ tracer, clock: steppingClock(1_700_000_000_000) });
  const stop = new AbortController();
  const run = new RunState(recorder, options, [], stop.signal);
  const state: CallState = {
    sources: { declared: options.declared, tools: options.tools },
    timeout: options.timeout,
    maxRetries: options.maxRetries ?? 2,
    failuresInARow: 0,
    watching: false,
    runningTools: 0,
    finished: false,
  };
  run.calls.push(state);
  const caller = new AbortController();
  /** The call's signal as `callOptions` makes it: the call's own, merged with the run's. */
  const signal = AbortSignal.any([caller.signal, stop.signal]);
  const exported = (span: Pick<Span, 'spanContext'>): ReadableSpan | undefined =>
    exporter.spans.find((s) => s.spanContext().spanId === span.spanContext().spanId);
  /** The fact events `span` was exported with. */
  const facts = (span: Pick<Span, 'spanContext'>): Fact[] =>
    (exported(span)?.events ?? [])
      .filter((e) => e.name.startsWith(P))
      .map((e) => ({ name: e.name.slice(P.length), attributes: unprefixed(e.attributes ?? {}) }));
  /** Ends the run: its verdict, its own facts, and each attempt's facts and their names. */
  const ended = () => {
    const incident = recorder.end();
    const attempts = run.attempts.map((a) => facts(a.span));
    return { incident, run: facts(recorder.span), attempts, names: attempts.map((f) => f.map((e) => e.name)) };
  };
  return { exporter, tracer, recorder, stop, run, state, caller, signal, exported, facts, ended };
}

/** A fact as `name value…`, for short tables. */
export function brief(fact: Fact | undefined): string | undefined {
  return fact && [fact.name, ...Object.values(fact.attributes)].join(' ');
}

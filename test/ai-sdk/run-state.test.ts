/**
 * RunState: a stop of the run records its cancel at once (with the run's cancel origin) and
 * interrupts the tools running then; the cancel is recorded once; nothing is recorded after the
 * run ended; and `quietly` keeps an observer's error from the caller.
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import type { AgentRunOptions } from '../../src/ai-sdk/options.js';
import { quietly, RunState } from '../../src/ai-sdk/run-state.js';
import { RunRecorder } from '../../src/runtime/run-recorder.js';
import { steppingClock } from '../support/harness.js';
import { KeepingExporter } from '../support/keeping-exporter.js';

const CANCEL = 'agent_incidents.user_cancel';

function setup(options: AgentRunOptions = {}) {
  const exporter = new KeepingExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('unit');
  const recorder = RunRecorder.start({ tracer, clock: steppingClock(1_700_000_000_000) });
  const stop = new AbortController();
  const state = new RunState(recorder, options, [], stop.signal);
  const named = (prefix: string): ReadableSpan[] => exporter.spans.filter((s) => s.name.startsWith(prefix));
  /** `[name, cancel origin]` of the run span's cancel events, once the run ended. */
  const cancels = () =>
    named('invoke_agent')[0]
      ?.events.filter((e) => e.name === CANCEL)
      .map((e) => e.attributes?.['agent_incidents.cancel.origin']);
  return { recorder, stop, state, named, cancels };
}

describe('RunState', () => {
  it.each<[AgentRunOptions, string]>([
    [{}, 'user_stop'],
    [{ cancelOrigin: 'client_disconnect' }, 'client_disconnect'],
  ])('a stop records the run’s cancel with origin from %j: %s', (options, origin) => {
    const { recorder, stop, state, cancels } = setup(options);
    expect(state.cancelOrigin).toBe(origin);
    stop.abort();
    expect(recorder.signal.aborted).toBe(true);
    recorder.end();
    expect(cancels()).toEqual([origin]);
  });

  it('a stop interrupts the tools running then, and only those', () => {
    const { recorder, stop, state, named } = setup();
    const running = recorder.startTool({ name: 'running' });
    const done = recorder.startTool({ name: 'done' });
    state.toolsRunning.add(running);
    done.complete();
    stop.abort();
    recorder.end();
    expect(named('execute_tool').map((s) => [s.name, s.events.map((e) => e.name)])).toEqual([
      ['execute_tool done', []],
      ['execute_tool running', ['agent_incidents.tool_execution_interrupted']],
    ]);
  });

  it('records the cancel once, whoever reports it first', () => {
    const { recorder, stop, state, cancels } = setup();
    state.recordCancel('client_disconnect');
    stop.abort();
    state.recordCancel('user_stop');
    recorder.end();
    expect(cancels()).toEqual(['client_disconnect']);
  });

  it('records nothing for a stop after the run ended', () => {
    const { recorder, stop, state, named } = setup();
    const tool = recorder.startTool({ name: 't' });
    state.toolsRunning.add(tool);
    recorder.end();
    stop.abort();
    expect(named('invoke_agent')[0]?.events).toEqual([]);
  });

  it('does not listen to a signal that was already aborted', () => {
    const { recorder } = setup();
    const stop = new AbortController();
    stop.abort();
    new RunState(recorder, {}, [], stop.signal);
    expect(recorder.signal.aborted).toBe(false);
  });
});

describe('quietly', () => {
  it('runs the body and swallows what it throws', () => {
    const ran: string[] = [];
    quietly(() => ran.push('a'));
    expect(() =>
      quietly(() => {
        ran.push('b');
        throw new Error('observer bug');
      }),
    ).not.toThrow();
    expect(ran).toEqual(['a', 'b']);
  });
});

/**
 * RunRecorder, the runtime's public entry: the spans it starts and adopts and where they sit,
 * its own facts numbered in order on the run span, the retry link to the next attempt (and
 * none after a stop), the stop signal, an end that happens once and cuts off what is open, and
 * fail(): an error nothing on record explains fails the run, in process and on the exported span.
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import type { RunRecorderOptions } from '../../src/runtime/run-recorder.js';
import { RunRecorder } from '../../src/runtime/run-recorder.js';
import { createPipeline, steppingClock } from '../support/harness.js';
import { KeepingExporter } from '../support/keeping-exporter.js';

const P = 'agent_incidents.';

function setup(options: Omit<RunRecorderOptions, 'tracer' | 'clock'> = {}) {
  const exporter = new KeepingExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('unit');
  const clock = steppingClock(1_700_000_000_000);
  const run = RunRecorder.start({ tracer, clock, ...options });
  const named = (name: string): ReadableSpan => {
    const span = exporter.spans.find((s) => s.name === name);
    if (!span) throw new Error(`no span ${name}`);
    return span;
  };
  return { run, tracer, clock, exporter, named };
}

describe('the spans it starts', () => {
  it('names the run, attempt and tool spans by GenAI convention, each a child of the run', () => {
    const { run, named } = setup({ agentName: 'coder', providerName: 'openai', model: 'gpt-x' });
    run.startAttempt().finish();
    run.startAttempt({ model: 'gpt-y' }).finish();
    run.startTool({ name: 'read', callId: 'c1', sideEffects: 'read_only' }).complete();
    run.end();
    const root = named('invoke_agent coder');
    expect(root.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'coder',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-x',
    });
    for (const name of ['chat gpt-x', 'chat gpt-y', 'execute_tool read']) {
      expect(named(name).parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    }
    expect(named('chat gpt-x').attributes).toMatchObject({ 'agent_incidents.attempt.number': 1 });
    expect(named('chat gpt-y').attributes).toMatchObject({ 'agent_incidents.attempt.number': 2 });
    expect(named('execute_tool read').attributes).toMatchObject({
      'gen_ai.tool.name': 'read',
      'gen_ai.tool.call.id': 'c1',
      'agent_incidents.tool.side_effects': 'read_only',
    });
  });

  it('a tool started for an attempt names it and links to it', () => {
    const { run, named } = setup();
    const attempt = run.startAttempt();
    run.startTool({ name: 'x', attempt }).complete();
    run.end();
    const tool = named('execute_tool x');
    expect(tool.attributes['agent_incidents.attempt.number']).toBe(1);
    expect(tool.links.map((l) => l.context.spanId)).toEqual([attempt.span.spanContext().spanId]);
  });

  it('an adopted tool span gets its side-effect class (unknown by default) and attempt number', () => {
    const { run, tracer } = setup();
    const attempt = run.startAttempt();
    const span = tracer.startSpan('ai.toolCall', {}, run.context);
    run.adoptTool(span, { name: 'x', attempt });
    const adopted = span as unknown as ReadableSpan;
    expect(adopted.attributes).toEqual({
      'agent_incidents.tool.side_effects': 'unknown',
      'agent_incidents.attempt.number': 1,
    });
  });
});

describe('retries', () => {
  it('the attempt after a retry names and links the retried one', () => {
    const { run, named } = setup({ model: 'm' });
    const first = run.startAttempt();
    first.fail(new Error('boom'));
    run.retryIssued(first, { delayMillis: 250 });
    run.startAttempt({ model: 'n' }).finish();
    run.end();
    const second = named('chat n');
    expect(second.attributes['agent_incidents.retry.of_attempt']).toBe(1);
    expect(second.links.map((l) => l.context.spanId)).toEqual([first.span.spanContext().spanId]);
    const retry = named('invoke_agent').events.find((e) => e.name === `${P}retry_issued`);
    expect(retry?.attributes).toMatchObject({
      'agent_incidents.retry.of_attempt': 1,
      'agent_incidents.retry.delay_ms': 250,
    });
  });

  it('a stop during the backoff abandons the retry: the next attempt links nothing', () => {
    const { run, named } = setup({ model: 'm' });
    const first = run.startAttempt();
    first.fail(new Error('boom'));
    run.retryIssued(1);
    run.userCancel();
    run.startAttempt({ model: 'n' }).close();
    run.end();
    expect(named('chat n').links).toEqual([]);
    expect(named('chat n').attributes['agent_incidents.retry.of_attempt']).toBeUndefined();
  });
});

describe('the stop signal', () => {
  it.each([
    ['userCancel', (run: RunRecorder) => run.userCancel(), 'user_cancel'],
    ['lifecycleClose', (run: RunRecorder) => run.lifecycleClose({ kind: 'instance_reload' }), 'local_lifecycle_close'],
  ])('%s aborts it with its cause, and only the first stop counts', (_name, stop, cause) => {
    const { run } = setup();
    expect(run.signal.aborted).toBe(false);
    stop(run);
    run.lifecycleClose({ kind: 'shutdown' });
    expect(run.signal.aborted).toBe(true);
    expect(run.signal.reason).toEqual({ cause });
  });

  it('is not aborted by a watchdog, setup failure or process exit', () => {
    const { run } = setup();
    run.watchdogFired({ phase: 'total' });
    run.setupFailure(new Error('bad request'));
    run.processExit({ exitCode: 1 });
    expect(run.signal.aborted).toBe(false);
  });
});

describe('its own facts', () => {
  it('are written on the run span, numbered by agent_incidents.seq in order across spans', () => {
    const { run, named } = setup();
    run.startAttempt().textOutput();
    run.userCancel('client_disconnect');
    run.processExit({ exitCode: 0 });
    run.end();
    expect(named('invoke_agent').events.map((e) => [e.name, e.attributes?.['agent_incidents.seq']])).toEqual([
      [`${P}user_cancel`, 2],
      [`${P}process_exit`, 3],
    ]);
  });

  it('are not written once the run ended', () => {
    const { run, named } = setup();
    run.end();
    run.userCancel();
    run.watchdogFired({ phase: 'total' });
    expect(named('invoke_agent').events).toEqual([]);
    expect(run.signal.aborted).toBe(false);
  });
});

describe('end()', () => {
  it('ends the run once, cutting off what is still open, and returns the same verdict every time', () => {
    const { run, exporter, named } = setup({ model: 'm' });
    const attempt = run.startAttempt();
    const tool = run.startTool({ name: 't' });
    const first = run.end();
    expect(run.ended).toBe(true);
    expect([attempt.ended, tool.ended]).toEqual([true, true]);
    expect(named('chat m').attributes['incident.truncated']).toBe(true);
    expect(named('execute_tool t').attributes['incident.truncated']).toBe(true);
    expect(named('invoke_agent').attributes['incident.truncated']).toBeUndefined();
    expect(run.end()).toEqual(first);
    expect(run.incident()).toEqual(first);
    expect(exporter.spans).toHaveLength(3);
  });

  it('a finished attempt makes a successful run', () => {
    const { run } = setup();
    run.startAttempt().finish({ finishReasons: ['stop'] });
    expect(run.end()).toMatchObject({ outcome: 'success', attempts: 1 });
  });

  it('a nested run whose parent ends first is cut off and marked truncated', () => {
    const { run, tracer, clock, exporter } = setup({ agentName: 'outer' });
    const inner = RunRecorder.start({ tracer, clock, agentName: 'inner', parentContext: run.context });
    run.end();
    expect(inner.ended).toBe(true);
    const span = exporter.spans.find((s) => s.name === 'invoke_agent inner');
    expect(span?.attributes['incident.truncated']).toBe(true);
    expect(span?.parentSpanContext?.spanId).toBe(run.span.spanContext().spanId);
  });

  it('the snapshot’s duration stops at the run’s end', () => {
    const { run, clock } = setup();
    clock.advance(1_000);
    run.end();
    const before = run.snapshot();
    clock.advance(5_000);
    expect(run.snapshot()).toEqual(before);
  });
});

describe('fail()', () => {
  const socketDrop = () =>
    new TypeError('terminated', {
      cause: Object.assign(new Error('other side closed'), { name: 'SocketError', code: 'UND_ERR_SOCKET' }),
    });
  const rateLimited = () => Object.assign(new Error('Too Many Requests'), { name: 'AI_APICallError', statusCode: 429 });
  it.each<[string, (run: RunRecorder) => void, unknown, Record<string, unknown>]>([
    [
      'an error after a finished attempt fails the run',
      (run) => run.startAttempt().finish({ finishReasons: ['stop'] }),
      new SyntaxError('Unexpected token < in JSON'),
      { outcome: 'failed', cause: 'unknown_interruption' },
    ],
    ['a socket drop no attempt recorded', () => undefined, socketDrop(), { cause: 'provider_transport_disconnect' }],
    [
      'a refusal no attempt recorded',
      () => undefined,
      rateLimited(),
      { cause: 'provider_api_error', causeDetail: 'rate_limit' },
    ],
    [
      'an attempt’s own failure stands',
      (run) => run.startAttempt().fail(socketDrop()),
      new Error('wrapped by the caller'),
      { outcome: 'failed', cause: 'provider_transport_disconnect', attempts: 1 },
    ],
    [
      'a stop stands',
      (run) => run.userCancel(),
      new DOMException('The run was cancelled', 'AbortError'),
      { outcome: 'cancelled', cause: 'user_cancel' },
    ],
  ])('%s, and the exported run span says the same', (_what, before, error, expected) => {
    const pipeline = createPipeline();
    const run = pipeline.startRun();
    before(run);
    run.fail(error);
    const incident = run.end();
    expect(incident).toMatchObject({ outcome: 'failed', ...expected });
    const [span] = pipeline.runSpans();
    expect([span?.attributes['incident.outcome'], span?.attributes['incident.cause']]).toEqual([
      incident.outcome,
      incident.cause,
    ]);
  });

  it('writes nothing once something on record ended the run', () => {
    const { run, named } = setup();
    run.setupFailure(new Error('no API key'));
    run.fail(new Error('no API key'));
    run.end();
    expect(named('invoke_agent').events.map((e) => e.name)).toEqual([`${P}setup_failure`]);
  });
});

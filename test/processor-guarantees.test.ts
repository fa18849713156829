/**
 * The guarantees of README.md#guarantees, each named as the promise it checks, on a real
 * tracer provider with the processor in front of an exporter.
 */
import type { DiagLogger } from '@opentelemetry/api';
import { context, diag, DiagLogLevel, trace } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CollectingReader } from './support/metrics.js';
import type { ConventionAdapter } from '../src/conventions/index.js';
import { attributes, IncidentSpanProcessor } from '../src/index.js';
import { ADAPTERS } from '../src/conventions/index.js';
import { KeepingExporter, createPipeline, errors, LOCAL_TOOLS } from './support/harness.js';

const boundary = { tools: LOCAL_TOOLS };

function captureDiag(): { messages: string[]; restore: () => void } {
  const messages: string[] = [];
  const log = (level: string) => (message: string) => messages.push(`${level}: ${message}`);
  const logger: DiagLogger = {
    error: log('error'),
    warn: log('warn'),
    info: log('info'),
    debug: () => {},
    verbose: () => {},
  };
  diag.setLogger(logger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  return { messages, restore: () => diag.disable() };
}

afterEach(() => diag.disable());

describe('never breaks the host', () => {
  const throwing: ConventionAdapter = {
    name: 'throwing',
    role: (view) => ADAPTERS[0]!.role(view),
    extract: () => {
      throw new Error('adapter bug');
    },
  };

  it('never throws when an adapter throws, reports once through diag, and passes the span on unchanged', () => {
    const { messages } = captureDiag();
    const pipeline = createPipeline({ adapters: [throwing] });
    const runs = [pipeline.startRun(), pipeline.startRun()];
    for (const run of runs) {
      const attempt = run.startAttempt({ boundary });
      expect(() => attempt.fail(errors.socketDrop())).not.toThrow();
      expect(() => run.end()).not.toThrow();
    }
    const exported = pipeline.runSpans();
    expect(exported).toHaveLength(2);
    expect(exported[0]?.attributes['incident.outcome']).toBeUndefined();
    expect(pipeline.processor.stats().internalErrors).toBeGreaterThanOrEqual(2);
    expect(messages.filter((m) => m.includes('internal error in onEnding'))).toHaveLength(1);
    expect(pipeline.processor.stats().openRuns).toBe(0);
  });

  it('rejects bad configuration at construction with a message naming the option', () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ maxOpenRuns: 0 }, /invalid option maxOpenRuns/],
      [{ maxRunAgeMillis: -5 }, /invalid option maxRunAgeMillis/],
      [{ policy: { maxAutoRetries: 1.5 } }, /invalid option policy.maxAutoRetries/],
      [{ policy: { missingBoundary: 'trust' } }, /invalid option policy.missingBoundary/],
      [{ meterProvider: {} }, /invalid option meterProvider/],
      [{ maxOpenRun: 5 }, /invalid option options: .*maxOpenRun/],
    ];
    for (const [options, message] of cases) {
      expect(() => new IncidentSpanProcessor(options as never)).toThrow(message);
    }
  });
});

describe('never loses a span', () => {
  it('exports every span exactly once: runs, children, late children, orphans, truncated spans and double ends', () => {
    const pipeline = createPipeline();
    const started: string[] = [];
    const track = <T extends { spanContext(): { spanId: string } }>(s: T): T => {
      started.push(s.spanContext().spanId);
      return s;
    };
    // A finished run with tools.
    const run = pipeline.startRun();
    track(run.span);
    const a = run.startAttempt({ boundary });
    track(a.span);
    a.toolCallMaterialized({ name: 'read', sideEffects: 'read_only' });
    const tool = run.startTool({ name: 'read', sideEffects: 'read_only', attempt: a });
    track(tool.span);
    // A child span the host never ends (truncated by the run) and one it ends late.
    const forgotten = track(pipeline.tracer.startSpan('http fetch', {}, run.context));
    const late = track(pipeline.tracer.startSpan('cleanup', {}, run.context));
    tool.complete();
    a.finish();
    run.end();
    late.end();
    forgotten.end(); // a double end: already ended by the processor
    // Orphans outside any run, one of them ended twice.
    const orphan = track(pipeline.tracer.startSpan('orphan'));
    orphan.end();
    orphan.end();
    track(pipeline.tracer.startSpan('orphan 2')).end();
    // A run that never ends, finalized at flush.
    const open = pipeline.startRun();
    track(open.span);
    track(open.startAttempt({ boundary }).span);
    void pipeline.processor.forceFlush();

    const exported = pipeline.spans().map((s) => s.spanContext().spanId);
    expect([...exported].sort()).toEqual([...started].sort());
    expect(new Set(exported).size).toBe(exported.length);
  });

  it('still exports the run span of a run whose facts were evicted, marked incomplete with evidence_truncated', () => {
    const pipeline = createPipeline({ maxOpenRuns: 2 });
    const first = pipeline.startRun();
    pipeline.startRun();
    pipeline.startRun(); // evicts the first run's facts
    expect(pipeline.processor.stats()).toMatchObject({ openRuns: 2, evictedRuns: 1 });
    first.end();
    const span = pipeline.runSpans()[0];
    expect(span?.spanContext().spanId).toBe(first.span.spanContext().spanId);
    expect(span?.attributes['incident.outcome']).toBe('incomplete');
    expect(span?.attributes['incident.missing_facts']).toContain('evidence_truncated');
  });

  it('writes incident attributes even on a span already at the attribute count limit', () => {
    const exporter = new KeepingExporter();
    const provider = new BasicTracerProvider({
      spanLimits: { attributeCountLimit: 10 },
      spanProcessors: [new IncidentSpanProcessor({ sweepIntervalMillis: 0 }), new SimpleSpanProcessor(exporter)],
    });
    const span = provider
      .getTracer('t')
      .startSpan('invoke_agent', { attributes: { 'gen_ai.operation.name': 'invoke_agent' } });
    for (let i = 0; i < 20; i += 1) span.setAttribute(`custom.${i}`, i);
    span.end();
    expect(exporter.spans[0]?.attributes['incident.outcome']).toBe('success');
    expect(exporter.spans[0]?.attributes['incident.schema_version']).toBe(attributes.SCHEMA_VERSION);
  });
});

describe('writes the incident while the run span is ending', () => {
  it('is visible to a processor registered before it', () => {
    const seen: Array<unknown> = [];
    const before: SpanProcessor = {
      onStart: () => {},
      onEnd: (span: ReadableSpan) => seen.push(span.attributes['incident.outcome']),
      forceFlush: () => Promise.resolve(),
      shutdown: () => Promise.resolve(),
    };
    const provider = new BasicTracerProvider({
      spanProcessors: [before, new IncidentSpanProcessor({ sweepIntervalMillis: 0 })],
    });
    provider
      .getTracer('t')
      .startSpan('invoke_agent', { attributes: { 'gen_ai.operation.name': 'invoke_agent' } })
      .end();
    expect(seen).toEqual(['success']);
  });

  it('on an SDK that never calls onEnding, judges and sanitizes in onEnd, so the processors after it export the verdict', () => {
    const inner = new IncidentSpanProcessor({ sweepIntervalMillis: 0 });
    // The hooks an SDK without onEnding (sdk-trace-base before 2.1) calls: the SDK sees no onEnding to call.
    const withoutOnEnding: SpanProcessor = {
      onStart: (span, parentContext) => inner.onStart(span, parentContext),
      onEnd: (span) => inner.onEnd(span),
      forceFlush: () => inner.forceFlush(),
      shutdown: () => inner.shutdown(),
    };
    const exporter = new KeepingExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [withoutOnEnding, new SimpleSpanProcessor(exporter)] });
    const tracer = provider.getTracer('t');
    const run = tracer.startSpan('invoke_agent', {
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'app.note': 'key=sk-proj-Q7vX2mLp9RtY4wZc8NbK3hJfDs6GaE1u',
      },
    });
    const attempt = tracer.startSpan(
      'chat gpt',
      { attributes: { 'gen_ai.operation.name': 'chat' } },
      trace.setSpan(context.active(), run),
    );
    attempt.recordException(errors.socketDrop());
    attempt.setStatus({ code: 2 });
    attempt.end();
    run.end();
    const exported = exporter.spans.find((span) => span.name === 'invoke_agent');
    expect(exported?.attributes).toMatchObject({
      'incident.outcome': 'failed',
      'incident.cause': 'provider_transport_disconnect',
    });
    expect(JSON.stringify(exported?.attributes)).not.toContain('sk-proj-Q7vX2mLp9RtY4wZc8NbK3hJfDs6GaE1u');
    expect(inner.stats()).toMatchObject({ runsFinished: 1, openRuns: 0, internalErrors: 0 });
  });
});

describe('lifecycle', () => {
  it('forceFlush and shutdown finalize open runs, nested ones included, and keep no state', async () => {
    const pipeline = createPipeline();
    const parent = pipeline.startRun({ agentName: 'planner' });
    const child = pipeline.startRun({ agentName: 'worker', parentContext: parent.context });
    child.startAttempt({ boundary });
    await pipeline.provider.shutdown();
    const runs = pipeline.runSpans();
    expect(runs).toHaveLength(2);
    for (const span of runs) expect(span.attributes['incident.outcome']).toBe('incomplete');
    expect(pipeline.processor.stats()).toMatchObject({ openRuns: 0, trackedSpans: 0 });
  });

  it('finalizes a run past maxRunAgeMillis from its sweep timer, with no new spans needed', () => {
    vi.useFakeTimers();
    try {
      const pipeline = createPipeline({ maxRunAgeMillis: 5_000, sweepIntervalMillis: 1_000 });
      pipeline.tracer.startSpan('invoke_agent idle', { attributes: { 'gen_ai.operation.name': 'invoke_agent' } });
      vi.advanceTimersByTime(4_000);
      expect(pipeline.runSpans()).toHaveLength(0);
      vi.advanceTimersByTime(2_000);
      expect(pipeline.runSpans()[0]?.attributes['incident.cause.detail']).toBe('run_never_ended');
      expect(pipeline.processor.stats()).toMatchObject({ openRuns: 0, runsFinalizedOpen: 1 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('tracks nothing after shutdown, but still sanitizes what other processors may export', async () => {
    const pipeline = createPipeline();
    await pipeline.processor.shutdown();
    const run = pipeline.startRun();
    run.span.setAttribute('gen_ai.input.messages', 'secret prompt');
    run.end();
    expect(pipeline.processor.stats().runsFinished).toBe(0);
    expect(pipeline.processor.stats().openRuns).toBe(0);
    expect(pipeline.runSpans()[0]?.attributes['gen_ai.input.messages']).toBeUndefined();
  });
});

describe('bounded memory', () => {
  it('keeps at most maxOpenRuns runs under 100,000 runs that never end, and counts every eviction', () => {
    const pipeline = createPipeline();
    const spans: Span[] = [];
    for (let i = 0; i < 100_000; i += 1) {
      const run = pipeline.tracer.startSpan('invoke_agent', {
        attributes: { 'gen_ai.operation.name': 'invoke_agent' },
      }) as Span;
      if (i % 10 === 0) spans.push(run);
    }
    expect(pipeline.processor.stats()).toMatchObject({ openRuns: 10_000, trackedSpans: 10_000, evictedRuns: 90_000 });
    void pipeline.processor.forceFlush();
    expect(pipeline.processor.stats()).toMatchObject({ openRuns: 0, trackedSpans: 0 });
    expect(spans.length).toBe(10_000);
  });

  it('drops the state of a finished run, children included', () => {
    const pipeline = createPipeline();
    for (let i = 0; i < 50; i += 1) {
      const run = pipeline.startRun();
      const a = run.startAttempt({ boundary });
      a.textOutput();
      run.startTool({ name: 'read', sideEffects: 'read_only', attempt: a }).complete();
      a.finish();
      run.end();
    }
    expect(pipeline.processor.stats()).toMatchObject({ openRuns: 0, trackedSpans: 0, runsFinished: 50 });
  });
});

describe('garbage input yields unknown verdicts, not errors', () => {
  it('survives non-string values, NaN, 1 MB strings, out-of-order events and double end()', () => {
    const pipeline = createPipeline();
    const huge = 'x'.repeat(1_000_000);
    const run = pipeline.tracer.startSpan('invoke_agent', {
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.provider.name': huge, 'gen_ai.agent.name': 42 },
    });
    const runContext = trace.setSpan(context.active(), run);
    const attempt = pipeline.tracer.startSpan(
      'chat',
      { attributes: { 'gen_ai.operation.name': 'chat', 'agent_incidents.attempt.number': Number.NaN } },
      runContext,
    );
    const past = Date.now() - 60_000;
    attempt.addEvent(
      'agent_incidents.provider_error',
      { 'agent_incidents.error.kind': 7, 'agent_incidents.error.detail': huge },
      past + 5,
    );
    attempt.addEvent(
      'agent_incidents.watchdog_fired',
      { 'agent_incidents.watchdog.phase': 'sideways', 'agent_incidents.seq': Number.NaN },
      past,
    );
    attempt.addEvent('agent_incidents.side_effect_boundary', {
      'agent_incidents.boundary.read_only_tools': [1, 2, 'read'] as never,
    });
    attempt.addEvent('agent_incidents.tool_call_materialized', {
      'gen_ai.tool.name': huge,
      'agent_incidents.tool.side_effects': 'maybe',
    });
    attempt.addEvent('agent_incidents.retry_issued', { 'agent_incidents.retry.of_attempt': 'one' });
    attempt.addEvent('agent_incidents.no_such_fact');
    attempt.recordException({ name: 'Weird', message: huge, code: 12 as never });
    attempt.setStatus({ code: 2, message: huge });
    attempt.end();
    attempt.end();
    const tool = pipeline.tracer.startSpan(
      'execute_tool',
      { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': ['not', 'a', 'string'] } },
      runContext,
    );
    tool.end(past - 1_000_000);
    run.addEvent('agent_incidents.lifecycle_close', {
      'agent_incidents.lifecycle.initiated_at_ms': Number.POSITIVE_INFINITY,
    });
    run.end();
    run.end();

    expect(pipeline.processor.stats().internalErrors).toBe(0);
    const span = pipeline.runSpans()[0];
    expect(span?.attributes['incident.outcome']).toBeDefined();
    expect(span?.attributes['incident.schema_version']).toBe(attributes.SCHEMA_VERSION);
    for (const exported of pipeline.spans()) {
      for (const value of Object.values(exported.attributes)) {
        if (typeof value === 'string') expect(value.length).toBeLessThan(1000);
      }
    }
  });
});

describe('nested runs', () => {
  it('give each run its own verdict and pass a child run side effects to its parent', () => {
    const pipeline = createPipeline();
    const parent = pipeline.startRun({ agentName: 'planner' });
    const plan = parent.startAttempt({ boundary });
    plan.toolCallMaterialized({ name: 'delegate', sideEffects: 'unknown' });
    plan.finish();
    const child = pipeline.startRun({ agentName: 'worker', parentContext: parent.context });
    const work = child.startAttempt({ boundary });
    work.toolCallMaterialized({ name: 'bash', sideEffects: 'unsafe' });
    child.startTool({ name: 'bash', sideEffects: 'unsafe', attempt: work }).complete();
    work.finish();
    child.end();
    parent.startAttempt({ boundary }).fail(errors.socketDrop());
    parent.end();

    const [childSpan, parentSpan] = pipeline.runSpans();
    expect(childSpan?.attributes).toMatchObject({ 'incident.outcome': 'success', 'incident.side_effects': 'unsafe' });
    expect(parentSpan?.attributes).toMatchObject({ 'incident.outcome': 'failed', 'incident.side_effects': 'unsafe' });
  });
});

describe('plain GenAI spans without native events', () => {
  it('get the best verdict their facts allow, with facts_complete=false and the missing markers', () => {
    const pipeline = createPipeline({ policy: { trustedReadOnlyTools: ['search'] } });
    const run = pipeline.tracer.startSpan('invoke_agent support', {
      attributes: { 'gen_ai.operation.name': 'invoke_agent' },
    });
    const runContext = trace.setSpan(context.active(), run);
    const step1 = pipeline.tracer.startSpan(
      'chat gpt',
      { attributes: { 'gen_ai.operation.name': 'chat' } },
      runContext,
    );
    step1.setAttribute('gen_ai.response.finish_reasons', ['tool_calls']);
    step1.end();
    pipeline.tracer
      .startSpan(
        'execute_tool search',
        { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search' } },
        runContext,
      )
      .end();
    const step2 = pipeline.tracer.startSpan(
      'chat gpt',
      { attributes: { 'gen_ai.operation.name': 'chat' } },
      runContext,
    );
    step2.recordException({
      name: 'ConnectionResetError',
      message: '[Errno 104] Connection reset by peer (ECONNRESET)',
    });
    step2.setStatus({ code: 2 });
    step2.end();
    run.setStatus({ code: 2 });
    run.end();

    const span = pipeline.runSpans()[0];
    expect(span?.attributes).toMatchObject({
      'incident.outcome': 'failed',
      'incident.cause': 'provider_transport_disconnect',
      'incident.cause.detail': 'connection_reset',
      'incident.error.code': 'ECONNRESET',
      'incident.facts_complete': false,
      'incident.side_effects': 'read_only',
      'incident.attempts': 2,
    });
    expect(span?.attributes['incident.missing_facts']).toEqual([
      'side_effect_boundary_missing',
      'provider_progress_missing',
    ]);
    expect(span?.attributes['incident.retry_safety']).toBe('ask_user_before_retry');
  });
});

describe('agent.runs metric', () => {
  it('counts one per finished run with outcome, cause, phase, retry safety and a bounded provider name', async () => {
    const reader = new CollectingReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const pipeline = createPipeline({ meterProvider });
    const ok = pipeline.startRun({ providerName: 'openai' });
    ok.startAttempt({ boundary }).finish();
    ok.end();
    const failed = pipeline.startRun({ providerName: 'my-private-llm' });
    failed.startAttempt({ boundary }).fail(errors.socketDrop());
    failed.end();

    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === 'agent.runs');
    const points = metric?.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value }));
    expect(points).toEqual(
      expect.arrayContaining([
        { attributes: { 'incident.outcome': 'success', 'gen_ai.provider.name': 'openai' }, value: 1 },
        {
          attributes: {
            'incident.outcome': 'failed',
            'incident.cause': 'provider_transport_disconnect',
            'incident.phase': 'before_first_provider_progress',
            'incident.retry_safety': 'auto_retry',
            'gen_ai.provider.name': '_OTHER',
          },
          value: 1,
        },
      ]),
    );
    expect(points).toHaveLength(2);
  });

  it('adds the recovery action when a strategy acted, and never the strategy name', async () => {
    const reader = new CollectingReader();
    const pipeline = createPipeline({ meterProvider: new MeterProvider({ readers: [reader] }) });
    const run = pipeline.startRun({ providerName: 'openai' });
    run.startAttempt({ boundary }).fail(errors.socketDrop());
    run.recoveryAction({ action: 'reassign', reason: 'reassignable', strategy: 'failAndReassign' });
    run.end();
    const { resourceMetrics } = await reader.collect();
    const point = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === 'agent.runs')
      ?.dataPoints[0];
    expect(point?.attributes).toMatchObject({ 'incident.outcome': 'failed', 'incident.recovery.action': 'reassign' });
    expect(Object.keys(point?.attributes ?? {})).not.toContain('incident.recovery.strategy');
  });
});

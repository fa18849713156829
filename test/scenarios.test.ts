/**
 * Every public scenario (one numbered row per fault, with the verdict a reader
 * must see), end to end: RunRecorder → real tracer
 * provider → IncidentSpanProcessor → in-memory exporter. Each row also checks
 * that the runtime's in-process verdict equals what was exported.
 */
import { describe, expect, it, vi } from 'vitest';
import { attributes, incidentAttributes } from '../src/index.js';
import type { RunRecorder } from '../src/index.js';
import { createPipeline, errors, LOCAL_TOOLS } from './support/harness.js';

const boundary = { tools: LOCAL_TOOLS };
type Pipeline = ReturnType<typeof createPipeline>;

interface Scenario {
  readonly row: string;
  readonly name: string;
  readonly build: (run: RunRecorder, pipeline: Pipeline) => void;
  readonly want: Record<string, unknown>;
}

const scenarios: Scenario[] = [
  {
    row: '1',
    name: 'connect watchdog with no retry is an auto-retryable failure',
    build: (run) => {
      run.startAttempt({ boundary }).watchdogFired({ phase: 'connect', budgetMillis: 30_000 });
    },
    want: {
      'incident.cause': 'watchdog_timeout',
      'incident.cause.detail': 'connect',
      'incident.phase': 'before_first_provider_progress',
      'incident.retry_safety': 'auto_retry',
      'incident.retry_safety.reason': 'no_visible_output_or_tool_execution',
      'incident.outcome': 'failed',
    },
  },
  {
    row: '2',
    name: 'a watchdog recovered by one auto retry is a recovered run',
    build: (run) => {
      const a1 = run.startAttempt({ boundary });
      a1.watchdogFired({ phase: 'connect' });
      run.retryIssued(a1, { delayMillis: 1000 });
      const a2 = run.startAttempt({ boundary });
      a2.textOutput();
      a2.finish({ finishReasons: ['stop'] });
    },
    want: {
      'incident.outcome': 'recovered',
      'incident.attempts': 2,
      'incident.recovered_attempts': 1,
      'incident.cause': 'watchdog_timeout',
      'incident.retry_safety': 'auto_retry',
    },
  },
  {
    row: '3',
    name: 'a second watchdog past the budget asks the user',
    build: (run) => {
      const a1 = run.startAttempt({ boundary });
      a1.watchdogFired({ phase: 'connect' });
      run.retryIssued(a1);
      run.startAttempt({ boundary }).watchdogFired({ phase: 'connect' });
    },
    want: {
      'incident.cause': 'watchdog_timeout',
      'incident.cause.detail': 'connect',
      'incident.phase': 'before_first_provider_progress',
      'incident.retry_safety': 'ask_user_before_retry',
      'incident.retry_safety.reason': 'retry_budget_exhausted',
      'incident.outcome': 'failed',
    },
  },
  {
    row: '4',
    name: 'a lifecycle-only start chunk is not progress; terminated/UND_ERR_SOCKET is a retryable socket drop',
    build: (run) => {
      const a = run.startAttempt({ boundary });
      a.fail(errors.socketDrop());
    },
    want: {
      'incident.cause': 'provider_transport_disconnect',
      'incident.cause.detail': 'socket_closed',
      'incident.phase': 'before_first_provider_progress',
      'incident.retry_safety': 'auto_retry',
      'incident.retryable': true,
      'incident.error.code': 'UND_ERR_SOCKET',
    },
  },
  {
    row: '5',
    name: 'a read-only tool in an earlier step does not block retrying a drop before progress',
    build: (run) => {
      const step1 = run.startAttempt({ boundary });
      step1.toolInputStarted('read');
      step1.toolInputCompleted('read');
      step1.toolCallMaterialized({ name: 'read', sideEffects: 'read_only' });
      step1.finish({ finishReasons: ['tool-calls'] });
      run.startTool({ name: 'read', sideEffects: 'read_only', attempt: step1 }).complete();
      run.startAttempt({ boundary }).fail(errors.socketDrop());
    },
    want: {
      'incident.retry_safety': 'auto_retry',
      'incident.retry_safety.reason': 'no_visible_output_or_tool_execution',
      'incident.side_effects': 'read_only',
    },
  },
  {
    row: '6',
    name: 'a drop after visible text offers to continue',
    build: (run) => {
      const a = run.startAttempt({ boundary });
      a.textOutput();
      a.fail(errors.socketDrop());
    },
    want: {
      'incident.cause': 'provider_transport_disconnect',
      'incident.phase': 'text_generation',
      'incident.retry_safety': 'offer_continue',
      'incident.retry_safety.reason': 'visible_output_without_tool_execution',
    },
  },
  {
    row: '7',
    name: 'a provider overloaded error chunk after text offers to continue',
    build: (run) => {
      const a = run.startAttempt({ boundary });
      a.textOutput();
      a.fail(errors.overloadedChunk());
    },
    want: {
      'incident.cause': 'provider_api_error',
      'incident.cause.detail': 'server_overload',
      'incident.phase': 'text_generation',
      'incident.retry_safety': 'offer_continue',
    },
  },
  {
    row: '8',
    name: 'reasoning only, then a drop, with a complete boundary is auto-retried',
    build: (run) => {
      const a = run.startAttempt({ boundary });
      a.reasoningOutput();
      a.reasoningOutput();
      a.fail(errors.socketDrop());
    },
    want: {
      'incident.phase': 'reasoning_generation',
      'incident.retry_safety': 'auto_retry',
      'incident.retry_safety.reason': 'reasoning_only_without_final_text',
    },
  },
  {
    row: '9',
    name: 'reasoning only with a provider-executed tool exposed asks the user',
    build: (run) => {
      const a = run.startAttempt({
        boundary: { tools: [...LOCAL_TOOLS, { name: 'web_search', sideEffects: 'unknown', providerExecuted: true }] },
      });
      a.reasoningOutput();
      a.fail(errors.socketDrop());
    },
    want: {
      'incident.retry_safety': 'ask_user_before_retry',
      'incident.retry_safety.reason': 'side_effect_facts_incomplete',
    },
  },
  {
    row: '10',
    name: 'a drop during tool input (pending part interrupted by cleanup) offers to continue',
    build: (run) => {
      const a = run.startAttempt({ boundary });
      a.textOutput();
      a.toolInputStarted('bash');
      a.providerProgress('tool-input-delta');
      a.fail(errors.socketDrop());
      a.pendingToolInterrupted('bash');
    },
    want: {
      'incident.cause': 'provider_transport_disconnect',
      'incident.phase': 'tool_input_generation',
      'incident.retry_safety': 'offer_continue',
      'incident.retry_safety.reason': 'partial_tool_input_without_execution',
    },
  },
  {
    row: '11',
    name: 'a read-only call materialized but not run offers to continue',
    build: (run) => {
      const a = run.startAttempt({ boundary });
      a.toolInputStarted('read');
      a.toolInputCompleted('read');
      a.toolCallMaterialized({ name: 'read', sideEffects: 'read_only' });
      a.fail(errors.socketDrop());
    },
    want: {
      'incident.phase': 'tool_call_materialized',
      'incident.retry_safety': 'offer_continue',
      'incident.retry_safety.reason': 'tool_call_materialized_without_execution',
    },
  },
  {
    row: '12',
    name: 'an unsafe call materialized but not run asks the user',
    build: (run) => {
      const a = run.startAttempt({ boundary });
      a.toolCallMaterialized({ name: 'bash', sideEffects: 'unsafe' });
      a.fail(errors.socketDrop());
    },
    want: {
      'incident.retry_safety': 'ask_user_before_retry',
      'incident.retry_safety.reason': 'tool_call_materialized_without_execution',
    },
  },
  {
    row: '13a',
    name: 'an unknown tool call materialized means side-effect facts are incomplete',
    build: (run) => {
      const a = run.startAttempt({
        boundary: { tools: [...LOCAL_TOOLS, { name: 'mcp_write', sideEffects: 'unknown' }] },
      });
      a.toolCallMaterialized({ name: 'mcp_write', sideEffects: 'unknown' });
      a.fail(errors.socketDrop());
    },
    want: {
      'incident.retry_safety': 'ask_user_before_retry',
      'incident.retry_safety.reason': 'side_effect_facts_incomplete',
    },
  },
  {
    row: '13b',
    name: 'a call with no class given counts as unknown',
    build: (run) => {
      const a = run.startAttempt({ boundary });
      a.toolCallMaterialized({ name: 'read' });
      a.fail(errors.socketDrop());
    },
    want: {
      'incident.retry_safety': 'ask_user_before_retry',
      'incident.retry_safety.reason': 'side_effect_facts_incomplete',
    },
  },
  {
    row: '14',
    name: 'the worst materialized call wins',
    build: (run) => {
      const a = run.startAttempt({ boundary });
      a.toolCallMaterialized({ name: 'bash', sideEffects: 'unsafe' });
      a.toolCallMaterialized({ name: 'read', sideEffects: 'read_only' });
      a.fail(errors.socketDrop());
    },
    want: {
      'incident.retry_safety': 'ask_user_before_retry',
      'incident.retry_safety.reason': 'tool_call_materialized_without_execution',
    },
  },
  {
    row: '15',
    name: 'a drop while a tool executes stays in tool_execution even when the tool completes later',
    build: (run) => {
      const a = run.startAttempt({ boundary });
      a.toolCallMaterialized({ name: 'grep', sideEffects: 'read_only' });
      const grep = run.startTool({ name: 'grep', sideEffects: 'read_only', attempt: a });
      a.fail(errors.socketDrop());
      grep.complete();
    },
    want: {
      'incident.phase': 'tool_execution',
      'incident.retry_safety': 'ask_user_before_retry',
      'incident.retry_safety.reason': 'tool_execution_started',
      'incident.side_effects': 'read_only',
    },
  },
  {
    row: '16',
    name: 'a drop after a completed tool is after_tool_result and asks the user',
    build: (run) => {
      const a = run.startAttempt({ boundary });
      a.toolCallMaterialized({ name: 'grep', sideEffects: 'read_only' });
      run.startTool({ name: 'grep', sideEffects: 'read_only', attempt: a }).complete();
      a.fail(errors.socketDrop());
    },
    want: {
      'incident.phase': 'after_tool_result',
      'incident.retry_safety': 'ask_user_before_retry',
      'incident.retry_safety.reason': 'tool_execution_started',
    },
  },
  {
    row: '17',
    name: 'an interrupted unsafe tool is an unsafe side effect',
    build: (run) => {
      const a = run.startAttempt({ boundary });
      a.toolCallMaterialized({ name: 'bash', sideEffects: 'unsafe' });
      run.startTool({ name: 'bash', sideEffects: 'unsafe', attempt: a }).interrupt();
    },
    want: {
      'incident.cause': 'tool_execution_interrupted',
      'incident.phase': 'tool_execution',
      'incident.retry_safety': 'ask_user_before_retry',
      'incident.retry_safety.reason': 'unsafe_side_effect_started',
      'incident.side_effects': 'unsafe',
    },
  },
  {
    row: '18',
    name: 'an unknown tool exposed cannot have run before progress: auto retry',
    build: (run) => {
      run
        .startAttempt({ boundary: { tools: [...LOCAL_TOOLS, { name: 'mcp_write', sideEffects: 'unknown' }] } })
        .fail(errors.socketDrop());
    },
    want: {
      'incident.retry_safety': 'auto_retry',
      'incident.retry_safety.reason': 'no_visible_output_or_tool_execution',
    },
  },
  {
    row: '19',
    name: 'no boundary recorded fails closed',
    build: (run) => {
      run.startAttempt().fail(errors.socketDrop());
    },
    want: {
      'incident.retry_safety': 'ask_user_before_retry',
      'incident.retry_safety.reason': 'side_effect_facts_incomplete',
      'incident.facts_complete': false,
      'incident.missing_facts': ['side_effect_boundary_missing'],
    },
  },
  {
    row: '20',
    name: 'a lifecycle close recorded after a drop blocks the retry but does not change the cause',
    build: (run) => {
      run.startAttempt({ boundary }).fail(errors.socketDrop());
      run.lifecycleClose({ kind: 'instance_reload' });
    },
    want: {
      'incident.cause': 'provider_transport_disconnect',
      'incident.retry_safety': 'do_not_retry',
      'incident.retry_safety.reason': 'local_lifecycle_close',
    },
  },
  {
    row: '21',
    name: 'a lifecycle close initiated before the drop wins even when recorded after it',
    build: (run, p) => {
      const initiated = p.clock.peek();
      const a = run.startAttempt({ boundary });
      a.textOutput();
      a.fail(errors.socketDrop());
      run.lifecycleClose({ kind: 'instance_reload', initiatedAt: initiated + 1.5 });
    },
    want: {
      'incident.cause': 'local_lifecycle_close',
      'incident.cause.detail': 'instance_reload',
      'incident.retry_safety': 'do_not_retry',
      'incident.retry_safety.reason': 'local_lifecycle_close',
    },
  },
  {
    row: '22',
    name: 'a user stop mid-stream is cancelled, not an error',
    build: (run) => {
      const a = run.startAttempt({ boundary });
      a.textOutput();
      run.userCancel('user_stop');
    },
    want: {
      'incident.cause': 'user_cancel',
      'incident.cause.detail': 'user_stop',
      'incident.phase': 'text_generation',
      'incident.retry_safety': 'do_not_retry',
      'incident.retry_safety.reason': 'user_cancel',
      'incident.outcome': 'cancelled',
    },
  },
  {
    row: '23',
    name: 'a user stop during retry backoff is cancelled and recovers nothing',
    build: (run) => {
      const a1 = run.startAttempt({ boundary });
      a1.watchdogFired({ phase: 'connect' });
      run.retryIssued(a1, { delayMillis: 1000 });
      run.userCancel('user_stop');
    },
    want: {
      'incident.cause': 'user_cancel',
      'incident.retry_safety': 'do_not_retry',
      'incident.retry_safety.reason': 'user_cancel',
      'incident.outcome': 'cancelled',
      'incident.recovered_attempts': 0,
    },
  },
  {
    row: '24',
    name: 'a request that fails to build is a setup failure',
    build: (run) => {
      run.setupFailure(new Error('could not resolve model'));
    },
    want: {
      'incident.cause': 'request_setup_failure',
      'incident.phase': 'setup',
      'incident.retry_safety': 'unknown',
      'incident.outcome': 'failed',
    },
  },
  {
    row: '25',
    name: 'a tool failure that ends the run stays the cause when a transport error follows',
    build: (run) => {
      const a = run.startAttempt({ boundary });
      a.toolCallMaterialized({ name: 'bash', sideEffects: 'unsafe' });
      run
        .startTool({ name: 'grep', sideEffects: 'read_only', attempt: a })
        .fail(Object.assign(new Error('no such file'), { code: 'ENOENT' }));
      a.fail(errors.socketDrop());
    },
    want: {
      'incident.cause': 'tool_execution_failure',
      'incident.cause.detail': 'environment',
      'incident.retry_safety': 'ask_user_before_retry',
      'incident.retry_safety.reason': 'tool_execution_started',
    },
  },
  {
    row: '26',
    name: '503 twice with a budget of one asks the user',
    build: (run) => {
      const a1 = run.startAttempt({ boundary });
      a1.fail(errors.http(503, 'Service Unavailable', { isRetryable: true }));
      run.retryIssued(a1);
      run.startAttempt({ boundary }).fail(errors.http(503, 'Service Unavailable', { isRetryable: true }));
    },
    want: {
      'incident.cause': 'provider_api_error',
      'incident.cause.detail': 'server_overload',
      'incident.retry_safety': 'ask_user_before_retry',
      'incident.retry_safety.reason': 'retry_budget_exhausted',
      'incident.attempts': 2,
      'incident.error.code': 'http_503',
    },
  },
  {
    row: '27',
    name: '400 insufficient quota is not retryable',
    build: (run) => {
      run.startAttempt({ boundary }).fail(
        errors.http(400, 'You exceeded your current quota', {
          data: { error: { type: 'insufficient_quota' } },
          isRetryable: false,
        }),
      );
    },
    want: {
      'incident.cause': 'provider_api_error',
      'incident.cause.detail': 'quota_exhausted',
      'incident.retry_safety': 'do_not_retry',
      'incident.retry_safety.reason': 'not_retryable_error',
      'incident.retryable': false,
    },
  },
  {
    row: '28',
    name: '429 then success is recovered',
    build: (run) => {
      const a1 = run.startAttempt({ boundary });
      a1.fail(errors.http(429, 'Too Many Requests', { isRetryable: true }));
      run.retryIssued(a1, { delayMillis: 2000 });
      const a2 = run.startAttempt({ boundary });
      a2.textOutput();
      a2.finish();
    },
    want: { 'incident.outcome': 'recovered', 'incident.cause.detail': 'rate_limit', 'incident.recovered_attempts': 1 },
  },
  ...(
    [
      ['stream_error', 'auto_retry', 'stream_error'],
      ['fatal_rpc_error', 'auto_retry', 'fatal_rpc_error'],
      ['exit_nonzero', 'do_not_retry', 'exit_nonzero'],
      [undefined, 'unknown', 'execution_failed'],
    ] as const
  ).map(([closeReason, safety, detail]): Scenario => ({
    row: '29',
    name: `an agent process exit with close reason ${closeReason ?? 'none'} is ${detail} / ${safety}`,
    build: (run) => {
      run.startAttempt({ boundary });
      run.processExit({ exitCode: closeReason === 'exit_nonzero' ? 2 : undefined, closeReason });
    },
    want: { 'incident.cause': 'process_exit', 'incident.cause.detail': detail, 'incident.retry_safety': safety },
  })),
  {
    row: '30',
    name: 'the second failure is decided on the second attempt, not the recovered first',
    build: (run) => {
      const a1 = run.startAttempt({ boundary });
      a1.watchdogFired({ phase: 'connect' });
      run.retryIssued(a1);
      const a2 = run.startAttempt({ boundary });
      a2.textOutput();
      a2.fail(errors.socketDrop());
    },
    want: {
      'incident.retry_safety': 'offer_continue',
      'incident.retry_safety.reason': 'visible_output_without_tool_execution',
      'incident.cause': 'provider_transport_disconnect',
    },
  },
];

describe('public scenarios', () => {
  it.each(scenarios)('row $row: $name', ({ build, want }) => {
    const pipeline = createPipeline();
    const run = pipeline.startRun();
    build(run, pipeline);
    const inProcess = run.end();
    const [exported] = pipeline.runSpans();
    expect(exported, 'the run span is exported').toBeDefined();
    expect(exported?.attributes).toMatchObject(want);
    expect(exported?.attributes['incident.schema_version']).toBe(attributes.SCHEMA_VERSION);
    // One classifier: the runtime's own verdict is exactly what was exported.
    expect(exported?.attributes).toMatchObject(incidentAttributes(inProcess));
  });

  it('row 22: a cancelled run does not get ERROR status even when the host set it, and keeps the error.type the host set', () => {
    const pipeline = createPipeline();
    const run = pipeline.startRun();
    run.startAttempt({ boundary }).textOutput();
    run.userCancel();
    run.span.setStatus({ code: 2, message: 'AbortError: aborted' });
    run.span.setAttribute('error.type', 'AbortError');
    run.end();
    expect(pipeline.runSpans()[0]?.status.code).toBe(0);
    // `error.type` is the instrumentation's (since schema 7): never removed.
    expect(pipeline.runSpans()[0]?.attributes['error.type']).toBe('AbortError');
  });

  it('failed runs get ERROR status and error.type = the cause', () => {
    const pipeline = createPipeline();
    const run = pipeline.startRun();
    run.startAttempt({ boundary }).fail(errors.socketDrop());
    run.end();
    const span = pipeline.runSpans()[0];
    expect(span?.status.code).toBe(2);
    expect(span?.attributes['error.type']).toBe('provider_transport_disconnect');
  });

  it('failed attempts carry their own verdict under incident.attempt.* keys', () => {
    const pipeline = createPipeline();
    const run = pipeline.startRun();
    const a1 = run.startAttempt({ boundary });
    a1.fail(errors.http(503, 'Service Unavailable', { isRetryable: true }));
    run.retryIssued(a1);
    run.startAttempt({ boundary }).finish();
    run.end();
    const attempts = pipeline.spans().filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
    expect(attempts[0]?.attributes).toMatchObject({
      'incident.attempt.number': 1,
      'incident.attempt.cause': 'provider_api_error',
      'incident.attempt.cause.detail': 'server_overload',
      'incident.attempt.retry_safety': 'auto_retry',
      'incident.attempt.error.code': 'http_503',
    });
    expect(attempts[0]?.attributes['incident.cause']).toBeUndefined();
    expect(attempts[1]?.attributes['incident.attempt.cause']).toBeUndefined();
  });

  it('row 31: an attempt still open when its run ends is ended at the run end, exported, marked truncated, and used', () => {
    const pipeline = createPipeline();
    const run = pipeline.startRun();
    const a = run.startAttempt({ boundary });
    a.textOutput();
    run.end();
    const attempt = pipeline.spans().find((s) => s.attributes['gen_ai.operation.name'] === 'chat');
    const runSpan = pipeline.runSpans()[0];
    expect(attempt?.attributes['incident.truncated']).toBe(true);
    expect(attempt?.endTime).toEqual(runSpan?.endTime);
    expect(pipeline.spans().indexOf(attempt!)).toBeLessThan(pipeline.spans().indexOf(runSpan!));
    expect(runSpan?.attributes).toMatchObject({
      'incident.outcome': 'failed',
      'incident.cause': 'unknown_interruption',
      'incident.phase': 'text_generation',
      'incident.retry_safety': 'offer_continue',
      'incident.facts_complete': false,
    });
    expect(runSpan?.attributes['incident.missing_facts']).toContain('open_child_spans');
  });
});

describe('row 32: a run span that never ends', () => {
  it('is finalized at forceFlush as crash_or_restart_incomplete / incomplete, and no state is kept', async () => {
    const pipeline = createPipeline();
    const run = pipeline.startRun();
    run.startAttempt({ boundary });
    await pipeline.provider.forceFlush();
    const span = pipeline.runSpans()[0];
    expect(span?.attributes).toMatchObject({
      'incident.outcome': 'incomplete',
      'incident.cause': 'crash_or_restart_incomplete',
      'incident.cause.detail': 'run_never_ended',
    });
    expect(span?.attributes['incident.missing_facts']).toContain('run_never_ended');
    expect(pipeline.processor.stats()).toMatchObject({ openRuns: 0, trackedSpans: 0, runsFinalizedOpen: 1 });
  });

  it('is finalized at shutdown before the exporter shuts down', async () => {
    const pipeline = createPipeline();
    pipeline.startRun();
    await pipeline.provider.shutdown();
    expect(pipeline.runSpans()[0]?.attributes['incident.outcome']).toBe('incomplete');
  });

  it('is finalized once the processor has tracked it for longer than maxRunAgeMillis', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const pipeline = createPipeline({ maxRunAgeMillis: 60_000 });
      const stale = pipeline.tracer.startSpan('invoke_agent stale', {
        attributes: { 'gen_ai.operation.name': 'invoke_agent' },
      });
      // Two hours pass with the run open: the next span start sweeps it.
      vi.setSystemTime(Date.now() + 2 * 3600_000);
      pipeline.tracer.startSpan('unrelated').end();
      expect(pipeline.runSpans()[0]?.attributes['incident.cause']).toBe('crash_or_restart_incomplete');
      expect(stale.isRecording()).toBe(false);
      expect(pipeline.processor.stats().openRuns).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('is not finalized at once for having started in the past (a retroactive span): its age counts from when the processor saw it', () => {
    const pipeline = createPipeline({ maxRunAgeMillis: 60_000 });
    const run = pipeline.tracer.startSpan('invoke_agent replayed', {
      attributes: { 'gen_ai.operation.name': 'invoke_agent' },
      startTime: Date.now() - 2 * 3600_000,
    });
    pipeline.tracer.startSpan('unrelated').end();
    expect(pipeline.runSpans()).toHaveLength(0);
    run.end();
    expect(pipeline.runSpans()[0]?.attributes['incident.outcome']).toBe('success');
  });
});

describe('row 33: secrets never reach the exporter', () => {
  const secrets = [
    'sk-proj-abcdefghijklmnopqrstuvwxyz123456',
    'alice@example.com',
    '/home/alice',
    'ghp_abcdefghijklmnopqrstuvwxyz0123456789AB',
    'AKIAIOSFODNN7EXAMPLE',
    'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ',
    'hunter2hunter2',
  ];

  it('keeps no secret in any exported span, and UND_ERR_SOCKET survives', () => {
    const pipeline = createPipeline();
    const run = pipeline.startRun();
    run.span.setAttribute(
      'gen_ai.input.messages',
      JSON.stringify([{ role: 'user', content: `my key is ${secrets[0]}` }]),
    );
    run.span.updateName('invoke_agent for alice@example.com');
    const a = run.startAttempt({ boundary });
    a.span.addEvent('debug', { note: `token=hunter2hunter2 at /home/alice/project` });
    a.toolCallMaterialized({ name: 'bash', sideEffects: 'unsafe' });
    const tool = run.startTool({ name: 'bash', sideEffects: 'unsafe', attempt: a });
    tool.span.setAttribute('gen_ai.tool.call.arguments', `{"cmd":"curl -H 'Authorization: ${secrets[5]}'"}`);
    tool.span.setAttribute('ai.request.headers.authorization', secrets[5]!);
    tool.complete();
    const drop = errors.socketDrop();
    drop.message = `terminated while calling https://user:pw@api.example.com/v1?api_key=${secrets[3]} for alice@example.com`;
    drop.stack = `TypeError: ${drop.message}\n    at fetch (/home/alice/project/node_modules/undici/index.js:1:1)\n    at key ${secrets[4]}`;
    a.fail(drop);
    const linked = pipeline.tracer.startSpan(
      'linked',
      { links: [{ context: run.span.spanContext(), attributes: { owner: secrets[1]! } }] },
      run.context,
    );
    linked.setStatus({ code: 2, message: `failed for ${secrets[1]} with ${secrets[0]}` });
    linked.end();
    run.end();

    const exported = JSON.stringify(
      pipeline.spans().map((s) => ({
        name: s.name,
        attributes: s.attributes,
        events: s.events,
        links: s.links.map((l) => l.attributes),
        status: s.status,
      })),
    );
    for (const secret of secrets) expect(exported).not.toContain(secret);
    expect(exported).not.toContain('user:pw');
    const runSpan = pipeline.runSpans()[0];
    expect(runSpan?.attributes['incident.error.code']).toBe('UND_ERR_SOCKET');
    expect(runSpan?.attributes['gen_ai.input.messages']).toBeUndefined();
  });
});

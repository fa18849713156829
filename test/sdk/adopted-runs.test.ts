/**
 * Fold once (docs/attributes.md#fold-once): a run a `RunRecorder` records and folds is taken from
 * the recorder's fold, each span folded once; anything the processor cannot prove equal to what
 * the recorder folded (a span the recorder did not start, an event written behind the recorder's
 * back, another policy or conventions, a run the processor itself ends) is folded by the processor,
 * with the same verdict as if it had folded the run from the start. Real SDK pipelines throughout.
 */
import { context, trace } from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ADAPTERS } from '../../src/conventions/index.js';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import { RunFolder } from '../../src/fold/run-folder.js';
import type { RunRecorder } from '../../src/runtime/run-recorder.js';
import { RunRecorder as Recorder } from '../../src/runtime/run-recorder.js';
import { samePolicy } from '../../src/sdk/adopted-runs.js';
import type { IncidentSpanProcessorOptions } from '../../src/sdk/options.js';
import { IncidentSpanProcessor } from '../../src/sdk/incident-span-processor.js';
import { KeepingExporter } from '../support/keeping-exporter.js';

const SOCKET_DROP = new TypeError('terminated', {
  cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
});

function pipeline(options: IncidentSpanProcessorOptions = {}) {
  const exporter = new KeepingExporter();
  const processor = new IncidentSpanProcessor({ sweepIntervalMillis: 0, ...options });
  const provider = new BasicTracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('unit');
  /** The exported incident.* and error attributes of every span, by span name, in export order. */
  const verdicts = () =>
    exporter.spans.map((s) => [
      s.name,
      Object.fromEntries(Object.entries(s.attributes).filter(([k]) => k.startsWith('incident.') || k === 'error.type')),
      s.status,
    ]);
  return { exporter, processor, tracer, verdicts };
}

/** The standard failing-then-recovered run: a socket drop after text, a retry, three tools, a finish. */
function recoveredRun(run: RunRecorder): void {
  const first = run.startAttempt({ boundary: { tools: [{ name: 'read', sideEffects: 'read_only' }] } });
  first.textOutput();
  first.fail(SOCKET_DROP);
  run.retryIssued(first);
  const second = run.startAttempt({ boundary: { tools: [{ name: 'read', sideEffects: 'read_only' }] } });
  for (let i = 0; i < 3; i += 1) {
    second.toolCallMaterialized({ name: 'read', callId: `c${i}`, sideEffects: 'read_only' });
    run.startTool({ name: 'read', sideEffects: 'read_only', attempt: second }).complete();
  }
  second.finish({ finishReasons: ['stop'], usage: { inputTokens: 10, outputTokens: 5 } });
  run.end();
}

/** A run that fails on a tool: an exception event, an error status and error.type on the tool span. */
function toolFailedRun(run: RunRecorder): void {
  const attempt = run.startAttempt({ boundary: { tools: [{ name: 'bash', sideEffects: 'unsafe' }] } });
  attempt.toolCallMaterialized({ name: 'bash', sideEffects: 'unsafe' });
  run.startTool({ name: 'bash', sideEffects: 'unsafe', attempt }).fail(new Error('exit 1'));
  attempt.finish();
  run.end();
}

/** A run cut off by its end: an attempt and a tool still open, a nested run still open. */
function cutOffRun(run: RunRecorder): void {
  const attempt = run.startAttempt({ boundary: { tools: [{ name: 'delegate', sideEffects: 'read_only' }] } });
  attempt.reasoningOutput();
  run.startTool({ name: 'delegate', sideEffects: 'read_only', attempt });
  context.with(run.context, () => Recorder.start({ agentName: 'child' }).startAttempt().textOutput());
  run.end();
}

const RUNS: readonly [string, (run: RunRecorder) => void][] = [
  ['recovered after a socket drop, with tools', recoveredRun],
  ['failed on a tool', toolFailedRun],
  ['cut off with open spans and a nested run', cutOffRun],
];

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a recorded run is folded once', () => {
  it.each(RUNS)('%s: the processor takes the recorder’s verdicts, folding no span again', (_, play) => {
    const adopting = pipeline();
    const folds = vi.spyOn(RunFolder.prototype, 'end');
    play(Recorder.start({ tracer: adopting.tracer, agentName: 'a' }));
    const spans = adopting.exporter.spans.length;
    expect(folds).toHaveBeenCalledTimes(spans);
    expect(adopting.processor.stats()).toMatchObject({ runsAdopted: 1, runsGivenBack: 0, openRuns: 0 });

    // The same run, the processor folding it itself: every span is folded twice, and the verdicts are the same.
    folds.mockClear();
    const folding = pipeline({ adapters: [...ADAPTERS] });
    play(Recorder.start({ tracer: folding.tracer, agentName: 'a' }));
    expect(folds).toHaveBeenCalledTimes(2 * spans);
    expect(folding.processor.stats()).toMatchObject({ runsAdopted: 0, runsGivenBack: 0 });
    expect(adopting.verdicts()).toEqual(folding.verdicts());
  });
});

describe('what the processor folds itself, with the verdict it would have given from the start', () => {
  const cases: readonly [
    string,
    IncidentSpanProcessorOptions,
    (run: RunRecorder, tracer: ReturnType<typeof trace.getTracer>) => void,
    { adopted: number; givenBack: number },
  ][] = [
    [
      'a span the recorder did not start, under an attempt (an instrumentation’s request span)',
      {},
      (run, tracer) => {
        const attempt = run.startAttempt({ boundary: { tools: [] } });
        tracer.startSpan('POST', {}, trace.setSpan(context.active(), attempt.span)).end();
        attempt.fail(SOCKET_DROP);
        run.end();
      },
      { adopted: 0, givenBack: 1 },
    ],
    [
      'an attribute set on an attempt span directly (the recorder’s fold reads the span’s attributes: it stays adopted)',
      {},
      (run) => {
        const attempt = run.startAttempt({ boundary: { tools: [] } });
        attempt.span.setAttribute('error.type', 'rate_limit');
        attempt.fail(SOCKET_DROP);
        run.end();
      },
      { adopted: 1, givenBack: 0 },
    ],
    [
      'an event the recorder did not write',
      {},
      (run) => {
        const attempt = run.startAttempt({ boundary: { tools: [] } });
        // On the run's clock, as the recorder's own events: the verdict then does not depend on two clocks' order.
        attempt.span.addEvent('agent_incidents.text_output_started', {}, run.now());
        attempt.fail(SOCKET_DROP);
        run.end();
      },
      { adopted: 0, givenBack: 1 },
    ],
    [
      'a span adopted from an instrumentation (its owner may change it)',
      {},
      (run, tracer) => {
        const adopted = run.adoptAttempt(tracer.startSpan('ai.streamText.doStream', {}, run.context));
        adopted.fail(SOCKET_DROP);
        adopted.span.end();
        run.end();
      },
      { adopted: 0, givenBack: 1 },
    ],
    ['a processor with another policy', { policy: { maxAutoRetries: 3 } }, recoveredRun, { adopted: 0, givenBack: 0 }],
    [
      'a processor with the same policy spelled out',
      { policy: { ...DEFAULT_POLICY } },
      recoveredRun,
      { adopted: 1, givenBack: 0 },
    ],
  ];

  it.each(cases)('%s', (_, options, play, counts) => {
    const adopting = pipeline(options);
    play(Recorder.start({ tracer: adopting.tracer, agentName: 'a' }), adopting.tracer);
    expect(adopting.processor.stats()).toMatchObject({ runsAdopted: counts.adopted, runsGivenBack: counts.givenBack });
    const folding = pipeline({ ...options, adapters: [...ADAPTERS] });
    play(Recorder.start({ tracer: folding.tracer, agentName: 'a' }), folding.tracer);
    expect(adopting.verdicts()).toEqual(folding.verdicts());
  });

  it('a run that never ends is ended by the processor at flush, and folded there as before', async () => {
    const adopting = pipeline();
    Recorder.start({ tracer: adopting.tracer, agentName: 'a' })
      .startAttempt({ boundary: { tools: [] } })
      .textOutput();
    await adopting.processor.forceFlush();
    const folding = pipeline({ adapters: [...ADAPTERS] });
    Recorder.start({ tracer: folding.tracer, agentName: 'a' })
      .startAttempt({ boundary: { tools: [] } })
      .textOutput();
    await folding.processor.forceFlush();
    expect(adopting.processor.stats()).toMatchObject({ runsAdopted: 0, runsGivenBack: 1, runsFinalizedOpen: 1 });
    expect(adopting.verdicts()).toEqual(folding.verdicts());
    expect(adopting.verdicts().at(-1)?.[1]).toMatchObject({ 'incident.outcome': 'incomplete' });
  });

  it('adopted runs count against maxOpenRuns: the oldest is evicted and judged alone, evidence_truncated', () => {
    const adopting = pipeline({ maxOpenRuns: 2 });
    const runs = [1, 2, 3].map((i) => Recorder.start({ tracer: adopting.tracer, agentName: `a${i}` }));
    expect(adopting.processor.stats()).toMatchObject({ openRuns: 2, evictedRuns: 1 });
    for (const run of runs) run.end();
    const first = adopting.exporter.spans.find((s) => s.name === 'invoke_agent a1');
    expect(first?.attributes).toMatchObject({ 'incident.outcome': 'incomplete' });
    expect(first?.attributes['incident.missing_facts']).toContain('evidence_truncated');
    expect(adopting.processor.stats()).toMatchObject({ runsAdopted: 2, openRuns: 0 });
  });
});

describe('samePolicy', () => {
  it.each([
    ['the defaults and a copy', DEFAULT_POLICY, { ...DEFAULT_POLICY }, true],
    [
      'equal lists',
      { ...DEFAULT_POLICY, trustedReadOnlyTools: ['a'] },
      { ...DEFAULT_POLICY, trustedReadOnlyTools: ['a'] },
      true,
    ],
    [
      'lists that differ',
      { ...DEFAULT_POLICY, trustedReadOnlyTools: ['a'] },
      { ...DEFAULT_POLICY, trustedReadOnlyTools: ['b'] },
      false,
    ],
    ['a different option', DEFAULT_POLICY, { ...DEFAULT_POLICY, missingBoundary: 'assume_complete' as const }, false],
  ])('%s → %s', (_, a, b, same) => {
    expect(samePolicy(a, b)).toBe(same);
  });
});

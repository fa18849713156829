/**
 * The gateway's judge: a received trace gets the verdict the SDK processor
 * gives, keeps its ids, times, resource and scope, and a run whose span never
 * arrived still gets an incident, written on the topmost span that did.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { describe, expect, it } from 'vitest';
import { judgeTrace } from '../../src/gateway/judge-trace.js';
import { ReleasedRuns } from '../../src/gateway/released-runs.js';
import { ResourceCache } from '../../src/gateway/resource-cache.js';
import type { DecodedSpan } from '../../src/otlp/otlp-json-spans.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { createSanitizer } from '../../src/sanitize/sanitizer.js';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import type { Incident, RunRecorder } from '../../src/index.js';
import { incidentAttributes } from '../../src/index.js';
import { createTask, recoveryContext, safeRetry } from '../../src/recovery/index.js';
import { createPipeline, errors, LOCAL_TOOLS } from '../support/harness.js';

const sanitizer = createSanitizer();
const options = {
  policy: DEFAULT_POLICY,
  sanitizer,
  resources: new ResourceCache(sanitizer),
  released: new ReleasedRuns(60_000),
};
const folder = { fold: async (spans: readonly DecodedSpan[]) => judgeTrace(spans, options, Date.now()) };

const fixture = (name: string) =>
  decodeOtlpJsonSpans(
    JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'traces', `${name}.otlp.json`), 'utf8')),
  );

/** A trace recorded by RunRecorder, as an OTLP/JSON request, without the processor (raw spans). */
async function recordedTrace(
  build: (run: ReturnType<ReturnType<typeof createPipeline>['startRun']>) => void | Promise<void>,
) {
  const pipeline = createPipeline({ sanitization: { mode: 'off' } });
  const run = pipeline.startRun();
  await build(run);
  run.end();
  await pipeline.provider.forceFlush();
  const json = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(pipeline.spans()));
  const stripped = JSON.parse(json) as unknown;
  return decodeOtlpJsonSpans(stripped).map((span) => {
    // Received spans carry no verdict of their own.
    const attributes = Object.fromEntries(
      Object.entries(span.attributes).filter(([key]) => !key.startsWith('incident.') && key !== 'error.type'),
    );
    return {
      ...span,
      attributes,
      statusCode: span.name.startsWith('invoke_agent') ? 0 : span.statusCode,
      statusMessage: span.name.startsWith('invoke_agent') ? undefined : span.statusMessage,
    };
  });
}

describe('judgeTrace', () => {
  it('gives a recorded AI SDK 7 trace the verdict the processor gives, with its own ids and resource', async () => {
    const spans = fixture('ai-sdk-7-otel/socket-drop-after-text');
    const { spans: out, outcomes } = await folder.fold(spans);
    expect(out.map((s) => s.spanContext().spanId).sort()).toEqual(spans.map((s) => s.spanId).sort());
    expect(out.every((s) => s.spanContext().traceId === spans[0]?.traceId)).toBe(true);
    expect(outcomes).toMatchObject([{ outcome: 'failed', cause: 'provider_transport_disconnect' }]);
    expect(out[0]?.resource.attributes['service.name']).toBe('ai-sdk-7-recorder');
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    for (const span of out) {
      expect(span.parentSpanContext?.spanId).toBe(byId.get(span.spanContext().spanId)?.parentSpanId);
      expect(span.instrumentationScope.name).toBe('gen_ai');
    }
  });

  it('judges a run whose run span never arrived as a crash, on the topmost span that did, without exporting a stand-in', async () => {
    const spans = await recordedTrace((run) => {
      const attempt = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
      attempt.textOutput();
      attempt.finish();
      run.startTool({ name: 'bash', sideEffects: 'unsafe', attempt }).complete();
    });
    const withoutRun = spans.filter((s) => !s.name.startsWith('invoke_agent'));
    const { spans: out, outcomes } = await folder.fold(withoutRun);
    expect(out).toHaveLength(withoutRun.length);
    expect(outcomes).toMatchObject([{ outcome: 'incomplete', cause: 'crash_or_restart_incomplete' }]);
    const judged = out.filter((s) => s.attributes['incident.outcome'] !== undefined);
    expect(judged).toHaveLength(1);
    expect(judged[0]?.name.startsWith('chat')).toBe(true);
    expect(judged[0]?.attributes).toMatchObject({
      'incident.cause.detail': 'run_never_ended',
      'incident.side_effects': 'unsafe',
    });
    expect(judged[0]?.attributes['incident.missing_facts']).toContain('run_never_ended');
  });

  it('folds what a recovery strategy did exactly as the runtime recorded it, links included', async () => {
    let inProcess: Incident | undefined;
    const spans = await recordedTrace(async (run) => {
      const first = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
      first.watchdogFired({ phase: 'connect' });
      const action = await safeRetry({ baseDelayMillis: 1, maxDelayMillis: 1 }).recover(
        recoveryContext(run, createTask('g', 'IN_PROGRESS')),
      );
      expect(action.kind).toBe('retry');
      const second = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
      second.textOutput();
      second.finish();
      inProcess = run.incident();
    });
    const { spans: out } = await folder.fold(spans);
    const runSpan = out.find((s) => s.name.startsWith('invoke_agent'))!;
    const own = incidentAttributes(inProcess!);
    expect(Object.fromEntries(Object.keys(own).map((key) => [key, runSpan.attributes[key]]))).toEqual(own);
    expect(runSpan.attributes['incident.recovery.action']).toBe('retry');
    const retry = out.find((s) => s.attributes['agent_incidents.retry.of_attempt'] === 1)!;
    expect(retry.links.map((l) => l.attributes?.['agent_incidents.link.type'])).toEqual(['retry_of']);
  });

  it('keeps the cause of a crashed run that failed before it died', async () => {
    const spans = await recordedTrace((run) => {
      const attempt = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
      attempt.textOutput();
      attempt.fail(errors.socketDrop());
    });
    const { outcomes } = await folder.fold(spans.filter((s) => !s.name.startsWith('invoke_agent')));
    expect(outcomes).toMatchObject([{ outcome: 'incomplete', cause: 'provider_transport_disconnect' }]);
  });
});

describe('judgeTrace on spans an SDK processor already judged', () => {
  it('keeps the verdict they arrived with: the processor saw the run in process', async () => {
    // A run the SDK processor finalized as never ended (the agent kept it open until shutdown).
    const pipeline = createPipeline();
    const run = pipeline.startRun();
    const attempt = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
    attempt.textOutput();
    await pipeline.provider.forceFlush();
    const json = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(pipeline.spans()));
    const spans = decodeOtlpJsonSpans(JSON.parse(json));
    expect(spans.find((s) => s.name.startsWith('invoke_agent'))?.attributes['incident.cause']).toBe(
      'crash_or_restart_incomplete',
    );
    const { spans: out, outcomes } = await folder.fold(spans);
    expect(outcomes).toMatchObject([{ outcome: 'incomplete', cause: 'crash_or_restart_incomplete' }]);
    const runSpan = out.find((s) => s.name.startsWith('invoke_agent'));
    expect(runSpan?.attributes['incident.missing_facts']).toContain('run_never_ended');
    void attempt;
  });
});

describe("judgeTrace hands back what each run lost, for the gateway's lost-usage counters", () => {
  it.each<[string, boolean]>([
    ['judged here', false],
    ['judged upstream by the SDK processor (a whole-dollar cost arrives as an OTLP double)', true],
  ])('a run %s: its retry safety and lost figures, as its span carries them', async (_, prejudged) => {
    const build = (run: RunRecorder): void => {
      const attempt = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
      attempt.usage({ inputTokens: 700, outputTokens: 30, costUsd: 1 });
      attempt.textOutput();
      attempt.fail(errors.socketDrop());
    };
    let spans: DecodedSpan[];
    if (prejudged) {
      const pipeline = createPipeline();
      const run = pipeline.startRun();
      build(run);
      run.end();
      await pipeline.provider.forceFlush();
      spans = decodeOtlpJsonSpans(
        JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(pipeline.spans()))),
      );
    } else spans = await recordedTrace(build);
    const { outcomes } = await folder.fold(spans);
    expect(outcomes).toEqual([
      {
        outcome: 'failed',
        cause: 'provider_transport_disconnect',
        retrySafety: 'offer_continue',
        lost: { inputTokens: 700, outputTokens: 30, costUsd: 1, lowerBound: false },
      },
    ]);
  });

  it('a run whose attempts all made its answer: no lost figures', async () => {
    const spans = await recordedTrace((run) => {
      const attempt = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
      attempt.textOutput();
      attempt.finish();
    });
    const { outcomes } = await folder.fold(spans);
    expect(outcomes).toEqual([{ outcome: 'success', cause: undefined, retrySafety: undefined }]);
  });
});

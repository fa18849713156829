/**
 * runsOfTrace (src/report/trace-runs.ts), the runs of one trace part, on real OTLP/JSON: runs recorded by RunRecorder
 * on a real tracer provider, exported raw, through the processor, or through the gateway's judge. docs/cli.md,
 * `report`, "Verdicts": a run whose span carries a verdict keeps it (`file`); a run without one is folded here to the
 * processor's verdict (`folded`), and as if its evidence was cut off when the trace was judged early (never
 * `success`); parts whose run span has not come are judged under a stand-in keyed by the missing run span; a run span
 * that comes in a later part replaces a verdict made up here, and a run counted from the file is counted once,
 * whatever comes later. Times: a start a Date cannot hold is left out, and a run that never ended has no duration.
 *
 * The gateway's corrections (`incident.verdict_revision` spans, docs/gateway.md#late-parts): the highest revision is
 * the run's one verdict, replacing the one counted for it, in the same part or an earlier one.
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import type { ForwardedSpan } from '../../src/gateway/forwarded-span.js';
import { judgeTrace } from '../../src/gateway/judge-trace.js';
import { ReleasedRuns } from '../../src/gateway/released-runs.js';
import { ResourceCache } from '../../src/gateway/resource-cache.js';
import { RevisableTraces } from '../../src/gateway/revisable-traces.js';
import { hrTimeToMillis } from '../../src/model/hr-time.js';
import { encodeTraceRequestJson } from '../../src/otlp/otlp-encode.js';
import type { DecodedSpan } from '../../src/otlp/otlp-json-spans.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import type { ReportSpan } from '../../src/report/report-span.js';
import { reportSpanOf } from '../../src/report/report-span.js';
import type { EarlierParts, TraceRuns } from '../../src/report/trace-runs.js';
import { runsOfTrace } from '../../src/report/trace-runs.js';
import { createSanitizer } from '../../src/sanitize/sanitizer.js';
import { dropsAfterBash, gateway, isRunSpan, lineOf, readsThenAnswers, recordRun } from './otlp-lines.js';

/** A trace part as `report` holds it, from exported spans; `edit` changes the decoded spans first. */
function part(spans: readonly ReadableSpan[], edit: (span: DecodedSpan) => DecodedSpan = (s) => s): ReportSpan[] {
  return fromLine(lineOf(spans), edit);
}
function fromLine(line: string, edit: (span: DecodedSpan) => DecodedSpan = (s) => s): ReportSpan[] {
  return decodeOtlpJsonSpans(JSON.parse(line)).map(edit).map(reportSpanOf);
}

/** What a later part must know of `judged`, as the report builder remembers it. */
function remembered(judged: TraceRuns): EarlierParts {
  return {
    counted: new Map(
      judged.runs.map((r) => [r.key, { madeUp: r.run.source === 'folded', standIn: r.standIn, revision: r.revision }]),
    ),
    runOf: judged.runOf,
    standIns: new Set(judged.standIns),
    nested: judged.nested,
  };
}

const idOf = (span: ReadableSpan): string => span.spanContext().spanId;
const runSpanOf = (spans: readonly ReadableSpan[]): ReadableSpan => spans.find(isRunSpan)!;
const verdict = (judged: TraceRuns) => judged.runs.map((r) => [r.run.outcome, r.run.cause ?? '', r.run.source]);

const FAILED = {
  outcome: 'failed',
  cause: 'provider_transport_disconnect',
  causeDetail: 'socket_closed',
  phase: 'text_generation',
  retrySafety: 'offer_continue',
  sideEffects: 'unsafe',
  provider: 'openai',
  agentName: 'test-agent',
  serviceName: 'report-test',
};

describe('a run in one part', () => {
  it.each([
    ['carries the processor’s verdict: kept as it is', true, 'file', 0],
    ['carries no verdict: folded here to the same verdict', false, 'folded', 1],
  ] as const)('%s', async (_case, processor, source, folded) => {
    const spans = await recordRun(dropsAfterBash, { processor });
    const run = runSpanOf(spans);
    const judged = runsOfTrace(part(spans));
    expect(judged.runs).toHaveLength(1);
    expect(judged.runs[0]).toMatchObject({ key: idOf(run), standIn: false, replaces: [] });
    expect(judged.runs[0]!.run).toMatchObject({
      ...FAILED,
      source,
      traceId: run.spanContext().traceId,
      spanId: idOf(run),
      startUnixMillis: Math.floor(hrTimeToMillis(run.startTime)),
      durationMillis: hrTimeToMillis(run.endTime) - hrTimeToMillis(run.startTime),
    });
    expect(judged.folded).toBe(folded);
    expect([...judged.runOf.values()].every((key) => key === idOf(run))).toBe(true);
    expect(judged.runOf.size).toBe(spans.length);
  });

  it.each([
    ['a run folded here', 'success', false, false],
    ['a run folded here from a trace judged early (as if its evidence was cut off)', 'incomplete', false, true],
    ['a verdict from the file, even judged early,', 'success', true, true],
  ] as const)('%s reads %s', async (_case, outcome, processor, cautious) => {
    const judged = runsOfTrace(part(await recordRun(readsThenAnswers, { processor })), { cautious });
    expect(judged.runs.map((r) => r.run.outcome)).toEqual([outcome]);
  });

  it('the timeline lists its attempts and tools in start order, the run broken on the failed attempt', async () => {
    const judged = runsOfTrace(part(await recordRun(dropsAfterBash)));
    expect(judged.runs[0]!.timeline().map((item) => [item.kind, item.status, item.broke])).toEqual([
      ['attempt', 'ok', false],
      ['tool', 'ok', false],
      ['attempt', 'error', true],
    ]);
  });

  it('a start a Date cannot hold is left out, not shown as a wrong date', async () => {
    const spans = await recordRun(readsThenAnswers, { processor: true });
    const far = (s: DecodedSpan) => (s.spanId === idOf(runSpanOf(spans)) ? { ...s, startTimeUnixNano: 10n ** 25n } : s);
    const [run] = runsOfTrace(part(spans, far)).runs;
    expect(run!.run.outcome).toBe('success');
    expect(run!.run.startUnixMillis).toBeUndefined();
  });
});

describe('parts whose run span has not come', () => {
  it('are judged under a stand-in keyed by the missing run span, carried by the topmost span that came', async () => {
    const spans = await recordRun(readsThenAnswers);
    const runId = idOf(runSpanOf(spans));
    const parts = spans.filter((s) => !isRunSpan(s));
    const judged = runsOfTrace(part(parts));
    expect(judged.runs).toHaveLength(1);
    const [run] = judged.runs;
    expect([run!.key, run!.standIn, judged.standIns]).toEqual([runId, true, [runId]]);
    expect(parts.filter((s) => s.parentSpanContext?.spanId === runId).map(idOf)).toContain(run!.run.spanId);
    expect(run!.run).toMatchObject({ outcome: 'incomplete', cause: 'crash_or_restart_incomplete', source: 'folded' });
    // It never ended: no duration.
    expect(run!.run.durationMillis).toBeUndefined();
    expect(Object.fromEntries(judged.runOf)).toEqual(
      Object.fromEntries([...parts.map((s) => [idOf(s), runId]), [runId, runId]]),
    );
  });

  it.each([
    [
      'without a verdict: judged as evidence cut off, never success',
      false,
      ['incomplete', 'unknown_interruption', 'folded'],
    ],
    ['with the processor’s verdict: that verdict', true, ['success', '', 'file']],
  ] as const)('a run span that comes later %s, replacing the stand-in', async (_case, processor, expected) => {
    const spans = await recordRun(readsThenAnswers, { processor });
    const runId = idOf(runSpanOf(spans));
    const first = runsOfTrace(part(spans.filter((s) => !isRunSpan(s))));
    const later = runsOfTrace(part([runSpanOf(spans)]), { earlier: remembered(first) });
    expect(verdict(later)).toEqual([expected]);
    expect(later.runs[0]).toMatchObject({ key: runId, replaces: [runId], standIn: false });
  });

  it('the spans of a run counted from the file are not a run of their own when they come later', async () => {
    const spans = await recordRun(dropsAfterBash, { processor: true });
    const run = runSpanOf(spans);
    const first = runsOfTrace(part([run]));
    const later = runsOfTrace(part(spans.filter((s) => !isRunSpan(s))), { earlier: remembered(first) });
    expect([later.runs, later.folded]).toEqual([[], 0]);
    expect([...later.runOf.values()].every((key) => key === idOf(run))).toBe(true);
  });
});

/** The gateway's judge, remembering what it judged and keeping traces judged early for a correction. */
function gatewayJudge() {
  const sanitizer = createSanitizer();
  const options = {
    policy: DEFAULT_POLICY,
    sanitizer,
    resources: new ResourceCache(sanitizer),
    released: new ReleasedRuns(600_000),
    revisable: new RevisableTraces(),
  };
  const line = (spans: readonly ForwardedSpan[]) => new TextDecoder().decode(encodeTraceRequestJson(spans));
  const decoded = (spans: readonly ReadableSpan[]) => decodeOtlpJsonSpans(JSON.parse(lineOf(spans)));
  return {
    /** Judged while a refused sender may still bring a part: at best incomplete, kept for a correction. */
    early: (spans: readonly ReadableSpan[], now: number) =>
      line(judgeTrace(decoded(spans), options, now, true, now + 10_000).spans),
    /** A late part: folded with what was kept; a changed verdict goes out as a revision span. */
    late: (spans: readonly ReadableSpan[], now: number) => line(judgeTrace(decoded(spans), options, now).spans),
  };
}

describe('runs the gateway forwarded in two parts', () => {
  it('a crash verdict on the topmost span, then the run span judged again: one run, the crash verdict', async () => {
    const forward = gateway();
    const spans = await recordRun(dropsAfterBash);
    const run = runSpanOf(spans);
    const [crash, late] = [forward(spans.filter((s) => !isRunSpan(s))), forward([run])];
    // Two verdicts in the file: the stand-in's on the topmost span, and the run span's judged alone.
    expect(fromLine(late).find((s) => s.judged)?.view.attributes['incident.missing_facts']).toEqual([
      'evidence_truncated',
    ]);
    const first = runsOfTrace(fromLine(crash));
    expect(verdict(first)).toEqual([['incomplete', 'provider_transport_disconnect', 'file']]);
    expect(first.runs[0]!.key).toBe(idOf(run));
    const later = runsOfTrace(fromLine(late), { earlier: remembered(first) });
    expect(later.runs).toEqual([]);
    // Held together in one part, the run is counted once too: with the verdict read first.
    const together = runsOfTrace([...fromLine(crash), ...fromLine(late)]);
    expect(verdict(together)).toEqual([['incomplete', 'provider_transport_disconnect', 'file']]);
  });

  /** A failed run whose second attempt reached the gateway after the rest was judged early. */
  async function correctedRun() {
    const spans = await recordRun(dropsAfterBash);
    const lastAttempt = spans.filter((s) => s.name.startsWith('chat')).at(-1)!;
    const judge = gatewayJudge();
    const now = Date.now();
    const early = judge.early(
      spans.filter((s) => s !== lastAttempt),
      now,
    );
    const late = judge.late([lastAttempt], now + 1);
    return { early, late, runId: idOf(runSpanOf(spans)) };
  }

  it('the gateway corrects a verdict judged early with a revision span under the run span', async () => {
    const { early, late, runId } = await correctedRun();
    expect(verdict(runsOfTrace(fromLine(early)))).toEqual([['incomplete', 'unknown_interruption', 'file']]);
    const revision = fromLine(late).find((s) => s.view.name === 'incident.verdict_revision')!;
    expect([revision.view.parentSpanId, revision.view.attributes['incident.revision.of']]).toEqual([runId, runId]);
    expect(revision.view.attributes['incident.outcome']).toBe('failed');
  });

  it('a revision in a later part replaces the run’s verdict: one run, failed', async () => {
    const { early, late, runId } = await correctedRun();
    const first = runsOfTrace(fromLine(early));
    const later = runsOfTrace(fromLine(late), { earlier: remembered(first) });
    expect(verdict(later)).toEqual([['failed', 'provider_transport_disconnect', 'file']]);
    expect(later.runs[0]).toMatchObject({ key: runId, replaces: [runId] });
  });

  it('a revision held in the same part as the run span: one run, failed', async () => {
    const { early, late } = await correctedRun();
    expect(verdict(runsOfTrace([...fromLine(early), ...fromLine(late)]))).toEqual([
      ['failed', 'provider_transport_disconnect', 'file'],
    ]);
  });

  it('a lower revision that comes after a higher one changes nothing', async () => {
    const { early, late } = await correctedRun();
    const renumber = (n: number) => (span: DecodedSpan) =>
      span.attributes['incident.revision.number'] === undefined
        ? span
        : { ...span, attributes: { ...span.attributes, 'incident.revision.number': n, 'incident.outcome': `r${n}` } };
    const first = runsOfTrace([...fromLine(early), ...fromLine(late, renumber(2))]);
    expect(verdict(first)).toEqual([['r2', 'provider_transport_disconnect', 'file']]);
    expect(runsOfTrace(fromLine(late, renumber(1)), { earlier: remembered(first) }).runs).toEqual([]);
  });
});

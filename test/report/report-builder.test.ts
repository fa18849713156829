/**
 * The streaming report builder's promises on real OTLP/JSON lines: memory
 * bounded by its window whatever the input, counts over every run while only
 * the most recent incidents are listed, and the same runs as the all-at-once
 * reading when the window holds everything.
 */
import { describe, expect, it } from 'vitest';
import { runRowsFromOtlpJsonLines } from '../../src/report/otlp-json.js';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import { judgeTrace } from '../../src/gateway/judge-trace.js';
import { ReleasedRuns } from '../../src/gateway/released-runs.js';
import { ResourceCache } from '../../src/gateway/resource-cache.js';
import { RevisableTraces } from '../../src/gateway/revisable-traces.js';
import { encodeTraceRequestJson } from '../../src/otlp/otlp-encode.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { ReportBuilder } from '../../src/report/report-builder.js';
import { createSanitizer } from '../../src/sanitize/sanitizer.js';
import {
  dropsAfterBash,
  dropsAfterBashUsing,
  fixtureLines,
  gateway,
  isRunSpan,
  lineOf,
  readsThenAnswers,
  recordRun,
} from './otlp-lines.js';
import { lostFigures } from './report-fixtures.js';

/** `n` lines of one recorded run under fresh trace ids. */
function copies(line: string, n: number): string[] {
  const traceId = /"traceId":"([0-9a-f]{32})"/.exec(line)![1]!;
  return Array.from({ length: n }, (_, i) => line.replaceAll(traceId, `c${(i + 1).toString(16).padStart(31, '0')}`));
}

describe('ReportBuilder', () => {
  it('never holds more spans than its window, however long the input', async () => {
    // Raw traces split in two parts: every trace waits for its run span.
    const spans = await recordRun(dropsAfterBash);
    const parts = copies(lineOf(spans.filter((s) => !isRunSpan(s))), 400);
    const builder = new ReportBuilder({ maxSpans: 50, idleLines: 1_000_000 });
    let most = 0;
    for (const line of parts) {
      builder.addLine(line);
      most = Math.max(most, builder.heldSpans);
    }
    expect(most).toBeLessThanOrEqual(50);
    const report = builder.finish();
    expect(builder.heldSpans).toBe(0);
    expect(report.runs).toBe(400);
    expect(report.window.tracesJudgedEarly).toBeGreaterThan(300);
    // Judged without their run span (it never came): incomplete, never success.
    expect(report.byOutcome.map(([o]) => o)).toEqual(['incomplete']);
  });

  it('counts every run and lists at most --limit incidents, most recent first', async () => {
    const failed = copies(lineOf(await recordRun(dropsAfterBash, { processor: true })), 300);
    const ok = copies(lineOf(await recordRun(readsThenAnswers, { processor: true })), 100).map((l) =>
      l.replaceAll('"c0', '"d0'),
    );
    const builder = new ReportBuilder({ limit: 7 });
    for (const line of [...failed, ...ok]) builder.addLine(line);
    const report = builder.finish();
    expect(report.runs).toBe(400);
    expect(report.byOutcome).toEqual([
      ['failed', 300],
      ['success', 100],
    ]);
    expect(report.incidents).toHaveLength(7);
    expect(report.incidentsOmitted).toBe(293);
    const starts = report.incidents.map((r) => r.startUnixMillis ?? 0);
    expect(starts).toEqual([...starts].sort((a, b) => b - a));
  });

  it('gives the all-at-once rows when the window holds the whole input', () => {
    const lines = fixtureLines();
    const rows: unknown[] = [];
    const builder = new ReportBuilder({ onRun: (run) => rows.push(run.outcome + ' ' + (run.cause ?? '')) });
    for (const line of lines) builder.addLine(line);
    builder.finish();
    expect(rows).toEqual(runRowsFromOtlpJsonLines(lines.join('\n')).map((r) => r.outcome + ' ' + (r.cause ?? '')));
  });

  it.each([
    [
      'every attempt reported its usage: exact',
      true,
      lostFigures({ runs: 1, attempts: 2, inputTokens: 2700, outputTokens: 120, costUsd: 0.01, costRuns: 1 }),
    ],
    [
      'the dropped attempt reported input tokens only: a floor',
      false,
      lostFigures({
        runs: 1,
        attempts: 2,
        inputTokens: 2700,
        outputTokens: 80,
        costUsd: 0.004,
        costRuns: 1,
        lowerBoundRuns: 1,
        lowerBound: true,
      }),
    ],
  ])(
    'sums the same lost usage from the processor’s verdict, the gateway’s and a run folded here (%s)',
    async (_case, whole, total) => {
      const raw = await recordRun(dropsAfterBashUsing(whole));
      const processed = await recordRun(dropsAfterBashUsing(whole), { processor: true });
      const sources = { file: lineOf(processed), gateway: gateway()(raw), folded: lineOf(raw) };
      for (const [source, line] of Object.entries(sources)) {
        const builder = new ReportBuilder();
        builder.addLine(line);
        const report = builder.finish();
        expect(report.folded, source).toBe(source === 'folded' ? 1 : 0);
        expect(report.lost.total, source).toEqual(total);
        expect(
          report.lost.byCause.map((g) => [g.value, g.runs, g.inputTokens]),
          source,
        ).toEqual([['provider_transport_disconnect', 1, 2700]]);
        expect(
          report.lost.byRetrySafety.map((g) => [g.value, g.runs]),
          source,
        ).toEqual([['offer_continue', 1]]);
        expect(report.incidents[0]?.lost, source).toEqual({
          attempts: 2,
          inputTokens: 2700,
          outputTokens: total.outputTokens,
          costUsd: total.costUsd,
          lowerBound: total.lowerBound,
        });
      }
    },
  );

  it('does not count a run’s lost usage twice when the gateway revised its verdict', async () => {
    const spans = await recordRun(dropsAfterBashUsing(true));
    const last = spans.filter((s) => s.name.startsWith('chat')).at(-1)!;
    const sanitizer = createSanitizer();
    const options = {
      policy: DEFAULT_POLICY,
      sanitizer,
      resources: new ResourceCache(sanitizer),
      released: new ReleasedRuns(600_000),
      revisable: new RevisableTraces(),
    };
    const judge = (part: typeof spans, now: number, early: boolean) =>
      new TextDecoder().decode(
        encodeTraceRequestJson(
          judgeTrace(decodeOtlpJsonSpans(JSON.parse(lineOf(part))), options, now, early, now + 10_000).spans,
        ),
      );
    const now = Date.now();
    // Judged while a refused sender may still bring a part, then corrected when the last attempt comes.
    const early = judge(
      spans.filter((s) => s !== last),
      now,
      true,
    );
    const late = judge([last], now + 1, false);
    expect(late).toContain('incident.verdict_revision');
    expect(late).toContain('incident.lost.attempts');
    const builder = new ReportBuilder();
    builder.addLine(early);
    builder.addLine(late);
    const report = builder.finish();
    // One run, with the revision's verdict and figures (the last attempt's usage now counted too).
    expect(report.runs).toBe(1);
    expect(report.lost.total.runs).toBe(1);
    expect(report.byOutcome).toEqual([['failed', 1]]);
  });

  it('takes a verdict made up here out of the lost usage when the file’s verdict for the same run comes later', async () => {
    const spans = await recordRun(dropsAfterBashUsing(true), { processor: true });
    let replaced = 0;
    const builder = new ReportBuilder({ idleLines: 1, onRunReplaced: () => (replaced += 1) });
    // The run's parts first: judged under a stand-in (its run span has not come), as evidence cut off.
    builder.addLine(lineOf(spans.filter((s) => !isRunSpan(s))));
    builder.addLine(lineOf(await recordRun(readsThenAnswers, { processor: true })));
    builder.addLine(lineOf(spans.filter(isRunSpan)));
    const report = builder.finish();
    expect([report.runs, report.folded, replaced]).toEqual([2, 0, 1]);
    expect(report.lost.total).toEqual(
      lostFigures({ runs: 1, attempts: 2, inputTokens: 2700, outputTokens: 120, costUsd: 0.01, costRuns: 1 }),
    );
    expect(report.lost.byCause.map((g) => [g.value, g.runs])).toEqual([['provider_transport_disconnect', 1]]);
  });
});

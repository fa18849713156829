/**
 * The streaming report builder's promises on real OTLP/JSON lines: memory
 * bounded by its window whatever the input, counts over every run while only
 * the most recent incidents are listed, and the same runs as the all-at-once
 * reading when the window holds everything.
 */
import { describe, expect, it } from 'vitest';
import { runRowsFromOtlpJsonLines } from '../../src/report/otlp-json.js';
import { ReportBuilder } from '../../src/report/report-builder.js';
import { dropsAfterBash, fixtureLines, isRunSpan, lineOf, readsThenAnswers, recordRun } from './otlp-lines.js';

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
});

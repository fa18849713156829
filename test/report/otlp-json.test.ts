/** Run rows read back from OTLP/JSON lines all at once (src/report/otlp-json.ts): verdicts in the file, runs folded here, a run counted once, bad lines named. */
import { describe, expect, it } from 'vitest';
import { OtlpJsonError, runRowsFromOtlpJsonLines } from '../../src/report/otlp-json.js';
import { dropsAfterBash, gateway, isRunSpan, lineOf, readsThenAnswers, recordRun } from './otlp-lines.js';

const DROPPED = {
  outcome: 'failed',
  cause: 'provider_transport_disconnect',
  causeDetail: 'socket_closed',
  phase: 'text_generation',
  retrySafety: 'offer_continue',
  provider: 'openai',
  // Both attempts reported no usage: lost, counted as a floor.
  lost: { attempts: 2, inputTokens: 0, outputTokens: 0, lowerBound: true },
};

/** The trace id of the first span of an OTLP/JSON line. */
function traceOf(line: string): string {
  return /"traceId":"([0-9a-f]{32})"/.exec(line)![1]!;
}

describe('runRowsFromOtlpJsonLines', () => {
  it('reads the verdict a span carries, one row per run, blank lines skipped', async () => {
    const failed = lineOf(await recordRun(dropsAfterBash, { processor: true }));
    const ok = lineOf(await recordRun(readsThenAnswers, { processor: true }));
    const rows = runRowsFromOtlpJsonLines(`${failed}\n\n   \n${ok}\n`);
    expect(rows).toEqual([
      { ...DROPPED, traceId: traceOf(failed), spanId: expect.stringMatching(/^[0-9a-f]{16}$/), source: 'file' },
      {
        outcome: 'success',
        provider: 'openai',
        traceId: traceOf(ok),
        spanId: expect.stringMatching(/^[0-9a-f]{16}$/),
        source: 'file',
      },
    ]);
  });

  it('folds a run that carries no verdict to the same verdict the processor would write', async () => {
    const raw = lineOf(await recordRun(dropsAfterBash));
    expect(runRowsFromOtlpJsonLines(raw)).toEqual([
      { ...DROPPED, traceId: traceOf(raw), spanId: expect.any(String), source: 'folded' },
    ]);
  });

  it('joins the spans of a trace spread over lines, whatever their order', async () => {
    const spans = await recordRun(dropsAfterBash);
    const run = spans.filter(isRunSpan);
    const rest = spans.filter((s) => !isRunSpan(s));
    const rows = runRowsFromOtlpJsonLines([lineOf(run), lineOf(rest.slice(0, 1)), lineOf(rest.slice(1))].join('\n'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ ...DROPPED, source: 'folded', spanId: run[0]!.spanContext().spanId });
  });

  it('counts a run once when the gateway wrote a crash verdict on its topmost span and its run span came later', async () => {
    const forward = gateway();
    const spans = await recordRun(dropsAfterBash);
    const run = spans.filter(isRunSpan);
    const lines = [forward(spans.filter((s) => !isRunSpan(s))), forward(run)];
    const rows = runRowsFromOtlpJsonLines(lines.join('\n'));
    // Two verdicts in the file (the stand-in's and the run span's), one row.
    expect(lines.map((l) => l.includes('"incident.outcome"'))).toEqual([true, true]);
    expect(rows.map((r) => [r.traceId, r.source])).toEqual([[run[0]!.spanContext().traceId, 'file']]);
  });

  it('gives no rows for no input and for requests without spans', () => {
    expect(runRowsFromOtlpJsonLines('')).toEqual([]);
    expect(runRowsFromOtlpJsonLines('{"resourceSpans":[]}\n\n{"resourceSpans":[]}\n')).toEqual([]);
  });

  it.each([
    ['not JSON', '{"resourceSpans":[]}\nnot json', 2],
    ['JSON that is not a request', '\n\n[1,2,3]', 3],
  ])('throws an OtlpJsonError naming the bad line: %s', (_, input, line) => {
    let thrown: unknown;
    try {
      runRowsFromOtlpJsonLines(input);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(OtlpJsonError);
    expect((thrown as OtlpJsonError).line).toBe(line);
    expect((thrown as Error).message.startsWith(`line ${line}: `)).toBe(true);
  });
});

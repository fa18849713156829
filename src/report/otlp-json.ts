/**
 * Reads run incidents back out of OTLP/JSON (`ExportTraceServiceRequest`, one
 * per line, as `agent-incidents demo --out` writes them), all at once: for
 * tests and small inputs. `report` streams with {@link ReportBuilder} instead;
 * this is the same builder with a window that holds the whole input. Pure:
 * text in, rows out.
 */
import type { LostUsage } from '../model/incident.js';
import type { Policy } from '../derive/policy.js';
import { ReportBuilder } from './report-builder.js';

export { OtlpJsonError } from './otlp-json-line.js';

/** The incident of one run. */
export interface RunRow {
  readonly outcome: string;
  readonly cause?: string;
  readonly causeDetail?: string;
  readonly phase?: string;
  readonly retrySafety?: string;
  readonly provider?: string;
  /** The trace the run is in (lower-case hex). */
  readonly traceId?: string;
  /** The span that carries the verdict: the run span, or the topmost span of a run whose span never came. */
  readonly spanId?: string;
  /** `file`: the verdict was in the file; `folded`: the run had none and was folded here. */
  readonly source: 'file' | 'folded';
  /** What the run's lost attempts used (docs/attributes.md#lost-usage); absent when it lost none. */
  readonly lost?: LostUsage;
}

/**
 * One {@link RunRow} per run in OTLP/JSON lines (blank lines skipped): the
 * verdict a span carries (`incident.outcome`), and for runs without one the
 * verdict of the fold core over their trace (`source: 'folded'`). The spans
 * of a trace may be spread over any lines. A run is counted once, even when
 * the gateway wrote a crash verdict on its topmost span and judged its run
 * span again when that came later. Throws an `OtlpJsonError` naming a bad line.
 */
export function runRowsFromOtlpJsonLines(input: string, options: { readonly policy?: Policy } = {}): RunRow[] {
  const rows: RunRow[] = [];
  const builder = new ReportBuilder({
    policy: options.policy,
    limit: 0,
    maxSpans: Number.POSITIVE_INFINITY,
    idleLines: Number.POSITIVE_INFINITY,
    onRun: (run) =>
      rows.push({
        outcome: run.outcome,
        cause: run.cause,
        causeDetail: run.causeDetail,
        phase: run.phase,
        retrySafety: run.retrySafety,
        provider: run.provider,
        traceId: run.traceId,
        spanId: run.spanId,
        source: run.source,
        ...(run.lost ? { lost: run.lost } : {}),
      }),
    onRunReplaced: (run) => {
      const at = rows.findIndex((row) => row.traceId === run.traceId && row.spanId === run.spanId);
      if (at !== -1) rows.splice(at, 1);
    },
  });
  for (const line of input.split('\n')) builder.addLine(line);
  builder.finish();
  return rows;
}

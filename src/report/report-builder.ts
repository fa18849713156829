/**
 * Builds an {@link IncidentReport} line by line, holding only what an
 * unfinished trace needs: spans of one trace may be spread over lines, so
 * traces are held in a window bounded by spans; a trace is judged when no
 * span of it came for `idleLines` lines, or, when the window is full, the
 * trace that has waited longest is judged first (cautiously: it may not have
 * been complete). Counts are kept as runs are judged. Pure: text in, a
 * report out; reading files and streams is the caller's.
 */
import type { Policy } from '../derive/policy.js';
import type { DecodedSpan } from '../otlp/otlp-json-spans.js';
import { spansOfLine } from './otlp-json-line.js';
import { RecentIncidents } from './recent-incidents.js';
import type { Counts, IncidentKind, IncidentReport, ReportRun } from './report-model.js';
import type { ReportSpan } from './report-span.js';
import { reportSpanOf } from './report-span.js';
import type { EarlierParts, TraceRun } from './trace-runs.js';
import { runsOfTrace } from './trace-runs.js';

/** Options of {@link ReportBuilder}. */
export interface ReportBuilderOptions {
  /** The verdict rules' options. @default DEFAULT_POLICY */
  readonly policy?: Policy;
  /** Incidents listed one by one, most recent first; counts always cover all. @default 1000 */
  readonly limit?: number;
  /** Spans held at most across unfinished traces. @default 20000 */
  readonly maxSpans?: number;
  /** A trace with no span in this many lines is judged. @default 1000 */
  readonly idleLines?: number;
  /** Traces remembered after they were judged, so spans that come later are not counted as new runs. @default 20000 */
  readonly rememberTraces?: number;
  /** Called with every run judged, incidents or not, in the order judged (the pure `runRowsFromOtlpJsonLines` collects them). */
  readonly onRun?: (run: Omit<ReportRun, 'timeline'>) => void;
}

/** Defaults of {@link ReportBuilderOptions}. */
export const REPORT_DEFAULTS = { limit: 1000, maxSpans: 20_000, idleLines: 1000, rememberTraces: 20_000 } as const;

interface HeldTrace {
  readonly spans: ReportSpan[];
  lastLine: number;
}

interface Remembered {
  runKeys: Set<string>;
  standIns: Set<string>;
  nested: Map<string, { readonly sideEffects: 'read_only' | 'unsafe' | 'unknown'; readonly evidenceTruncated: boolean }>;
}

function counts(map: ReadonlyMap<string, number>): Counts {
  return [...map.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

function bump(map: Map<string, number>, key: string | undefined): void {
  const k = key ?? '';
  map.set(k, (map.get(k) ?? 0) + 1);
}

/** Streams OTLP/JSON lines into an {@link IncidentReport}. */
export class ReportBuilder {
  readonly #options: Required<Omit<ReportBuilderOptions, 'policy' | 'onRun'>> & Pick<ReportBuilderOptions, 'policy' | 'onRun'>;
  /** Held traces, least recently added to first (a Map keeps insertion order; a trace is moved to the end when a span of it comes). */
  readonly #held = new Map<string, HeldTrace>();
  #heldSpans = 0;
  /** Traces judged, least recently first, bounded by `rememberTraces`. */
  readonly #remembered = new Map<string, Remembered>();
  readonly #recent: RecentIncidents;
  #lines = 0;
  #spans = 0;
  #traces = 0;
  #runs = 0;
  #folded = 0;
  #tracesJudgedEarly = 0;
  #runsJudgedEarly = 0;
  #tracesSeenAgain = 0;
  readonly #byOutcome = new Map<string, number>();
  readonly #byCause = new Map<string, number>();
  readonly #byPhase = new Map<string, number>();
  readonly #byRetrySafety = new Map<string, number>();
  readonly #byKind = new Map<string, IncidentKind>();

  constructor(options: ReportBuilderOptions = {}) {
    this.#options = { ...REPORT_DEFAULTS, ...options };
    this.#recent = new RecentIncidents(this.#options.limit);
  }

  /** Spans held now, of traces not judged yet (never more than `maxSpans` after a line is added). */
  get heldSpans(): number {
    return this.#heldSpans;
  }

  /** Adds the next line (its 1-based number is counted here); throws an OtlpJsonError naming a line that is not OTLP/JSON. */
  addLine(line: string): void {
    this.#lines += 1;
    this.addSpans(spansOfLine(line, this.#lines));
  }

  /** Adds the spans of one line already decoded (counts as a line). */
  addSpans(spans: readonly DecodedSpan[]): void {
    const line = this.#lines;
    for (const decoded of spans) {
      this.#spans += 1;
      const span = reportSpanOf(decoded);
      let trace = this.#held.get(span.traceId);
      if (trace) this.#held.delete(span.traceId);
      else trace = { spans: [], lastLine: line };
      trace.spans.push(span);
      trace.lastLine = line;
      this.#held.set(span.traceId, trace);
      this.#heldSpans += 1;
    }
    // Idle traces first (their spans have all come, as far as the window can tell), then the longest-waiting while over the bound.
    for (const [traceId, trace] of this.#held) {
      if (line - trace.lastLine < this.#options.idleLines) break;
      this.#judge(traceId, trace, false);
    }
    while (this.#heldSpans > this.#options.maxSpans) {
      const first = this.#held.entries().next().value as [string, HeldTrace];
      this.#judge(first[0], first[1], true);
    }
  }

  /** Judges every trace still held and returns the report. */
  finish(): IncidentReport {
    for (const [traceId, trace] of this.#held) this.#judge(traceId, trace, false);
    const { incidents, omitted } = this.#recent.result();
    const byKind = [...this.#byKind.values()].sort(
      (a, b) => b.runs - a.runs || kindKey(a).localeCompare(kindKey(b)),
    );
    return {
      runs: this.#runs,
      folded: this.#folded,
      byOutcome: counts(this.#byOutcome),
      byCause: counts(this.#byCause),
      byPhase: counts(this.#byPhase),
      byRetrySafety: counts(this.#byRetrySafety),
      byKind,
      incidents,
      incidentsOmitted: omitted,
      input: { lines: this.#lines, spans: this.#spans, traces: this.#traces },
      window: {
        maxSpans: this.#options.maxSpans,
        idleLines: this.#options.idleLines,
        tracesJudgedEarly: this.#tracesJudgedEarly,
        runsJudgedEarly: this.#runsJudgedEarly,
        tracesSeenAgain: this.#tracesSeenAgain,
      },
    };
  }

  #judge(traceId: string, trace: HeldTrace, early: boolean): void {
    this.#held.delete(traceId);
    this.#heldSpans -= trace.spans.length;
    const earlier = this.#remembered.get(traceId);
    if (earlier) {
      this.#remembered.delete(traceId);
      this.#tracesSeenAgain += 1;
    } else {
      this.#traces += 1;
    }
    const judged = runsOfTrace(trace.spans, { policy: this.#options.policy, cautious: early, earlier: earlier as EarlierParts | undefined });
    this.#folded += judged.folded;
    if (early && judged.folded > 0) {
      this.#tracesJudgedEarly += 1;
      this.#runsJudgedEarly += judged.folded;
    }
    for (const run of judged.runs) this.#count(run);
    const memory = earlier ?? { runKeys: new Set<string>(), standIns: new Set<string>(), nested: new Map() };
    for (const key of judged.runKeys) memory.runKeys.add(key);
    for (const id of judged.standIns) memory.standIns.add(id);
    for (const [id, nested] of judged.nested) memory.nested.set(id, nested);
    this.#remembered.set(traceId, memory);
    if (this.#remembered.size > this.#options.rememberTraces) this.#remembered.delete(this.#remembered.keys().next().value as string);
  }

  #count({ run, timeline }: TraceRun): void {
    this.#runs += 1;
    this.#options.onRun?.(run);
    bump(this.#byOutcome, run.outcome);
    if (run.outcome === 'success') return;
    bump(this.#byCause, run.cause);
    bump(this.#byPhase, run.phase);
    bump(this.#byRetrySafety, run.retrySafety);
    const kind: IncidentKind = { outcome: run.outcome, cause: run.cause, causeDetail: run.causeDetail, phase: run.phase, retrySafety: run.retrySafety, runs: 0 };
    const key = kindKey(kind);
    const known = this.#byKind.get(key);
    this.#byKind.set(key, { ...(known ?? kind), runs: (known?.runs ?? 0) + 1 });
    this.#recent.offer(this.#recent.wants(run.startUnixMillis) ? { ...run, timeline: timeline() } : undefined);
  }
}

function kindKey(kind: Omit<IncidentKind, 'runs'>): string {
  return [kind.outcome, kind.cause ?? '', kind.causeDetail ?? '', kind.phase ?? '', kind.retrySafety ?? ''].join('\u0000');
}

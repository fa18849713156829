// Over 300 lines: the window of held traces and the counts it keeps as runs are judged (and judged
// again), kept together so that every verdict moves the counts in one place.
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
import { LostUsageTally } from './lost-usage-summary.js';
import { spansOfLine } from './otlp-json-line.js';
import { RecentIncidents } from './recent-incidents.js';
import type { Counts, IncidentKind, IncidentReport, ReportRun } from './report-model.js';
import type { ReportSpan } from './report-span.js';
import { reportSpanOf } from './report-span.js';
import type { CountedRun, EarlierParts, TraceRun } from './trace-runs.js';
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
  /** Spans of judged traces remembered (span id → run key), across those traces; the oldest traces are forgotten past it. @default 100000 */
  readonly rememberSpans?: number;
  /** Called with every run judged, incidents or not, in the order judged (the pure `runRowsFromOtlpJsonLines` collects them). */
  readonly onRun?: (run: Omit<ReportRun, 'timeline'>) => void;
  /** Called when a run reported through `onRun` is no longer counted: a verdict in the file replaced the one made up here, or it was one run counted twice. */
  readonly onRunReplaced?: (run: Pick<ReportRun, 'traceId' | 'spanId'>) => void;
}

/** Defaults of {@link ReportBuilderOptions}. */
export const REPORT_DEFAULTS = {
  limit: 1000,
  maxSpans: 20_000,
  idleLines: 1000,
  rememberTraces: 20_000,
  rememberSpans: 100_000,
} as const;

interface HeldTrace {
  readonly spans: ReportSpan[];
  lastLine: number;
}

/** A run counted, as far as it must be known to uncount it when a better verdict comes. */
interface Counted extends CountedRun {
  /** Folded while the trace was judged early. */
  readonly early: boolean;
  /** What was counted: a verdict made up here is replaced by the file's, a first verdict by the gateway's revision. */
  readonly row?: Pick<
    ReportRun,
    'outcome' | 'cause' | 'causeDetail' | 'phase' | 'retrySafety' | 'traceId' | 'spanId' | 'lost'
  >;
}

interface Remembered extends EarlierParts {
  readonly counted: Map<string, Counted>;
  readonly runOf: Map<string, string>;
  readonly standIns: Set<string>;
  readonly nested: Map<
    string,
    { readonly sideEffects: 'read_only' | 'unsafe' | 'unknown'; readonly evidenceTruncated: boolean }
  >;
  /** Runs of this trace folded while it was judged early and still counted. */
  earlyRuns: number;
}

function counts(map: ReadonlyMap<string, number>): Counts {
  return [...map.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

function bump(map: Map<string, number>, key: string | undefined, by = 1): void {
  const k = key ?? '';
  const n = (map.get(k) ?? 0) + by;
  if (n > 0) map.set(k, n);
  else map.delete(k);
}

/** Streams OTLP/JSON lines into an {@link IncidentReport}. */
export class ReportBuilder {
  readonly #options: Required<Omit<ReportBuilderOptions, 'policy' | 'onRun' | 'onRunReplaced'>> &
    Pick<ReportBuilderOptions, 'policy' | 'onRun' | 'onRunReplaced'>;
  /** Held traces, least recently added to first (a Map keeps insertion order; a trace is moved to the end when a span of it comes). */
  readonly #held = new Map<string, HeldTrace>();
  #heldSpans = 0;
  /** Traces judged, least recently first, bounded by `rememberTraces`. */
  readonly #remembered = new Map<string, Remembered>();
  /** Span ids remembered across {@link #remembered}. */
  #rememberedSpans = 0;
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
  readonly #lost = new LostUsageTally();

  constructor(options: ReportBuilderOptions = {}) {
    this.#options = { ...REPORT_DEFAULTS, ...options };
    this.#recent = new RecentIncidents(this.#options.limit);
  }

  /** Spans held now, of traces not judged yet (never more than `maxSpans` after a line is added). */
  get heldSpans(): number {
    return this.#heldSpans;
  }

  /** Lines added so far. */
  get lines(): number {
    return this.#lines;
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
    // A trace whose run span has not come yet is judged on idleness like any other, not held until the window fills:
    // a crashed agent's run span never comes, so holding those would fill the window with them and turn every crash
    // into an early verdict; a run span (or the gateway's verdict) that comes later replaces the verdict made up
    // under a stand-in instead (see #judge), so the file's verdict wins either way.
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
    const byKind = [...this.#byKind.values()].sort((a, b) => b.runs - a.runs || kindKey(a).localeCompare(kindKey(b)));
    return {
      runs: this.#runs,
      folded: this.#folded,
      byOutcome: counts(this.#byOutcome),
      byCause: counts(this.#byCause),
      byPhase: counts(this.#byPhase),
      byRetrySafety: counts(this.#byRetrySafety),
      byKind,
      lost: this.#lost.result(),
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
      this.#rememberedSpans -= earlier.runOf.size;
      this.#tracesSeenAgain += 1;
    } else {
      this.#traces += 1;
    }
    const judged = runsOfTrace(trace.spans, { policy: this.#options.policy, cautious: early, earlier });
    const memory: Remembered = earlier ?? {
      counted: new Map(),
      runOf: new Map(),
      standIns: new Set(),
      nested: new Map(),
      earlyRuns: 0,
    };
    // Earlier made-up verdicts first leave the counts, then the verdicts that replace them come in.
    for (const key of judged.retired) this.#uncount(memory, key);
    for (const [from, to] of judged.rekeyed) {
      // Two stand-ins that turn out to be parts of one run are that run counted twice: the second leaves the counts.
      if (memory.counted.has(to)) {
        this.#uncount(memory, from);
        continue;
      }
      const entry = memory.counted.get(from);
      memory.counted.delete(from);
      if (entry) memory.counted.set(to, entry);
    }
    for (const run of judged.runs) {
      // A made-up verdict that replaces one judged early lacks the evidence that one had: it is as early.
      const inherited = run.replaces.some((key) => memory.counted.get(key)?.early === true);
      for (const key of run.replaces) this.#uncount(memory, key);
      this.#count(run);
      const madeUp = run.run.source === 'folded';
      if (madeUp) this.#folded += 1;
      const earlyRun = (early || inherited) && madeUp;
      if (earlyRun) this.#earlyRun(memory, 1);
      const { outcome, cause, causeDetail, phase, retrySafety, traceId: t, spanId, lost } = run.run;
      memory.counted.set(run.key, {
        madeUp,
        standIn: run.standIn,
        early: earlyRun,
        revision: run.revision,
        row: { outcome, cause, causeDetail, phase, retrySafety, traceId: t, spanId, lost },
      });
    }
    for (const [id, key] of judged.runOf) memory.runOf.set(id, key);
    for (const id of judged.standIns) memory.standIns.add(id);
    for (const [id, nested] of judged.nested) memory.nested.set(id, nested);
    this.#remembered.set(traceId, memory);
    this.#rememberedSpans += memory.runOf.size;
    while (
      this.#remembered.size > this.#options.rememberTraces ||
      (this.#rememberedSpans > this.#options.rememberSpans && this.#remembered.size > 1)
    ) {
      const [oldest, forgotten] = this.#remembered.entries().next().value as [string, Remembered];
      this.#remembered.delete(oldest);
      this.#rememberedSpans -= forgotten.runOf.size;
    }
  }

  /** Early-judged runs of a trace still counted changed by `by`; a trace counts as judged early while it has any. */
  #earlyRun(memory: Remembered, by: number): void {
    const before = memory.earlyRuns;
    memory.earlyRuns += by;
    this.#runsJudgedEarly += by;
    if (before === 0 && memory.earlyRuns > 0) this.#tracesJudgedEarly += 1;
    if (before > 0 && memory.earlyRuns === 0) this.#tracesJudgedEarly -= 1;
  }

  /** Takes a run counted earlier with a verdict made up here back out of every count and the incident list. */
  #uncount(memory: Remembered, key: string): void {
    const entry = memory.counted.get(key);
    memory.counted.delete(key);
    const row = entry?.row;
    if (!entry || !row) return;
    this.#runs -= 1;
    if (entry.madeUp) this.#folded -= 1;
    if (entry.early) this.#earlyRun(memory, -1);
    this.#options.onRunReplaced?.({ traceId: row.traceId, spanId: row.spanId });
    bump(this.#byOutcome, row.outcome, -1);
    this.#lost.remove(row);
    if (row.outcome === 'success') return;
    bump(this.#byCause, row.cause, -1);
    bump(this.#byPhase, row.phase, -1);
    bump(this.#byRetrySafety, row.retrySafety, -1);
    const kind = kindKey(row);
    const known = this.#byKind.get(kind);
    if (known && known.runs > 1) this.#byKind.set(kind, { ...known, runs: known.runs - 1 });
    else this.#byKind.delete(kind);
    this.#recent.remove(row.traceId, row.spanId);
  }

  #count({ run, timeline }: TraceRun): void {
    this.#runs += 1;
    this.#options.onRun?.(run);
    bump(this.#byOutcome, run.outcome);
    // A run that succeeded may have lost attempts too (failed, cut off, retried): counted here, not only incidents.
    this.#lost.add(run);
    if (run.outcome === 'success') return;
    bump(this.#byCause, run.cause);
    bump(this.#byPhase, run.phase);
    bump(this.#byRetrySafety, run.retrySafety);
    const kind: IncidentKind = {
      outcome: run.outcome,
      cause: run.cause,
      causeDetail: run.causeDetail,
      phase: run.phase,
      retrySafety: run.retrySafety,
      runs: 0,
    };
    const key = kindKey(kind);
    const known = this.#byKind.get(key);
    this.#byKind.set(key, { ...(known ?? kind), runs: (known?.runs ?? 0) + 1 });
    this.#recent.offer(this.#recent.wants(run.startUnixMillis) ? { ...run, timeline: timeline() } : undefined);
  }
}

function kindKey(kind: Omit<IncidentKind, 'runs'>): string {
  return [kind.outcome, kind.cause ?? '', kind.causeDetail ?? '', kind.phase ?? '', kind.retrySafety ?? ''].join(
    '\u0000',
  );
}

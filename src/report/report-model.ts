/**
 * What `agent-incidents report` knows about a file, independent of how it is
 * shown: the terminal table, `--json` and `--html` all render this one value.
 * Only closed values (outcomes, causes, phases, retry safeties, side-effect
 * classes), ids, names and times are kept: exported text such as a status
 * message may hold what a sanitizer missed, so nothing here carries it.
 */
import type { LostUsage } from '../model/incident.js';

/** One span of a run shown on its timeline: an attempt (a request to a model) or a tool call. */
export interface TimelineItem {
  /** `attempt`: a request to a model; `tool`: a tool call. */
  readonly kind: 'attempt' | 'tool';
  /** The span's name, e.g. `chat gpt-5-mini` or `execute_tool read_file`. */
  readonly name: string;
  /** The span id (lower-case hex), so a viewer can find it in the trace. */
  readonly spanId: string;
  /** Start, in milliseconds after the run's start (never negative). */
  readonly startOffsetMillis: number;
  /** How long it lasted; absent when the span never ended (the process died, the stream was left open). */
  readonly durationMillis?: number;
  /** `error` when the span's status is ERROR, `open` when it never ended, else `ok`. */
  readonly status: 'ok' | 'error' | 'open';
  /** The attempt's own cause (`incident.attempt.cause`) or the span's `error.type`, when it failed. */
  readonly cause?: string;
  /** A tool's side-effect class (`read_only`, `unsafe`, `unknown`, …) when the span says it. */
  readonly sideEffects?: string;
  /** True on the item where the run broke: the failed attempt or tool whose failure ended it. */
  readonly broke: boolean;
}

/** The incident of one run, with what a reader needs to find it. */
export interface ReportRun {
  readonly outcome: string;
  readonly cause?: string;
  readonly causeDetail?: string;
  readonly phase?: string;
  readonly retrySafety?: string;
  readonly retrySafetyReason?: string;
  readonly sideEffects?: string;
  readonly provider?: string;
  readonly agentName?: string;
  readonly serviceName?: string;
  /** The trace the run is in (lower-case hex, 32 digits). */
  readonly traceId: string;
  /** The span that carries the verdict: the run span, or the topmost span of a run whose span never came. */
  readonly spanId: string;
  /** The run's start, Unix epoch milliseconds. */
  readonly startUnixMillis?: number;
  /** How long the run lasted; absent when its span never ended. */
  readonly durationMillis?: number;
  /** `file`: the verdict was in the file; `folded`: the run had none and was judged by the report from its spans. */
  readonly source: 'file' | 'folded';
  /**
   * What the attempts that did not make the run's answer used (docs/attributes.md#lost-usage): read from
   * the verdict span's `incident.lost.*` for a `file` run, the fold core's `Incident.lost` for a `folded`
   * one. Absent when the run lost no attempt.
   */
  readonly lost?: LostUsage;
  /** Attempts and tool calls in start order (those of the run seen in the input). */
  readonly timeline: readonly TimelineItem[];
}

/** Tokens and cost lost by some runs: sums of their {@link ReportRun.lost}. */
export interface LostFigures {
  /** Runs that lost at least one attempt. */
  readonly runs: number;
  /** Attempts that did not make their run's answer. */
  readonly attempts: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Of the output tokens, reasoning ones; absent when no run reported them. */
  readonly reasoningTokens?: number;
  /** Of the input tokens, cached ones; absent when no run reported them. */
  readonly cachedInputTokens?: number;
  /** US dollars; absent when no run reported a cost. */
  readonly costUsd?: number;
  /** Runs whose figures include a cost (fewer than `runs`: the cost is a floor). */
  readonly costRuns: number;
  /** Runs whose own figures are a lower bound. */
  readonly lowerBoundRuns: number;
  /** The figures are a floor: a run's are, or some runs reported a cost and others did not. */
  readonly lowerBound: boolean;
}

/** {@link LostFigures} of the runs with one value of a dimension (`''`: the value was absent). */
export interface LostGroup extends LostFigures {
  readonly value: string;
}

/** What incidents cost: the lost figures over every run, by cause and by retry safety. */
export interface LostReport {
  readonly total: LostFigures;
  /** By the run's cause, most tokens first; a `success` run with lost attempts counts under `''`. */
  readonly byCause: readonly LostGroup[];
  /** By the run's retry safety, most tokens first. */
  readonly byRetrySafety: readonly LostGroup[];
}

/** Counts of one dimension, most frequent first. An absent value is counted under `''`, shown as "none". */
export type Counts = readonly (readonly [value: string, runs: number])[];

/** Incidents of one kind: runs with the same outcome, cause, cause detail, phase and retry safety. */
export interface IncidentKind {
  readonly outcome: string;
  readonly cause?: string;
  readonly causeDetail?: string;
  readonly phase?: string;
  readonly retrySafety?: string;
  readonly runs: number;
}

/**
 * How the input was held while it was read: spans of unfinished traces are
 * held in a bounded window, so a report's memory does not grow with its input.
 */
export interface ReportWindow {
  /** Spans held at most; over it the trace that has waited longest is judged first. */
  readonly maxSpans: number;
  /** A trace with no span in this many lines is judged. */
  readonly idleLines: number;
  /**
   * Traces judged because the window was full, before they may have been
   * complete. Their runs without a verdict were judged as if evidence was cut
   * off: `incomplete`, never `success` (a missing part may hide a failure).
   */
  readonly tracesJudgedEarly: number;
  /** Of {@link IncidentReport.folded}, runs judged that way. */
  readonly runsJudgedEarly: number;
  /** Traces whose spans came again after the trace was judged: the later part was judged on its own, each run counted once. */
  readonly tracesSeenAgain: number;
}

/** The whole report of one input. */
export interface IncidentReport {
  /** Runs seen, incidents or not. */
  readonly runs: number;
  /** Runs that had no verdict in the input and were judged from their spans. */
  readonly folded: number;
  readonly byOutcome: Counts;
  /** Over incidents only (runs whose outcome is not `success`); likewise below. */
  readonly byCause: Counts;
  readonly byPhase: Counts;
  readonly byRetrySafety: Counts;
  /** Incidents by kind (outcome, cause, detail, phase, retry safety), most frequent first: the terminal table's rows. */
  readonly byKind: readonly IncidentKind[];
  /** Tokens and cost of the attempts that did not make their run's answer (docs/attributes.md#lost-usage). */
  readonly lost: LostReport;
  /** Incidents listed one by one, most recent first, at most the report's limit. */
  readonly incidents: readonly ReportRun[];
  /** Incidents counted above but not listed because of the limit. */
  readonly incidentsOmitted: number;
  /**
   * Input read: lines, spans, traces. A trace whose spans came again after
   * it was judged and forgotten (farther apart than the window remembers) counts again.
   */
  readonly input: { readonly lines: number; readonly spans: number; readonly traces: number };
  readonly window: ReportWindow;
}

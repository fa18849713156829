/**
 * Reports and runs built by hand for the tests of what `report` renders (the
 * terminal table and its notes, the incident list, the HTML page and its
 * incident cards): an empty report to fill in, an incident run and the items
 * of its timeline. Each test overrides what it checks.
 */
import type {
  IncidentReport,
  LostFigures,
  LostReport,
  ReportRun,
  TimelineItem,
} from '../../src/report/report-model.js';

/** The trace of {@link interruptedToolRun}. */
export const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

/** Lost figures of no run: what a report of runs that lost nothing sums to; `over` fills it in. */
export function lostFigures(over: Partial<LostFigures> = {}): LostFigures {
  return {
    runs: 0,
    attempts: 0,
    inputTokens: 0,
    outputTokens: 0,
    costRuns: 0,
    lowerBoundRuns: 0,
    lowerBound: false,
    ...over,
  };
}

/** The lost usage of a report whose runs lost nothing. */
export const NO_LOST: LostReport = { total: lostFigures(), byCause: [], byRetrySafety: [] };

/** A report of nothing: no run, no line read, an idle window of the defaults; `over` fills it in. */
export function emptyReport(over: Partial<IncidentReport> = {}): IncidentReport {
  return {
    runs: 0,
    folded: 0,
    byOutcome: [],
    byCause: [],
    byPhase: [],
    byRetrySafety: [],
    byKind: [],
    lost: NO_LOST,
    incidents: [],
    incidentsOmitted: 0,
    input: { lines: 0, spans: 0, traces: 0 },
    window: { maxSpans: 100_000, idleLines: 1000, tracesJudgedEarly: 0, runsJudgedEarly: 0, tracesSeenAgain: 0 },
    ...over,
  };
}

/** One item of a run's timeline: by default an attempt of 100 ms at the run's start that ended well. */
export function timelineItem(over: Partial<TimelineItem> & Pick<TimelineItem, 'spanId'>): TimelineItem {
  return {
    kind: 'attempt',
    name: 'chat gpt-5-mini',
    startOffsetMillis: 0,
    durationMillis: 100,
    status: 'ok',
    broke: false,
    ...over,
  };
}

/** The verdict of {@link interruptedToolRun}: what presentIncident is told of it. */
export const INTERRUPTED_TOOL = {
  outcome: 'failed',
  cause: 'tool_execution_interrupted',
  phase: 'tool_execution',
  retrySafety: 'ask_user_before_retry',
  retrySafetyReason: 'unsafe_side_effect_started',
  sideEffects: 'unsafe',
} as const;

/**
 * An incident as a file records it: a run of 1.5 s whose tool was interrupted
 * after an unsafe side effect started (ask the user before a retry), in trace
 * {@link TRACE_ID}; no timeline unless `over` gives one.
 */
export function interruptedToolRun(over: Partial<ReportRun> = {}): ReportRun {
  return {
    ...INTERRUPTED_TOOL,
    provider: 'openai',
    agentName: 'demo-agent',
    serviceName: 'checkout',
    traceId: TRACE_ID,
    spanId: '00f067aa0ba902b7',
    startUnixMillis: Date.parse('2026-11-26T04:59:00Z'),
    durationMillis: 1500,
    source: 'file',
    timeline: [],
    ...over,
  };
}

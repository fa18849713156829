/**
 * What the fold knows about one open run and its open spans. Plain data: the
 * edge that drives the fold (SDK processor, runtime recorder, gateway) owns the
 * spans themselves and hands the fold a handle for each, which it gives back
 * when the edge must act on that span (end it as cut off).
 */
import type { ConventionAdapter } from '../conventions/adapter.js';
import type { AttributeView, SpanRole } from '../conventions/span-view.js';
import type { Policy } from '../derive/policy.js';
import type { AttemptRecord, Fact } from '../model/facts.js';
import type { AttemptUsage } from '../model/usage.js';

/**
 * A span as the fold may look at it while it is open: its current name and
 * attributes (some instrumentations set them after starting the span).
 */
export interface LiveSpan {
  readonly name: string;
  readonly attributes: AttributeView;
}

/** An open span of a run. */
export interface OpenChild<H> {
  readonly handle: H;
  readonly parentSpanId?: string;
  readonly role: SpanRole;
  readonly adapter?: ConventionAdapter;
  readonly startMillis: number;
  /** Set when the run ended while this span was open: it is read as cut off at that point. */
  truncated: boolean;
  /** An attempt inside another attempt, read as part of its parent (never re-recognised). */
  readonly demoted?: boolean;
}

/** What the fold knows about one open run. */
export interface RunState<H> {
  readonly spanId: string;
  readonly handle: H;
  readonly adapter: ConventionAdapter;
  /** The run this one is nested in (a sub-agent), when it is open. */
  readonly parent?: RunState<H>;
  /** The span this run's span is a child of, for placing its side effects in its parent. */
  readonly parentSpanId?: string;
  readonly startMillis: number;
  /** When the edge began tracking the run (its clock): ages count from here. */
  readonly trackedMillis: number;
  /** The verdict rules of this run, when they are not the fold's (a recorder's own policy). */
  readonly policy?: Policy;
  readonly facts: Fact[];
  readonly attempts: AttemptRecord[];
  /** The span each attempt span is a child of, by attempt key: attempt spans of one call share it. */
  readonly attemptParents: Map<string, string | undefined>;
  /** Open descendant spans (nested runs included), by span id, in start order. */
  readonly open: Map<string, OpenChild<H>>;
  /** Next sequence number for facts without one of their own. */
  nextSeq: number;
  progressUnknown: boolean;
  /** Attempts whose convention could not tell whether the provider made progress. */
  readonly progressUnknownAttempts: string[];
  openChildren: boolean;
  /**
   * Attempts cut off: still open when the run ended, or ended with no finish
   * and no error (the convention says stopped).
   */
  readonly truncatedAttempts: string[];
  /** The run span never ended: the edge ends it (age limit, flush, shutdown, a span that never arrived). */
  neverEnded: boolean;
  /** Some of the run's facts were lost: span limits dropped events or attributes. */
  evidenceTruncated: boolean;
  /** What each attempt (by key) reported of its usage; created with the first report, so a run without one pays nothing. */
  usage: Map<string, AttemptUsage> | undefined;
}

/** Facts read from spans carry no sequence of their own; they sort after any recorder-assigned one at the same instant. */
export const SEQ_BASE = 1_000_000_000;

/** What a run's start fixes: its span, convention, place among runs, clocks and verdict rules. */
export type RunStart<H> = Pick<
  RunState<H>,
  'spanId' | 'handle' | 'adapter' | 'parent' | 'parentSpanId' | 'startMillis' | 'trackedMillis' | 'policy'
>;

/** The state of a run that has just started: no facts, no attempts, no open spans. */
export function startedRunState<H>(start: RunStart<H>): RunState<H> {
  return {
    spanId: start.spanId,
    handle: start.handle,
    adapter: start.adapter,
    parent: start.parent,
    parentSpanId: start.parentSpanId,
    startMillis: start.startMillis,
    trackedMillis: start.trackedMillis,
    policy: start.policy,
    facts: [],
    attempts: [],
    attemptParents: new Map(),
    open: new Map(),
    nextSeq: SEQ_BASE,
    progressUnknown: false,
    progressUnknownAttempts: [],
    openChildren: false,
    truncatedAttempts: [],
    neverEnded: false,
    evidenceTruncated: false,
    usage: undefined,
  };
}

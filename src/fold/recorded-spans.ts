/**
 * Spans a runtime recorder (`RunRecorder`) folds itself, so that the SDK
 * processor can take the recorder's fold instead of folding the same spans a
 * second time (docs/attributes.md#fold-once). The
 * recorder registers each span it records with its view; the processor looks
 * a span up here (and learns, while a recorder starts a span, how it will be
 * folded) and, when what it sees of the span is what the recorder folded,
 * writes the recorder's result. Anything it cannot prove equal it
 * folds itself, as before.
 */
import type { ConventionAdapter } from '../conventions/adapter.js';
import type { SpanView } from '../conventions/span-view.js';
import type { Policy } from '../derive/policy.js';
import type { Folded } from './run-folder.js';

/** How a recorder folds a span it is starting. */
export interface Recording {
  /** The fold the span is folded in (one per run and its nested runs); compared by identity. */
  readonly session: object;
  /** The policy of the run the span is folded in. */
  readonly policy: Policy;
  /** The conventions that fold reads. */
  readonly adapters: readonly ConventionAdapter[];
  /** True for a run span that starts a fold of its own (not nested in a recorded run). */
  readonly top: boolean;
}

/** What a recorder folded of a span. */
export interface RecordedSpan {
  /** The recorder's view of the span: what its fold reads. */
  readonly view: SpanView;
  /** The fold the span is folded in; compared by identity. */
  readonly session: object;
  /** True once the recorder's fold ended the span; `folded` is then what that gave. */
  readonly endFolded: boolean;
  /** The verdict the recorder's fold gave at the span's end (a run's, a failed attempt's), if any. */
  readonly folded: Folded | undefined;
}

const RECORDED = new WeakMap<object, RecordedSpan>();
/** The recording of the span being started now, while a recorder starts one (span starts are synchronous). */
let starting: Recording | undefined;

/**
 * Starts a span a recorder records and folds: `start` starts it, and every
 * span processor's `onStart` during it can ask {@link recordingStarting}.
 */
export function startRecorded<T>(recording: Recording, start: () => T): T {
  const outer = starting;
  starting = recording;
  try {
    return start();
  } finally {
    starting = outer;
  }
}

/** How the span starting now will be folded, when a recorder is starting it; undefined for any other span. */
export function recordingStarting(): Recording | undefined {
  return starting;
}

/** Registers `span` (the OpenTelemetry span object) as recorded and folded by a recorder. */
export function registerRecordedSpan(span: object, recorded: RecordedSpan): void {
  RECORDED.set(span, recorded);
}

/** What a recorder folded of `span`, if a recorder records it. */
export function recordedSpanOf(span: object): RecordedSpan | undefined {
  return RECORDED.get(span);
}

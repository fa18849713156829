/**
 * What an attempt or tool recorder may ask of the run that started it:
 * package-private, so none of it is public API (`RunRecorder` keeps no
 * method only its children call). The run hands each child its channel when it
 * creates it; the child hands the run an {@link OpenSpan} for itself.
 */
import type { Attributes, Span } from '@opentelemetry/api';
import type { RecordedView } from './fold-session.js';
import type { AttemptEnd } from './run-ledger.js';

/** A child span of the run still open, as the run sees it. */
export interface OpenSpan {
  readonly span: Span;
  /** The span's view in the fold. */
  readonly view: RecordedView;
  /** Ends the span as cut off by the run's end, at `endMillis`. */
  cutAt(endMillis: number): void;
  /** A tool of the run started or ended (attempts listen: their next tool event is news again). */
  toolActivity?(): void;
  /** Whether this is a tool execution: its start and end are tool activity for the attempts. */
  readonly isTool: boolean;
}

/** The run's side of its child recorders. */
export interface RunChannel {
  /** The run's clock, in epoch milliseconds. */
  now(): number;
  /** Writes a native fact event on `span` now, and in its view; nothing once the run ended. */
  record(span: Span, name: string, attributes: Attributes): void;
  /** Attempt `number` ended: its end, retry-after and usage go to the run's ledger. */
  attemptEnded(number: number, details: AttemptEnd): void;
  /** A child span opened; the run cuts it off if it ends first. */
  opened(handle: OpenSpan): void;
  /** A child span ended at `endMillis`: its view ends in the fold. */
  spanEnded(handle: OpenSpan, endMillis: number): void;
}

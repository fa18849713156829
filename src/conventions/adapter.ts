/**
 * The interface every span convention implements: recognise span roles and
 * read facts. Adding a convention means adding one file and one list entry
 * in `./index.ts`.
 */
import type { Fact } from '../model/facts.js';
import type { ErrorFact } from '../model/facts.js';
import type { SpanRole, SpanView } from './span-view.js';

/** What an adapter needs from the run it reads a span for. */
export interface ExtractContext {
  /** Key of the attempt this span belongs to (for tool spans and attempt spans). */
  readonly attempt?: string;
  /** The span was ended by the processor because its run ended first. */
  readonly truncated: boolean;
  /** Tool names to treat as read-only when a span does not classify them. */
  readonly trustedReadOnlyTools: readonly string[];
  /** Attempt key for a 1-based attempt number of the same run. */
  attemptKeyOf(number: number): string | undefined;
}

/**
 * A try inside an attempt span before its last one: a span that covers its
 * call's retries (docs/conventions.md#retries-inside-one-span) shows each
 * failed try it recorded. Each failed and was retried inside the span.
 */
export interface EarlierTry {
  /** When the try started (epoch ms): the span's start, or the failure of the try before. */
  readonly startMillis: number;
  /** When it failed (epoch ms). */
  readonly failedMillis: number;
  /** Its error, classified. */
  readonly error: ErrorFact;
}

/** What an adapter read from one span. `seq` of the facts is per-span order; the caller rebases it. */
export interface Extraction {
  readonly facts: Fact[];
  /** The span ended with ERROR and recorded no terminal fact of its own: the error, classified. */
  readonly statusError?: ErrorFact;
  /** The convention cannot tell whether the provider made progress. */
  readonly progressUnknown?: boolean;
  /**
   * The attempt span ended, but did not finish and no error says why: its
   * finish reason means it did not finish (`interrupted`), or it shows no
   * finish where its convention records one (docs/conventions.md#finish-reasons-by-meaning).
   * It is judged like an attempt still open at its run's end (an abort, a
   * timeout, a stream that stopped early): `terminal_event_missing`.
   */
  readonly unfinished?: boolean;
  /**
   * Tries the attempt span recorded before its last one (an `exception` event
   * each), in order; the span's own facts are its last try's.
   */
  readonly earlierTries?: readonly EarlierTry[];
  /**
   * How many tries the span's call made, its last one included, when the
   * convention says (AI SDK's `Failed after N attempts`). Some of them may be
   * earlier attempt spans of the same call; the fold counts the rest as
   * tries inside this span.
   */
  readonly statedTries?: number;
}

/** A span convention. */
export interface ConventionAdapter {
  readonly name: string;
  /** The role of `view` in this convention, or undefined when the span is not of it. */
  role(view: Pick<SpanView, 'name' | 'attributes'>): SpanRole | undefined;
  /** Reads the facts of a finished (or truncated) span. Total: never throws on bad data. */
  extract(view: SpanView, role: SpanRole, context: ExtractContext): Extraction;
}

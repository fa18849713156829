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

/** What an adapter read from one span. `seq` of the facts is per-span order; the caller rebases it. */
export interface Extraction {
  readonly facts: Fact[];
  /** The span ended with ERROR and recorded no terminal fact of its own: the error, classified. */
  readonly statusError?: ErrorFact;
  /** The convention cannot tell whether the provider made progress. */
  readonly progressUnknown?: boolean;
  /**
   * The attempt span ended, but with nothing a finished response leaves
   * (finish reason, response id, usage) and no error: it was cut off (an
   * abort, a timeout) and is judged like an attempt still open at its run's end.
   */
  readonly unfinished?: boolean;
}

/** A span convention. */
export interface ConventionAdapter {
  readonly name: string;
  /** The role of `view` in this convention, or undefined when the span is not of it. */
  role(view: Pick<SpanView, 'name' | 'attributes'>): SpanRole | undefined;
  /** Reads the facts of a finished (or truncated) span. Total: never throws on bad data. */
  extract(view: SpanView, role: SpanRole, context: ExtractContext): Extraction;
}

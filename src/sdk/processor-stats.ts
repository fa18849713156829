/** The counters `IncidentSpanProcessor.stats()` reports. */
/** Counters of the processor's own behaviour, for tests and health checks. */
export interface IncidentProcessorStats {
  /** Runs currently tracked. */
  readonly openRuns: number;
  /** Spans currently indexed (runs and their open descendants). */
  readonly trackedSpans: number;
  /** Runs whose facts were dropped because `maxOpenRuns` was reached. */
  readonly evictedRuns: number;
  /** Run spans the processor ended itself (age limit, flush, shutdown). */
  readonly runsFinalizedOpen: number;
  /** Runs whose incident was written. */
  readonly runsFinished: number;
  /** Internal errors caught in hooks (each hook reports its first through `diag`). */
  readonly internalErrors: number;
  /**
   * Runs whose verdict the processor took from the `RunRecorder` that recorded
   * them, without folding their spans again (docs/attributes.md#fold-once).
   */
  readonly runsAdopted: number;
  /** Adopted runs given back to the processor's own fold (a span the recorder did not record, …). */
  readonly runsGivenBack: number;
}

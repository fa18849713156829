/**
 * Verdict shapes the honest readings of plain spans share, so every suite
 * expects the same thing of the same situation.
 */

/** Expected run-span attributes (a subset). */
export type Want = Record<string, unknown>;

/** The framework never ended its own call span: the run is finalized as never ended. */
export const NEVER_ENDED: Want = {
  'incident.outcome': 'incomplete',
  'incident.cause': 'crash_or_restart_incomplete',
  'incident.cause.detail': 'run_never_ended',
  'incident.phase': 'unknown',
  'incident.retry_safety': 'unknown',
  'incident.facts_complete': false,
};

/** An attempt stopped (abort, watchdog) and nothing says why. */
export const CANT_TELL: Want = {
  'incident.outcome': 'failed',
  'incident.cause': 'unknown_interruption',
  'incident.phase': 'unknown',
  'incident.retry_safety': 'unknown',
  'incident.facts_complete': false,
};

/** A transport error seen; where in the stream it hit, unknown. */
export const DROP_SOMEWHERE: Want = {
  'incident.outcome': 'failed',
  'incident.cause': 'provider_transport_disconnect',
  'incident.phase': 'unknown',
  'incident.retry_safety': 'unknown',
  'incident.facts_complete': false,
};

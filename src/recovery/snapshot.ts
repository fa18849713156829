/** The redacted snapshot a failure action carries. */
import type { RunSnapshot } from '../model/recovery.js';
import type { RecoveryContext } from './strategy.js';

/**
 * The run's own snapshot when it is in-process; otherwise one built from the
 * verdict and the attempt history, without the token counts it cannot know.
 */
export function snapshotOf(context: RecoveryContext): RunSnapshot {
  if (context.run) return context.run.snapshot();
  const { incident, attempts } = context;
  const durations = attempts.flatMap((a) =>
    a.endMillis !== undefined ? [Math.max(0, a.endMillis - a.startMillis)] : [],
  );
  const first = attempts[0]?.startMillis;
  const last = attempts.reduce((end, a) => Math.max(end, a.endMillis ?? a.startMillis), first ?? 0);
  return {
    // An attempt that ended without a failure verdict finished a model turn.
    turns: attempts.filter((a) => a.endMillis !== undefined && a.verdict === undefined).length,
    attempts: incident.attempts,
    recoveredAttempts: incident.recoveredAttempts,
    durationMillis: first === undefined ? 0 : last - first,
    attemptDurationsMillis: durations,
    outcome: incident.outcome,
    ...(incident.cause ? { cause: incident.cause } : {}),
    ...(incident.causeDetail ? { causeDetail: incident.causeDetail } : {}),
    ...(incident.phase ? { phase: incident.phase } : {}),
  };
}

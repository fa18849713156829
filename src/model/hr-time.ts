/**
 * OpenTelemetry's `HrTime` ([seconds, nanoseconds]) in epoch milliseconds.
 * Plain data in, a number out: shared by the SDK edge and the runtime.
 */

/** Epoch milliseconds of an `HrTime`; `NaN` for anything that is not one. */
export function hrTimeToMillis(time: unknown): number {
  if (!Array.isArray(time) || typeof time[0] !== 'number' || typeof time[1] !== 'number') return Number.NaN;
  return time[0] * 1000 + time[1] / 1e6;
}

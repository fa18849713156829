/**
 * The recorder's clock: epoch milliseconds with sub-millisecond precision,
 * and their OpenTelemetry `HrTime` form, which every span start, event and
 * end the recorders write carries.
 */
import type { HrTime } from '@opentelemetry/api';

/** `millis` (epoch milliseconds) as an OpenTelemetry `[seconds, nanoseconds]` time. */
export function toHrTime(millis: number): HrTime {
  const seconds = Math.floor(millis / 1000);
  return [seconds, Math.round((millis - seconds * 1000) * 1e6)];
}

/**
 * A clock anchored to the wall clock now and advanced by the monotonic one,
 * as the OpenTelemetry SDK times its spans. `performance.timeOrigin` alone
 * drifts from `Date.now()` in a long-lived process, and fact events would then
 * misorder against the spans of instrumentations in the same run.
 */
export function anchoredClock(): () => number {
  const anchor = Date.now() - performance.now();
  return () => anchor + performance.now();
}

/**
 * What a verdict does to its run span's status and `error.type`
 * (docs/attributes.md#span-status-and-errortype): `error.type` is the
 * instrumentation's, so it is written only where there is none, and never
 * replaced nor removed.
 */
import { describe, expect, it } from 'vitest';
import { runSpanStatus } from '../../src/derive/incident-attributes.js';
import type { Incident } from '../../src/model/incident.js';

const base = { sideEffects: 'none', factsComplete: true, missingFacts: [], attempts: 1, recoveredAttempts: 0 } as const;
const failed: Incident = {
  ...base,
  outcome: 'failed',
  cause: 'provider_transport_disconnect',
  causeDetail: 'socket_closed',
  phase: 'text_generation',
  retrySafety: 'offer_continue',
  retrySafetyReason: 'visible_output_without_tool_execution',
};
const incomplete: Incident = {
  ...base,
  outcome: 'incomplete',
  cause: 'crash_or_restart_incomplete',
  causeDetail: 'run_never_ended',
  phase: 'unknown',
  retrySafety: 'unknown',
  retrySafetyReason: 'unknown',
};
const cancelled: Incident = {
  ...base,
  outcome: 'cancelled',
  cause: 'user_cancel',
  causeDetail: 'user_stop',
  phase: 'text_generation',
  retrySafety: 'do_not_retry',
  retrySafetyReason: 'user_cancel',
};
const recovered: Incident = {
  ...base,
  outcome: 'recovered',
  cause: 'provider_api_error',
  causeDetail: 'server_overload',
  phase: 'before_first_provider_progress',
  retrySafety: 'auto_retry',
  retrySafetyReason: 'no_visible_output_or_tool_execution',
  attempts: 2,
  recoveredAttempts: 1,
};
const success: Incident = { ...base, outcome: 'success' };

describe('a run span status and error.type', () => {
  it.each([
    [
      'a failed run on a span without error.type gets ERROR and error.type = the cause',
      failed,
      { code: 0 },
      {
        status: { code: 2, message: 'provider_transport_disconnect (socket_closed)' },
        errorType: 'provider_transport_disconnect',
      },
    ],
    ["a failed run keeps the instrumentation's error.type", failed, { code: 2, errorType: 'rate_limit_error' }, {}],
    [
      "a failed run on an UNSET span keeps the instrumentation's error.type and gets ERROR",
      failed,
      { code: 0, errorType: '_OTHER' },
      { status: { code: 2, message: 'provider_transport_disconnect (socket_closed)' } },
    ],
    [
      'a failed run on an ERROR span keeps its message',
      failed,
      { code: 2 },
      { errorType: 'provider_transport_disconnect' },
    ],
    [
      'an incomplete run without error.type gets the cause',
      incomplete,
      { code: 0 },
      {
        status: { code: 2, message: 'crash_or_restart_incomplete (run_never_ended)' },
        errorType: 'crash_or_restart_incomplete',
      },
    ],
    [
      "an incomplete run keeps the instrumentation's error.type",
      incomplete,
      { code: 0, errorType: 'java.net.SocketException' },
      { status: { code: 2, message: 'crash_or_restart_incomplete (run_never_ended)' } },
    ],
    [
      "a cancelled run is never ERROR, and keeps the instrumentation's error.type",
      cancelled,
      { code: 2, errorType: 'AbortError' },
      { status: { code: 0 } },
    ],
    ['a cancelled run on an UNSET span changes nothing', cancelled, { code: 0 }, {}],
    ['a recovered run changes nothing', recovered, { code: 0 }, {}],
    ['a successful run changes nothing', success, { code: 0, errorType: 'timeout' }, {}],
  ] as const)('%s', (_name, incident, current, want) => {
    expect(runSpanStatus(incident, current)).toEqual(want);
  });

  it('never asks to remove an error.type, whatever the verdict', () => {
    for (const incident of [failed, incomplete, cancelled, recovered, success]) {
      for (const current of [{ code: 0 }, { code: 2 }, { code: 0, errorType: 'x' }, { code: 2, errorType: 'x' }]) {
        const change = runSpanStatus(incident, current);
        expect(change.errorType === undefined || typeof change.errorType === 'string').toBe(true);
        if (current.errorType !== undefined) expect(change.errorType).toBeUndefined();
      }
    }
  });
});

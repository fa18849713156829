/**
 * The cause table (src/model/cause-table.ts) is what the derivation does: each
 * cause comes back from its terminal fact with its details, usual
 * retryability and phase before any attempt, is retried automatically exactly
 * as its `autoRetry` says, and the closed lists are read from it.
 */
import { describe, expect, it } from 'vitest';
import type { CauseRow } from '../../src/model/cause-table.js';
import { CAUSE_TABLE, usualRetryableByDetail } from '../../src/model/cause-table.js';
import type { Cause, CauseDetail } from '../../src/model/enums.js';
import { CAUSE_DETAILS, CAUSES } from '../../src/model/enums.js';
import type { Fact } from '../../src/model/facts.js';
import { TERMINAL_FACT_KINDS } from '../../src/model/facts.js';
import { NATIVE_EVENT } from '../../src/model/native-convention.js';
import { causeOf, deriveIncident } from '../../src/derive/derive-incident.js';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import { deriveRetrySafety } from '../../src/derive/retry-safety.js';

const at = { timeMillis: 1, seq: 0 } as const;

/**
 * A run-level fact that ends a run with each cause and detail (undefined for a
 * cause with no details, or one no fact names). Keyed by cause: a new row
 * fails typecheck here until it says how its fact looks.
 */
const ENDING: { readonly [C in Cause]: (detail: CauseDetail<C> | undefined) => Fact | undefined } = {
  provider_transport_disconnect: (detail) => ({
    ...at,
    kind: 'provider_error',
    error: {
      kind: 'transport',
      detail,
      retryable: usualRetryableByDetail('provider_transport_disconnect').get(detail!),
    },
  }),
  provider_api_error: (detail) => ({
    ...at,
    kind: 'provider_error',
    error: { kind: 'api', detail, retryable: usualRetryableByDetail('provider_api_error').get(detail!) },
  }),
  watchdog_timeout: (phase) => ({ ...at, kind: 'watchdog_fired', phase: phase! }),
  user_cancel: (origin) => ({ ...at, kind: 'user_cancel', origin: origin! }),
  local_lifecycle_close: (lifecycle) => ({ ...at, kind: 'lifecycle_close', lifecycle: lifecycle! }),
  request_setup_failure: () => ({ ...at, kind: 'setup_failure' }),
  tool_execution_failure: (detail) => ({ ...at, kind: 'tool_execution_failed', detail: detail!, startSeen: true }),
  tool_execution_interrupted: () => ({ ...at, kind: 'tool_execution_interrupted' }),
  process_exit: (reason) => ({ ...at, kind: 'process_exit', reason: reason! }),
  // No fact names it: the run span never ended.
  crash_or_restart_incomplete: () => undefined,
  unknown_interruption: () => ({ ...at, kind: 'run_error' }),
};

/** Each cause with each of its details (one case with no detail for a cause that has none). */
const cases = CAUSE_TABLE.flatMap((row: CauseRow) =>
  (row.details.length > 0 ? row.details : [undefined]).map((detail) => ({ cause: row.cause as Cause, detail, row })),
);

describe('the closed lists are read from the cause table', () => {
  it('CAUSES and CAUSE_DETAILS are its causes and details, in its order', () => {
    expect(CAUSES).toEqual(CAUSE_TABLE.map((row) => row.cause));
    expect(Object.entries(CAUSE_DETAILS)).toEqual(CAUSE_TABLE.map((row) => [row.cause, row.details]));
  });

  it('TERMINAL_FACT_KINDS are its terminal facts', () => {
    expect([...TERMINAL_FACT_KINDS].sort()).toEqual([...new Set(CAUSE_TABLE.flatMap((r) => r.terminalFacts))].sort());
  });

  it.each(CAUSE_TABLE.map((row) => [row.cause, row] as const))(
    '%s: names native events that exist, and details it has',
    (_cause, row: CauseRow) => {
      for (const event of row.nativeEvents) expect(Object.values(NATIVE_EVENT)).toContain(event);
      if (typeof row.retryable === 'object')
        for (const detail of Object.keys(row.retryable)) expect(row.details).toContain(detail);
    },
  );
});

describe('each cause comes back from the fact that ends a run with it', () => {
  it.each(cases.filter((c) => c.cause !== 'crash_or_restart_incomplete'))(
    '$cause $detail: cause, detail and usual retryability',
    ({ cause, detail, row }) => {
      const fact = (ENDING[cause] as (d: string | undefined) => Fact | undefined)(detail)!;
      expect(row.terminalFacts).toContain(fact.kind);
      const read = causeOf(fact);
      expect(read.cause).toBe(cause);
      expect(read.detail).toBe(detail);
      const usual = row.retryable === 'absent' || row.retryable === 'error' ? undefined : row.retryable;
      const want = typeof usual === 'object' ? usualRetryableByDetail(cause).get(detail!) : usual;
      expect(read.retryable).toBe(want);
    },
  );

  it.each(cases)(
    '$cause $detail: ends a run with no attempt in its phase without attempt',
    ({ cause, detail, row }) => {
      const fact = (ENDING[cause] as (d: string | undefined) => Fact | undefined)(detail);
      const incident = deriveIncident(
        fact ? { facts: [fact], attempts: [] } : { facts: [], attempts: [], neverEnded: true },
      );
      expect(incident.cause).toBe(cause);
      if (fact || detail === 'run_never_ended') expect(incident.causeDetail).toBe(detail);
      expect(incident.phase).toBe(row.phaseWithoutAttempt);
    },
  );
});

describe('a cause is retried automatically as its autoRetry says', () => {
  const retryables = [true, false, undefined] as const;
  const grid = CAUSE_TABLE.flatMap((row: CauseRow) => retryables.map((retryable) => ({ row, retryable })));
  it.each(grid)('$row.cause, retryable $retryable', ({ row, retryable }) => {
    const verdict = deriveRetrySafety({
      cause: row.cause as Cause,
      retryable,
      userCancelSeen: false,
      lifecycleCloseSeen: false,
      retriesUsed: 0,
      policy: DEFAULT_POLICY,
    });
    const auto =
      row.autoRetry === 'unless_not_retryable'
        ? retryable !== false
        : row.autoRetry === 'if_retryable'
          ? retryable === true
          : false;
    expect(verdict.retrySafety === 'auto_retry', row.autoRetry).toBe(auto);
  });
});

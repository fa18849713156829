/**
 * The cause table's readers: causesOf and detailsOf keep the table's order,
 * and usualRetryableByDetail reads a row's retryable column as a map by
 * detail (one value for all, a value per listed detail, or none).
 */
import { describe, expect, it } from 'vitest';
import type { CauseRow } from '../../src/model/cause-table.js';
import { CAUSE_TABLE, causesOf, detailsOf, usualRetryableByDetail } from '../../src/model/cause-table.js';

const row = (cause: string, details: string[]): CauseRow =>
  ({
    cause,
    details,
    autoRetry: 'never',
    retryable: 'absent',
    terminalFacts: [],
  }) as unknown as CauseRow;

describe('causesOf and detailsOf', () => {
  const table = [row('b_cause', ['x', 'y']), row('a_cause', []), row('c_cause', ['z'])] as const;

  it('lists the causes in table order', () => {
    expect(causesOf(table)).toEqual(['b_cause', 'a_cause', 'c_cause']);
  });

  it('keys the detail lists by cause, in table order', () => {
    const details = detailsOf(table);
    expect(details).toEqual({ b_cause: ['x', 'y'], a_cause: [], c_cause: ['z'] });
    expect(Object.keys(details)).toEqual(['b_cause', 'a_cause', 'c_cause']);
  });

  it('reads the real table: causes in contract order, unknown_interruption last', () => {
    const causes = causesOf(CAUSE_TABLE);
    expect(causes[0]).toBe('provider_transport_disconnect');
    expect(causes.at(-1)).toBe('unknown_interruption');
    expect(detailsOf(CAUSE_TABLE).watchdog_timeout).toEqual(['connect', 'silent_stream', 'total']);
  });
});

describe('usualRetryableByDetail', () => {
  it.each([
    [
      'one value for every detail',
      'watchdog_timeout',
      [
        ['connect', true],
        ['silent_stream', true],
        ['total', true],
      ],
    ],
    [
      'a value per listed detail only (unknown has none)',
      'provider_api_error',
      [
        ['auth', false],
        ['rate_limit', true],
        ['quota_exhausted', false],
        ['server_overload', true],
        ['invalid_request', false],
        ['context_overflow', false],
        ['content_filter', false],
      ],
    ],
    ['a cause that never carries one', 'user_cancel', []],
    ['a cause whose value is the error’s own', 'unknown_interruption', []],
    ['a cause not in the table', 'no_such_cause', []],
  ])('reads %s (%s)', (_what, cause, expected) => {
    expect([...usualRetryableByDetail(cause)]).toEqual(expected);
  });

  it('gives tls as the one transport detail not retryable', () => {
    const map = usualRetryableByDetail('provider_transport_disconnect');
    expect([...map].filter(([, retryable]) => !retryable).map(([detail]) => detail)).toEqual(['tls']);
    expect(map.size).toBe(5);
  });
});

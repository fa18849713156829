/**
 * The attribute records of verdicts (src/derive/incident-attributes.ts,
 * docs/attributes.md): a run's keys, only those that apply, and a failed
 * attempt's `incident.attempt.*` keys. What a verdict does to the span's
 * status is test/derive/run-span-status.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { attemptVerdictAttributes, incidentAttributes } from '../../src/derive/incident-attributes.js';
import type { AttemptVerdict, Incident } from '../../src/model/incident.js';

const SUCCESS: Incident = {
  outcome: 'success',
  sideEffects: 'none',
  factsComplete: true,
  missingFacts: [],
  attempts: 1,
  recoveredAttempts: 0,
};

const FAILED: Incident = {
  outcome: 'failed',
  cause: 'provider_transport_disconnect',
  causeDetail: 'connection_reset',
  phase: 'text_generation',
  retrySafety: 'offer_continue',
  retrySafetyReason: 'visible_output_without_tool_execution',
  retryable: false,
  errorCode: 'ECONNRESET',
  sideEffects: 'read_only',
  factsComplete: false,
  missingFacts: ['provider_progress_missing'],
  attempts: 2,
  recoveredAttempts: 1,
  recovery: { action: 'retry', reason: 'auto_retry_allowed', strategy: 'safeRetry' },
};

describe('incidentAttributes', () => {
  it('writes a success with the keys every run has, and nothing that does not apply', () => {
    expect(incidentAttributes(SUCCESS)).toEqual({
      'incident.outcome': 'success',
      'incident.side_effects': 'none',
      'incident.facts_complete': true,
      'incident.attempts': 1,
      'incident.recovered_attempts': 0,
      'incident.schema_version': 8,
    });
  });

  it('writes every key of a failure, missing facts and recovery included', () => {
    expect(incidentAttributes(FAILED)).toEqual({
      'incident.outcome': 'failed',
      'incident.side_effects': 'read_only',
      'incident.facts_complete': false,
      'incident.attempts': 2,
      'incident.recovered_attempts': 1,
      'incident.schema_version': 8,
      'incident.missing_facts': ['provider_progress_missing'],
      'incident.recovery.action': 'retry',
      'incident.recovery.reason': 'auto_retry_allowed',
      'incident.recovery.strategy': 'safeRetry',
      'incident.cause': 'provider_transport_disconnect',
      'incident.cause.detail': 'connection_reset',
      'incident.phase': 'text_generation',
      'incident.retry_safety': 'offer_continue',
      'incident.retry_safety.reason': 'visible_output_without_tool_execution',
      'incident.retryable': false,
      'incident.error.code': 'ECONNRESET',
    });
  });

  it('a success never carries cause keys, even if the verdict had them', () => {
    const keys = Object.keys(incidentAttributes({ ...FAILED, outcome: 'success' }));
    expect(keys.filter((key) => /^incident\.(cause|phase|retry|error)/.test(key))).toEqual([]);
  });

  it('leaves incident.retryable out when it is unknown', () => {
    expect(Object.keys(incidentAttributes({ ...FAILED, retryable: undefined }))).not.toContain('incident.retryable');
  });

  it('copies the missing facts, so the record never shares the verdict array', () => {
    const record = incidentAttributes(FAILED);
    expect(record['incident.missing_facts']).not.toBe(FAILED.missingFacts);
  });
});

describe('attemptVerdictAttributes', () => {
  const verdict: AttemptVerdict = {
    number: 2,
    cause: 'provider_transport_disconnect',
    phase: 'before_first_provider_progress',
    retrySafety: 'auto_retry',
    retrySafetyReason: 'no_visible_output_or_tool_execution',
  };

  it.each([
    [
      'the required keys only, when the verdict has no detail, retryability or code',
      verdict,
      {
        'incident.attempt.number': 2,
        'incident.attempt.cause': 'provider_transport_disconnect',
        'incident.attempt.phase': 'before_first_provider_progress',
        'incident.attempt.retry_safety': 'auto_retry',
        'incident.attempt.retry_safety.reason': 'no_visible_output_or_tool_execution',
      },
    ],
    [
      'the optional keys when present',
      { ...verdict, causeDetail: 'connection_reset', retryable: false, errorCode: 'ECONNRESET' },
      {
        'incident.attempt.number': 2,
        'incident.attempt.cause': 'provider_transport_disconnect',
        'incident.attempt.phase': 'before_first_provider_progress',
        'incident.attempt.retry_safety': 'auto_retry',
        'incident.attempt.retry_safety.reason': 'no_visible_output_or_tool_execution',
        'incident.attempt.cause.detail': 'connection_reset',
        'incident.attempt.retryable': false,
        'incident.attempt.error.code': 'ECONNRESET',
      },
    ],
  ])('writes %s', (_case, given, expected) => {
    expect(attemptVerdictAttributes(given)).toEqual(expected);
  });
});

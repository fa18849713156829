/**
 * Thrown errors as fact events: classified through their cause chain, the
 * retry-after wait read (and the clock with it) only when the caller gave
 * none, and the `error.type` and status message an owned span gets.
 */
import { describe, expect, it } from 'vitest';
import { providerFailureOf, setupFailureEvent, toolFailureOf } from '../../src/runtime/error-events.js';

function socketDrop(): Error {
  return new TypeError('terminated', {
    cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
  });
}

describe('error events', () => {
  it('a dropped socket is a retryable transport error, its code the span’s error.type', () => {
    const failure = providerFailureOf(socketDrop(), undefined, () => 0);
    expect(failure.event.name).toBe('agent_incidents.provider_error');
    expect(failure.event.attributes).toMatchObject({
      'agent_incidents.error.kind': 'transport',
      'agent_incidents.error.code': 'UND_ERR_SOCKET',
    });
    expect(failure.errorType).toBe('UND_ERR_SOCKET');
    expect(failure.message).toBe('terminated');
    expect(failure.retryAfterMillis).toBeUndefined();
  });

  it.each([
    { promise: 'a wait the caller gives is written, and the clock is not read', given: 1500, expected: 1500, reads: 0 },
    { promise: 'a negative wait is not written', given: -1, expected: undefined, reads: 0 },
    { promise: 'no wait given: the error is read against the clock', given: undefined, expected: undefined, reads: 1 },
  ])('$promise', ({ given, expected, reads }) => {
    let clockReads = 0;
    const failure = providerFailureOf(new Error('boom'), given, () => {
      clockReads += 1;
      return 0;
    });
    expect(failure.retryAfterMillis).toBe(expected);
    expect(failure.event.attributes['agent_incidents.error.retry_after_ms']).toBe(expected);
    expect(clockReads).toBe(reads);
  });

  it('an error with no code or detail is _OTHER on the span; a thrown string is its own message', () => {
    const failure = providerFailureOf('weird', undefined, () => 0);
    expect(failure.errorType).toBe('_OTHER');
    expect(failure.message).toBe('weird');
  });

  it('a tool failure is classified into a closed kind, its code the error.type when it has one', () => {
    const failure = toolFailureOf(Object.assign(new Error('denied'), { code: 'EACCES' }));
    expect(failure.event.name).toBe('agent_incidents.tool_execution_failed');
    expect(failure.event.attributes['agent_incidents.tool.failure_kind']).toBe('permission_denied');
    expect(failure.event.attributes['agent_incidents.error.code']).toBe('EACCES');
    expect(failure.errorType).toBe('EACCES');
  });

  it('a tool failure without a code names its kind as the error.type', () => {
    const failure = toolFailureOf(new Error('something odd'));
    expect(failure.event.attributes).toEqual({ 'agent_incidents.tool.failure_kind': 'unknown' });
    expect(failure.errorType).toBe('unknown');
  });

  it('a setup failure carries the error’s code only', () => {
    expect(setupFailureEvent(socketDrop())).toEqual({
      name: 'agent_incidents.setup_failure',
      attributes: { 'agent_incidents.error.code': 'UND_ERR_SOCKET' },
    });
    expect(setupFailureEvent(new Error('model not configured'))).toEqual({
      name: 'agent_incidents.setup_failure',
      attributes: {},
    });
  });
});

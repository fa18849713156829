/**
 * The reply builders of the fake provider's script, and the test that tells an HTTP error
 * answer from a scripted one.
 */
import { describe, expect, it } from 'vitest';
import type { Reply } from '../../../src/testing/fake-provider/script.js';
import { DEFAULT_REPLY, isStatusReply, reply } from '../../../src/testing/fake-provider/script.js';

describe('reply builders', () => {
  it.each<[string, () => Reply, Reply]>([
    [
      'script keeps its steps in order',
      () => reply.script({ type: 'open' }, { type: 'stall' }),
      { steps: [{ type: 'open' }, { type: 'stall' }] },
    ],
    ['text is one text step', () => reply.text('hi'), { steps: [{ type: 'text', text: 'hi' }] }],
    [
      'text of an array keeps the deltas',
      () => reply.text(['a', 'b']),
      { steps: [{ type: 'text', text: ['a', 'b'] }] },
    ],
    [
      'toolCall writes the input as JSON and no id when none is given',
      () => reply.toolCall('search', { q: 'x' }),
      { steps: [{ type: 'tool-call', name: 'search', arguments: '{"q":"x"}' }] },
    ],
    [
      'toolCall keeps a given id',
      () => reply.toolCall('search', 1, 'call_1'),
      { steps: [{ type: 'tool-call', name: 'search', arguments: '1', id: 'call_1' }] },
    ],
    ['status defaults to no headers', () => reply.status(503), { status: 503, headers: {} }],
    [
      'status keeps headers',
      () => reply.status(429, { 'retry-after': '0' }),
      { status: 429, headers: { 'retry-after': '0' } },
    ],
    [
      'insufficientQuota defaults to 400',
      () => reply.insufficientQuota(),
      { status: 400, error: { type: 'insufficient_quota' } },
    ],
    [
      'insufficientQuota takes a status',
      () => reply.insufficientQuota(429),
      { status: 429, error: { type: 'insufficient_quota' } },
    ],
    ['stall is one stall step', () => reply.stall(), { steps: [{ type: 'stall' }] }],
    ['destroy is one destroy step', () => reply.destroy(), { steps: [{ type: 'destroy' }] }],
  ])('%s', (_name, build, expected) => {
    expect(build()).toEqual(expected);
  });

  it('toolCall leaves out the id key entirely when none is given', () => {
    const step = (reply.toolCall('t', {}) as { steps: readonly object[] }).steps[0];
    expect(Object.keys(step ?? {})).toEqual(['type', 'name', 'arguments']);
  });
});

describe('DEFAULT_REPLY', () => {
  it('is a single text greeting', () => {
    expect(DEFAULT_REPLY).toEqual({ steps: [{ type: 'text', text: 'Hello from the fake provider.' }] });
  });
});

describe('isStatusReply', () => {
  it.each<[string, Reply, boolean]>([
    ['an HTTP error', { status: 500 }, true],
    ['an HTTP error with a raw body', { status: 502, body: 'bad gateway' }, true],
    ['a script', { steps: [] }, false],
    ['a script with headers', { steps: [{ type: 'destroy' }], headers: { 'x-a': '1' } }, false],
  ])('tells %s (%j) → %s', (_name, value, expected) => {
    expect(isStatusReply(value)).toBe(expected);
  });
});

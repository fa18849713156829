/**
 * The dialect helpers: one server-sent event's text, and filling a provider error's missing
 * fields from a dialect's defaults.
 */
import { describe, expect, it } from 'vitest';
import { resolveError, sse } from '../../../src/testing/fake-provider/dialect.js';
import type { ProviderError } from '../../../src/testing/fake-provider/script.js';

describe('sse', () => {
  it.each<[string, unknown, string | undefined, string]>([
    ['a data line alone when no event is named', { a: 1 }, undefined, 'data: {"a":1}\n\n'],
    [
      'an event line before the data line',
      { type: 'x' },
      'message_start',
      'event: message_start\ndata: {"type":"x"}\n\n',
    ],
    ['a string as JSON', 'hi', undefined, 'data: "hi"\n\n'],
    ['an empty event name as an empty event line', null, '', 'event: \ndata: null\n\n'],
  ])('writes %s', (_name, data, event, expected) => {
    expect(sse(data, event)).toBe(expected);
  });
});

describe('resolveError', () => {
  const calls: [number, string | undefined][] = [];
  const defaults = (status: number, type: string | undefined): { type: string; message: string } => {
    calls.push([status, type]);
    return type === 'insufficient_quota'
      ? { type: 'billing_error', message: 'No credit.' }
      : { type: `default_${status}`, message: `Default ${status}.` };
  };

  it.each<[string, number, ProviderError | undefined, { type: string; code: string; message: string }]>([
    [
      'takes every field from the defaults when no error is given',
      503,
      undefined,
      { type: 'default_503', code: 'default_503', message: 'Default 503.' },
    ],
    [
      'takes every field from the defaults for an empty error',
      429,
      {},
      { type: 'default_429', code: 'default_429', message: 'Default 429.' },
    ],
    [
      'keeps a given type and uses it as the code',
      500,
      { type: 'server_error' },
      { type: 'server_error', code: 'server_error', message: 'Default 500.' },
    ],
    [
      'keeps a given code apart from the type',
      500,
      { type: 'a', code: 'b' },
      { type: 'a', code: 'b', message: 'Default 500.' },
    ],
    ['keeps a given message', 500, { message: 'Boom' }, { type: 'default_500', code: 'default_500', message: 'Boom' }],
    [
      'words insufficient_quota the dialect’s way, but keeps it as the code',
      400,
      { type: 'insufficient_quota' },
      { type: 'billing_error', code: 'insufficient_quota', message: 'No credit.' },
    ],
  ])('%s', (_name, status, error, expected) => {
    expect(resolveError(defaults, status, error)).toEqual(expected);
  });

  it('asks the defaults for the status and the given type', () => {
    calls.length = 0;
    resolveError(defaults, 418, { type: 'teapot' });
    expect(calls).toEqual([[418, 'teapot']]);
  });
});

/**
 * Error classification as a table: real error shapes in, closed values out.
 */
import { describe, expect, it } from 'vitest';
import type { ErrorFact } from '../../src/index.js';
import { classifyError, classifyToolError, describeError } from '../../src/derive/classify-error.js';

const withCause = (message: string, cause: unknown, name = 'Error') =>
  Object.assign(new Error(message, { cause }), { name });
const coded = (message: string, code: string) => Object.assign(new Error(message), { code });
const api = (status: number, message: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), { name: 'AI_APICallError', statusCode: status, ...extra });

const cases: Array<{ name: string; error: unknown; want: Partial<ErrorFact> }> = [
  {
    name: 'undici socket drop wrapped in TypeError: terminated',
    error: new TypeError('terminated', { cause: coded('other side closed', 'UND_ERR_SOCKET') }),
    want: { kind: 'transport', detail: 'socket_closed', code: 'UND_ERR_SOCKET', retryable: true },
  },
  {
    name: 'a socket drop three wrappers deep',
    error: withCause(
      'stream failed',
      withCause('fetch failed', new TypeError('terminated', { cause: coded('x', 'UND_ERR_SOCKET') })),
    ),
    want: { kind: 'transport', code: 'UND_ERR_SOCKET' },
  },
  {
    name: 'ECONNRESET',
    error: coded('read ECONNRESET', 'ECONNRESET'),
    want: { kind: 'transport', detail: 'connection_reset', retryable: true },
  },
  {
    name: 'a TLS certificate error is not retryable',
    error: coded('unable to verify', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'),
    want: { kind: 'transport', detail: 'tls', retryable: false },
  },
  {
    name: 'a bare TypeError: terminated',
    error: new TypeError('terminated'),
    want: { kind: 'transport', detail: 'stream_terminated', retryable: true },
  },
  {
    name: '503 is a retryable overload',
    error: api(503, 'Service Unavailable', { isRetryable: true }),
    want: { kind: 'api', detail: 'server_overload', code: 'http_503', retryable: true },
  },
  {
    name: '529 overloaded',
    error: api(529, 'Overloaded'),
    want: { kind: 'api', detail: 'server_overload', code: 'http_529' },
  },
  {
    name: '429 is a retryable rate limit',
    error: api(429, 'Too Many Requests'),
    want: { kind: 'api', detail: 'rate_limit', retryable: true },
  },
  {
    name: '429 insufficient_quota is quota, not rate limit',
    error: api(429, 'You exceeded your current quota', { data: { error: { type: 'insufficient_quota' } } }),
    want: { kind: 'api', detail: 'quota_exhausted', retryable: false },
  },
  { name: '401 is auth', error: api(401, 'Unauthorized'), want: { kind: 'api', detail: 'auth', retryable: false } },
  {
    name: '400 context length',
    error: api(400, "This model's maximum context length is 128000 tokens"),
    want: { kind: 'api', detail: 'context_overflow', retryable: false },
  },
  {
    name: '400 content filter',
    error: api(400, 'blocked', { data: { error: { code: 'content_filter' } } }),
    want: { kind: 'api', detail: 'content_filter', retryable: false },
  },
  {
    name: '400 invalid request',
    error: api(400, 'Bad Request'),
    want: { kind: 'api', detail: 'invalid_request', retryable: false },
  },
  {
    name: 'an isRetryable hint cannot make auth retryable',
    error: api(403, 'Forbidden', { isRetryable: true }),
    want: { detail: 'auth', retryable: false },
  },
  {
    name: 'an Anthropic overloaded error chunk',
    error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    want: { kind: 'api', detail: 'server_overload', code: 'overloaded_error', retryable: true },
  },
  {
    name: 'an application bug is unknown, never a disconnect',
    error: new TypeError("Cannot read properties of undefined (reading 'x')"),
    want: { kind: 'unknown' },
  },
  { name: 'a string', error: 'something broke', want: { kind: 'unknown' } },
  { name: 'null', error: null, want: { kind: 'unknown' } },
  {
    name: 'a cyclic cause chain',
    error: (() => {
      const e = new Error('loop') as Error & { cause?: unknown };
      e.cause = e;
      return e;
    })(),
    want: { kind: 'unknown' },
  },
  {
    name: 'a getter that throws',
    error: Object.defineProperty(new Error('x'), 'code', {
      get() {
        throw new Error('boom');
      },
    }),
    want: { kind: 'unknown' },
  },
];

describe('classifyError', () => {
  it.each(cases)('$name', ({ error, want }) => {
    expect(classifyError(describeError(error))).toMatchObject(want);
  });

  it('never lets an unsafe code through', () => {
    const fact = classifyError(describeError(coded('x', 'secret value with spaces and /paths')));
    expect(fact.code).toBeUndefined();
  });
});

describe('classifyToolError', () => {
  const toolCases: Array<[string, unknown, string]> = [
    [
      'invalid arguments',
      Object.assign(new Error('Invalid arguments for tool read'), { name: 'AI_InvalidToolArgumentsError' }),
      'invalid_arguments',
    ],
    ['permission denied', coded('EACCES: permission denied', 'EACCES'), 'permission_denied'],
    ['missing file', coded('ENOENT: no such file', 'ENOENT'), 'environment'],
    ['timeout', new Error('command timed out after 120s'), 'timeout'],
    ['provider', api(500, 'upstream'), 'provider'],
    ['anything else', new Error('exit status 1'), 'unknown'],
  ];
  it.each(toolCases)('%s', (_name, error, want) => {
    expect(classifyToolError(describeError(error))).toBe(want);
  });
});

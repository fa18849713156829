/**
 * describeSpanError, describeException, classifyDescribed and isAbortError:
 * the error a span shows read from its exception events, `error.type`, HTTP
 * status and status message (with the codes quoted in messages), and what
 * the AI SDK's error names add to its classification.
 */
import { describe, expect, it } from 'vitest';
import type { EventView, SpanView } from '../../src/conventions/span-view.js';
import {
  STATUS_ERROR,
  classifyDescribed,
  describeException,
  describeSpanError,
  isAbortError,
} from '../../src/conventions/span-error.js';

const exception = (type?: string, message?: string): EventView => ({
  name: 'exception',
  timeMillis: 1,
  attributes: { 'exception.type': type, 'exception.message': message },
});
const view = (fields: Partial<SpanView> = {}): SpanView => ({
  spanId: 's',
  name: 'chat',
  startMillis: 0,
  attributes: {},
  events: [],
  links: [],
  statusCode: STATUS_ERROR,
  ...fields,
});

describe('describeSpanError', () => {
  it('gathers names, messages, codes and HTTP status from every source', () => {
    expect(
      describeSpanError(
        view({
          attributes: { 'error.type': 'timeout', 'http.response.status_code': 503 },
          events: [
            exception('TypeError', 'fetch failed, cause: UND_ERR_SOCKET'),
            { name: 'retry', timeMillis: 2, attributes: { 'exception.type': 'Ignored' } },
            exception(undefined, 'read ECONNRESET and ERR_STREAM_PREMATURE_CLOSE'),
          ],
          statusMessage: 'upstream EPIPE',
        }),
      ),
    ).toEqual({
      names: ['TypeError'],
      messages: [
        'fetch failed, cause: UND_ERR_SOCKET',
        'read ECONNRESET and ERR_STREAM_PREMATURE_CLOSE',
        'upstream EPIPE',
      ],
      codes: ['timeout', 'UND_ERR_SOCKET', 'ECONNRESET', 'ERR_STREAM_PREMATURE_CLOSE', 'EPIPE'],
      httpStatus: 503,
    });
  });

  it('does not read words such as ERROR or EMPTY as codes', () => {
    expect(describeSpanError(view({ statusMessage: 'ERROR: EMPTY response, EFOO' })).codes).toEqual([]);
  });

  it('reads only the events it is given (the last try of a span that covers retries)', () => {
    const first = exception('AI_APICallError', 'overloaded');
    const last = exception('TypeError', 'terminated');
    expect(describeSpanError(view({ events: [first, last] }), [last])).toEqual({
      names: ['TypeError'],
      messages: ['terminated'],
      codes: [],
      httpStatus: undefined,
    });
  });

  it('cuts each message to 4096 characters', () => {
    const { messages } = describeSpanError(
      view({ events: [exception('E', 'x'.repeat(5000))], statusMessage: 'y'.repeat(5000) }),
    );
    expect(messages?.map((m) => m.length)).toEqual([4096, 4096]);
  });
});

describe('describeException', () => {
  it.each([
    [
      'type and message with a code',
      exception('Error', 'connect ECONNREFUSED 127.0.0.1'),
      { names: ['Error'], messages: ['connect ECONNREFUSED 127.0.0.1'], codes: ['ECONNREFUSED'] },
    ],
    ['no attributes', { name: 'exception', timeMillis: 1 }, { names: [], messages: [], codes: [] }],
    [
      'a non-string message',
      { name: 'exception', timeMillis: 1, attributes: { 'exception.message': 5 } },
      { names: [], messages: [], codes: [] },
    ],
  ])('describes %s', (_what, event, expected) => {
    expect(describeException(event)).toEqual(expected);
  });
});

describe('classifyDescribed', () => {
  it.each([
    [
      'a transport code',
      { names: [], messages: ['read ECONNRESET'], codes: ['ECONNRESET'] },
      { kind: 'transport', detail: 'connection_reset', code: 'ECONNRESET', retryable: true },
    ],
    [
      'an HTTP status the AI SDK reported',
      { names: ['AI_APICallError'], messages: [], codes: [], httpStatus: 429 },
      { kind: 'api', detail: 'rate_limit', code: 'http_429', retryable: true },
    ],
    [
      'AI_APICallError with nothing else known',
      { names: ['AI_APICallError'], messages: ['weird'], codes: [] },
      { kind: 'api', detail: 'unknown', code: undefined, retryable: undefined },
    ],
    [
      'AI_RetryError: retries exhausted',
      { names: ['AI_RetryError'], messages: ['weird'], codes: [] },
      { kind: 'api', detail: 'unknown', code: undefined, retryable: false },
    ],
    ['an unknown error of no named layer', { names: ['Error'], messages: ['weird'], codes: [] }, { kind: 'unknown' }],
  ])('classifies %s', (_what, description, expected) => {
    expect(classifyDescribed(description)).toEqual(expected);
  });
});

describe('isAbortError', () => {
  it.each([
    [['AbortError'], true],
    [['Error', 'TimeoutError'], true],
    [['ResponseAborted'], true],
    [['AI_APICallError'], false],
    [[], false],
  ])('%j is an abort: %s', (names, expected) => {
    expect(isAbortError({ names, messages: [], codes: [] })).toBe(expected);
  });

  it('is not an abort without names', () => {
    expect(isAbortError({ messages: ['AbortError'], codes: [] })).toBe(false);
  });
});

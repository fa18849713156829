/** The gateway serves three routes; anything else is 404, and the trace endpoint only takes POST (405). */
import { describe, expect, it } from 'vitest';
import { route } from '../../src/gateway/routes.js';

describe('route', () => {
  it.each([
    { method: 'POST', url: '/v1/traces', expected: { handler: 'traces' } },
    { method: 'POST', url: '/v1/traces?x=1', expected: { handler: 'traces' } },
    { method: 'GET', url: '/v1/traces', expected: { handler: 'none', status: 405, message: 'use POST' } },
    { method: 'PUT', url: '/v1/traces', expected: { handler: 'none', status: 405, message: 'use POST' } },
    { method: 'GET', url: '/healthz', expected: { handler: 'healthz' } },
    { method: 'GET', url: '/metrics?name=x', expected: { handler: 'metrics' } },
    { method: 'POST', url: '/metrics', expected: { handler: 'none', status: 404, message: 'not found' } },
    { method: 'GET', url: '/v1/logs', expected: { handler: 'none', status: 404, message: 'not found' } },
    { method: 'GET', url: '/v1/traces/', expected: { handler: 'none', status: 404, message: 'not found' } },
    { method: undefined, url: undefined, expected: { handler: 'none', status: 404, message: 'not found' } },
  ])('$method $url → $expected.handler', ({ method, url, expected }) => {
    expect(route(method, url)).toEqual(expected);
  });
});

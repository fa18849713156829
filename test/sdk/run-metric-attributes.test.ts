/**
 * The attributes of one `agent.runs` count (docs/attributes.md#metric-agentruns): closed values only,
 * the cause, phase and retry safety for runs that did not succeed, and a provider name outside the
 * list read as `_OTHER`, so the metric's cardinality stays bounded.
 */
import { describe, expect, it } from 'vitest';
import type { Incident } from '../../src/model/incident.js';
import { lostMetricAttributes, runMetricAttributes } from '../../src/sdk/run-metric-attributes.js';

const NAMES = new Set(['openai']);
const FAILED = {
  outcome: 'failed',
  cause: 'provider_transport_disconnect',
  phase: 'text_generation',
  retrySafety: 'offer_continue',
} as unknown as Incident;

describe('runMetricAttributes', () => {
  it.each<[string, Incident, unknown, Record<string, string>]>([
    ['a success: its outcome only', { outcome: 'success' } as Incident, undefined, { 'incident.outcome': 'success' }],
    [
      'a failure: cause, phase and retry safety, a known provider',
      FAILED,
      'openai',
      {
        'incident.outcome': 'failed',
        'incident.cause': 'provider_transport_disconnect',
        'incident.phase': 'text_generation',
        'incident.retry_safety': 'offer_continue',
        'gen_ai.provider.name': 'openai',
      },
    ],
    [
      'a provider outside the list',
      { outcome: 'success' } as Incident,
      'my-proxy',
      { 'incident.outcome': 'success', 'gen_ai.provider.name': '_OTHER' },
    ],
    ['a provider that is not a string', { outcome: 'success' } as Incident, 42, { 'incident.outcome': 'success' }],
    [
      'a recovery: its action, never the strategy name',
      { outcome: 'recovered', recovery: { action: 'retried', strategy: 'mine' } } as unknown as Incident,
      undefined,
      { 'incident.outcome': 'recovered', 'incident.recovery.action': 'retried' },
    ],
  ])('%s', (_, incident, provider, expected) => {
    expect(runMetricAttributes(incident, provider, NAMES)).toEqual(expected);
  });
});

describe('lostMetricAttributes', () => {
  it.each<[string, Incident, Record<string, string>]>([
    ['a success: its outcome only', { outcome: 'success' } as Incident, { 'incident.outcome': 'success' }],
    [
      'a failure: cause and retry safety, never the phase',
      FAILED,
      {
        'incident.outcome': 'failed',
        'incident.cause': 'provider_transport_disconnect',
        'incident.retry_safety': 'offer_continue',
      },
    ],
  ])('%s', (_, incident, expected) => {
    expect(lostMetricAttributes(incident)).toEqual(expected);
  });
});

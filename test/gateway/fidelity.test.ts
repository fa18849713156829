/**
 * What a sender sent leaves the gateway as it came, plus the verdict: trace
 * state, span and link flags, resource and scope schema URLs, scope
 * attributes, every dropped count, and int64 values beyond 2^53 exactly, in
 * both upstream encodings, through real HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/gateway.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { startUpstream } from '../support/upstream.js';

let gateway: Gateway | undefined;
let upstream: Awaited<ReturnType<typeof startUpstream>> | undefined;
afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
});

const BIG = '9007199254740993'; // 2^53 + 1: a double would round it
const MIN = '-9223372036854775808';
const traceId = 'ab'.repeat(16);
const now = BigInt(Date.now()) * 1_000_000n;

const request = {
  resourceSpans: [
    {
      resource: {
        attributes: [
          { key: 'service.name', value: { stringValue: 'fidelity' } },
          { key: 'host.id.big', value: { intValue: BIG } },
        ],
        droppedAttributesCount: 3,
      },
      schemaUrl: 'https://opentelemetry.io/schemas/1.26.0',
      scopeSpans: [
        {
          scope: {
            name: 'agent-lib',
            version: '2.1.0',
            attributes: [{ key: 'lib.flavour', value: { stringValue: 'async' } }],
            droppedAttributesCount: 1,
          },
          schemaUrl: 'https://opentelemetry.io/schemas/1.24.0',
          spans: [
            {
              traceId,
              spanId: '11'.repeat(8),
              traceState: 'vendor=a1b2,other=c3',
              flags: 0x301,
              name: 'invoke_agent planner',
              kind: 1,
              startTimeUnixNano: String(now - 5_000_000n),
              endTimeUnixNano: String(now),
              attributes: [
                { key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } },
                { key: 'app.counter', value: { intValue: BIG } },
                { key: 'app.min', value: { intValue: MIN } },
                { key: 'app.ratio', value: { doubleValue: 0.25 } },
                { key: 'app.list', value: { arrayValue: { values: [{ intValue: '1' }, { intValue: BIG }] } } },
              ],
              droppedAttributesCount: 2,
              events: [
                {
                  timeUnixNano: String(now - 1_000n),
                  name: 'checkpoint',
                  attributes: [{ key: 'n', value: { intValue: '7' } }],
                  droppedAttributesCount: 4,
                },
              ],
              droppedEventsCount: 5,
              links: [
                {
                  traceId: 'cd'.repeat(16),
                  spanId: '22'.repeat(8),
                  traceState: 'linked=1',
                  flags: 0x301,
                  attributes: [{ key: 'link.kind', value: { stringValue: 'follows' } }],
                  droppedAttributesCount: 6,
                },
              ],
              droppedLinksCount: 7,
              status: {},
            },
          ],
        },
      ],
    },
  ],
};

describe('the gateway forwards every field it received', () => {
  it.each(['protobuf', 'json'] as const)('upstream encoding %s', async (encoding) => {
    upstream = await startUpstream();
    gateway = await createGateway({
      listen: { port: 0 },
      upstream: { endpoint: upstream.endpoint, encoding },
      hold: { decisionWaitMillis: 0, tickMillis: 10 },
      sanitization: { mode: 'off' },
    });
    const response = await fetch(`${gateway.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    expect(response.status).toBe(200);
    await gateway.flush();
    const [span] = upstream.received;
    expect(span).toBeDefined();
    expect(span!.traceState).toBe('vendor=a1b2,other=c3');
    expect(span!.flags).toBe(0x301);
    expect(span!.attributes['app.counter']).toBe(BigInt(BIG));
    expect(span!.attributes['app.min']).toBe(BigInt(MIN));
    expect(span!.attributes['app.ratio']).toBe(0.25);
    expect(span!.attributes['app.list']).toEqual([1, BigInt(BIG)]);
    expect(span!.droppedAttributesCount).toBe(2);
    expect(span!.droppedEventsCount).toBe(5);
    expect(span!.droppedLinksCount).toBe(7);
    expect(span!.events[0]).toMatchObject({
      name: 'checkpoint',
      droppedAttributesCount: 4,
      timeUnixNano: now - 1_000n,
    });
    expect(span!.links[0]).toMatchObject({
      traceId: 'cd'.repeat(16),
      spanId: '22'.repeat(8),
      traceState: 'linked=1',
      flags: 0x301,
      droppedAttributesCount: 6,
      attributes: { 'link.kind': 'follows' },
    });
    expect(span!.resource['host.id.big']).toBe(BigInt(BIG));
    expect(span!.resourceEnvelope).toEqual({
      droppedAttributesCount: 3,
      schemaUrl: 'https://opentelemetry.io/schemas/1.26.0',
    });
    expect(span!.scope).toEqual({
      name: 'agent-lib',
      version: '2.1.0',
      attributes: { 'lib.flavour': 'async' },
      droppedAttributesCount: 1,
      schemaUrl: 'https://opentelemetry.io/schemas/1.24.0',
    });
    expect(span!.startTimeUnixNano).toBe(now - 5_000_000n);
    expect(span!.endTimeUnixNano).toBe(now);
    // And the verdict, on top.
    expect(typeof span!.attributes['incident.outcome']).toBe('string');
  });

  it('scrubs trace state, scope attributes and schema URLs like every other text field', async () => {
    upstream = await startUpstream();
    gateway = await createGateway({
      listen: { port: 0 },
      upstream: { endpoint: upstream.endpoint },
      hold: { decisionWaitMillis: 0, tickMillis: 10 },
    });
    const secret = 'AKIA' + 'Z7QW3ERT5YU6IO8P';
    const dirty = structuredClone(request);
    const scopeSpans = dirty.resourceSpans[0]!.scopeSpans[0]!;
    scopeSpans.spans[0]!.traceState = `vendor=${secret}`;
    scopeSpans.scope.attributes.push({ key: 'lib.note', value: { stringValue: `key ${secret}` } });
    scopeSpans.schemaUrl = `https://user:${secret}@schemas.example/1.0`;
    dirty.resourceSpans[0]!.schemaUrl = `https://user:${secret}@schemas.example/2.0`;
    const response = await fetch(`${gateway.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(dirty),
    });
    expect(response.status).toBe(200);
    await gateway.flush();
    expect(upstream.bodies.length).toBeGreaterThan(0);
    for (const body of upstream.bodies) expect(body.toString('latin1')).not.toContain(secret);
    expect(upstream.received[0]?.scope?.attributes['lib.note']).toContain('[redacted');
  });
});

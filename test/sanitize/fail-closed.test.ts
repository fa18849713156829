/**
 * Sanitization fails closed field by field: a field that cannot be sanitized
 * is replaced by `[redacted:unsanitizable]`, and never lets the fields after
 * it leave unsanitized. On the SDK processor and on the gateway, which also
 * scrubs bytes values and the instrumentation scope.
 */
import { randomBytes } from 'node:crypto';
import type { Span } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { judgeTrace } from '../../src/gateway/judge-trace.js';
import { ReleasedRuns } from '../../src/gateway/released-runs.js';
import { ResourceCache } from '../../src/gateway/resource-cache.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import { createSanitizer } from '../../src/sanitize/sanitizer.js';
import { createPipeline } from '../support/harness.js';

/** A fresh AWS access key id: a shape every rule set knows. */
function awsKeyId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  return `AKIA${Array.from(randomBytes(16), (b) => alphabet[b % alphabet.length]).join('')}`;
}

/** A fresh home directory user name. */
function user(): string {
  return `u${randomBytes(5).toString('hex')}`;
}

type Raw = Record<string, unknown>;

describe('the processor sanitizes every field on its own', () => {
  const badFields: [
    string,
    (span: Span & { attributes: Raw; events: { name: unknown; attributes?: unknown }[] }) => void,
  ][] = [
    ['an event without a name', (span) => span.addEvent(undefined as unknown as string)],
    ['an event whose name is an object', (span) => span.events.push({ name: { toString: () => 'x' }, attributes: {} })],
    ['an event whose attributes are a string', (span) => span.events.push({ name: 'e', attributes: 'not a map' })],
    ['an attribute holding a function', (span) => void (span.attributes['app.callback'] = () => 'x')],
    [
      'an attribute whose getter throws',
      (span) =>
        Object.defineProperty(span.attributes, 'app.lazy', {
          enumerable: true,
          get: () => {
            throw new Error('no');
          },
        }),
    ],
    ['an attribute holding a class instance', (span) => void (span.attributes['app.when'] = new Date())],
  ];

  it.each(badFields)('%s: the fields after it are still sanitized', (_name, spoil) => {
    const pipeline = createPipeline();
    const secret = awsKeyId();
    const home = user();
    const span = pipeline.tracer.startSpan(`work on /home/${home}/x`) as unknown as Span & {
      attributes: Raw;
      events: { name: unknown; attributes?: unknown }[];
    };
    span.setAttribute('app.first', `key ${secret}`);
    spoil(span);
    span.setAttribute('app.later', `key ${secret}`);
    span.addEvent(`later event /home/${home}/y`, { note: `key ${secret}` });
    span.setStatus({ code: 2, message: `failed with ${secret}` });
    span.end();
    const exported = pipeline.spans()[0]!;
    const text = JSON.stringify(
      { name: exported.name, attributes: exported.attributes, events: exported.events, status: exported.status },
      (_k, v: unknown) => (typeof v === 'function' ? String(v) : v),
    );
    expect(text).not.toContain(secret);
    expect(text).not.toContain(home);
    expect(pipeline.processor.stats().internalErrors).toBe(0);
  });

  it('replaces a value that cannot be sanitized by the marker and counts it', () => {
    const pipeline = createPipeline();
    const span = pipeline.tracer.startSpan('work') as unknown as Span & { attributes: Raw };
    span.attributes['app.callback'] = () => 'x';
    span.end();
    const exported = pipeline.spans()[0]!;
    expect(exported.attributes['app.callback']).toBe('[redacted:unsanitizable]');
    expect(exported.attributes['incident.redactions']).toBe(1);
  });

  it('scrubs map values (OTLP kvlist) key by key and bytes values as UTF-8', () => {
    const pipeline = createPipeline();
    const secret = awsKeyId();
    const span = pipeline.tracer.startSpan('work') as unknown as Span & { attributes: Raw };
    span.attributes['app.map'] = {
      inner: `key ${secret}`,
      'gen_ai.input.messages': 'a prompt',
      deeper: { list: [`key ${secret}`, 1] },
    };
    span.attributes['app.bytes'] = new TextEncoder().encode(`key ${secret}`);
    span.end();
    const exported = pipeline.spans()[0]!.attributes as Raw;
    expect(exported['app.map']).toEqual({
      inner: 'key [redacted:secret]',
      deeper: { list: ['key [redacted:secret]', 1] },
    });
    expect(new TextDecoder().decode(exported['app.bytes'] as Uint8Array)).toBe('key [redacted:secret]');
  });
});

describe('the gateway scrubs what it used to forward as it came', () => {
  const sanitizer = createSanitizer();
  const options = {
    policy: DEFAULT_POLICY,
    sanitizer,
    resources: new ResourceCache(sanitizer),
    released: new ReleasedRuns(60_000),
  };

  function request(secret: string, home: string) {
    const bytes = Buffer.from(`key ${secret}`).toString('base64');
    return {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'app.bytes', value: { bytesValue: bytes } }] },
          scopeSpans: [
            {
              scope: { name: `/home/${home}/instrumentation`, version: `1.0 ${secret}` },
              spans: [
                {
                  traceId: randomBytes(16).toString('hex'),
                  spanId: randomBytes(8).toString('hex'),
                  name: 'chat',
                  startTimeUnixNano: '1700000000000000000',
                  endTimeUnixNano: '1700000001000000000',
                  attributes: [{ key: 'app.bytes', value: { bytesValue: bytes } }],
                  events: [
                    {
                      name: 'e',
                      timeUnixNano: '1700000000500000000',
                      attributes: [{ key: 'b', value: { bytesValue: bytes } }],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
  }

  it('bytes values in span, event and resource attributes, and the scope name and version', async () => {
    const secret = awsKeyId();
    const home = user();
    const { spans } = await judgeTrace(decodeOtlpJsonSpans(request(secret, home)), options, Date.now());
    expect(spans).toHaveLength(1);
    const span = spans[0]!;
    const text = JSON.stringify(
      {
        attributes: span.attributes,
        events: span.events,
        resource: span.resource.attributes,
        scope: span.instrumentationScope,
      },
      (_k, v: unknown) =>
        v instanceof Uint8Array ? new TextDecoder().decode(v) : typeof v === 'bigint' ? v.toString() : v,
    );
    expect(text).not.toContain(secret);
    expect(text).not.toContain(home);
    expect(new TextDecoder().decode(span.attributes['app.bytes'] as unknown as Uint8Array)).toBe(
      'key [redacted:secret]',
    );
  });
});

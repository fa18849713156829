/**
 * encodableSpansOf: decoded spans as the encoder reads them, every field
 * carried over, resources and scopes shared exactly as they were shared in
 * the request, and an open span ended at its start.
 */
import { describe, expect, it } from 'vitest';
import { encodableSpansOf } from '../../src/otlp/encodable-of-decoded.js';
import { decodedSpan } from '../support/decoded-span.js';

describe('encodableSpansOf', () => {
  it('carries every field of a decoded span over', () => {
    const scope = {
      name: 'lib',
      version: '2',
      attributes: { a: 1 },
      droppedAttributesCount: 3,
      schemaUrl: 'https://s',
    };
    const [out] = encodableSpansOf([
      decodedSpan('t1', 's1', {
        parentSpanId: 'p1',
        traceState: 'k=v',
        flags: 1,
        name: 'chat',
        kind: 3,
        attributes: { x: 'y', gone: undefined as never },
        droppedAttributesCount: 4,
        events: [{ name: 'e', timeUnixNano: 9n, attributes: { b: true }, droppedAttributesCount: 1 }],
        droppedEventsCount: 5,
        links: [
          { traceId: 't2', spanId: 's2', traceState: 'a=b', flags: 1, attributes: {}, droppedAttributesCount: 2 },
        ],
        droppedLinksCount: 6,
        statusCode: 2,
        statusMessage: 'boom',
        scope,
        resourceEnvelope: { droppedAttributesCount: 7, schemaUrl: 'https://r' },
      }),
    ]);
    expect(out).toEqual({
      traceId: 't1',
      spanId: 's1',
      parentSpanId: 'p1',
      traceState: 'k=v',
      flags: 1,
      name: 'chat',
      otlpKind: 3,
      startTimeUnixNano: 1_700_000_000_000_000_000n,
      endTimeUnixNano: 1_700_000_000_001_000_000n,
      attributes: { x: 'y' },
      droppedAttributesCount: 4,
      events: [{ timeUnixNano: 9n, name: 'e', attributes: { b: true }, droppedAttributesCount: 1 }],
      droppedEventsCount: 5,
      links: [{ traceId: 't2', spanId: 's2', traceState: 'a=b', flags: 1, attributes: {}, droppedAttributesCount: 2 }],
      droppedLinksCount: 6,
      status: { code: 2, message: 'boom' },
      otlpResource: { attributes: { 'service.name': 'unit' }, droppedAttributesCount: 7, schemaUrl: 'https://r' },
      otlpScope: { name: 'lib', version: '2', attributes: { a: 1 }, droppedAttributesCount: 3, schemaUrl: 'https://s' },
    });
  });

  it('ends an open span at its start and leaves out an absent status message', () => {
    const [out] = encodableSpansOf([decodedSpan('t', 's', { endTimeUnixNano: undefined, statusCode: 1 })]);
    expect(out!.endTimeUnixNano).toBe(1_700_000_000_000_000_000n);
    expect(out!.status).toEqual({ code: 1 });
    expect('message' in out!.status).toBe(false);
  });

  it('builds a scope from the bare scope name and version when the whole scope is absent', () => {
    const [named, bare] = encodableSpansOf([
      decodedSpan('t', 'a', { scopeName: 'n', scopeVersion: '1' }),
      decodedSpan('t', 'b', { resource: {} }),
    ]);
    expect(named!.otlpScope).toEqual({ name: 'n', version: '1' });
    expect(bare!.otlpScope).toEqual({ name: '', version: undefined });
  });

  it('shares one resource and one scope object among the spans that shared them, and no more', () => {
    const r1 = { 'service.name': 'one' };
    const r2 = { 'service.name': 'one' };
    const scope = { name: 'lib', attributes: {} };
    const spans = encodableSpansOf([
      decodedSpan('t', '1', { resource: r1, scope }),
      decodedSpan('t', '2', { resource: r1, scope }),
      decodedSpan('t', '3', { resource: r2 }),
      decodedSpan('t', '4', { resource: r2 }),
    ]);
    expect(spans[0]!.otlpResource).toBe(spans[1]!.otlpResource);
    expect(spans[0]!.otlpScope).toBe(spans[1]!.otlpScope);
    expect(spans[2]!.otlpResource).not.toBe(spans[0]!.otlpResource);
    expect(spans[2]!.otlpResource).toBe(spans[3]!.otlpResource);
    expect(spans[2]!.otlpScope).toBe(spans[3]!.otlpScope);
    expect(spans.map((s) => s.spanId)).toEqual(['1', '2', '3', '4']);
  });

  it('returns nothing for no spans', () => {
    expect(encodableSpansOf([])).toEqual([]);
  });
});

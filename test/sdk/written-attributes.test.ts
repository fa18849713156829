/**
 * writeAttributes: the verdict's attributes reach the ending span past its attribute count limit, a
 * key to remove is gone, and the span gets a new map V8 keeps fast rather than keys added one by one.
 */
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import type { SdkSpan } from '../../src/sdk/sdk-span.js';
import { writeAttributes } from '../../src/sdk/written-attributes.js';

const tracer = new BasicTracerProvider({ spanLimits: { attributeCountLimit: 2 } }).getTracer('unit');

describe('writeAttributes', () => {
  it('writes past the attribute count limit, keeping what the span held', () => {
    const span = tracer.startSpan('invoke_agent', { attributes: { a: 1, b: 2 } }) as unknown as SdkSpan;
    writeAttributes(span, { 'incident.outcome': 'failed', 'incident.attempts': 2 });
    expect(span.attributes).toEqual({ a: 1, b: 2, 'incident.outcome': 'failed', 'incident.attempts': 2 });
  });

  it.each([
    ['a key the span has', 'error.type', { a: 1, 'incident.outcome': 'success' }],
    ['a key the span does not have', 'nothing', { a: 1, 'error.type': 'x', 'incident.outcome': 'success' }],
  ])('removes %s', (_, remove, expected) => {
    const span = tracer.startSpan('s', { attributes: { a: 1, 'error.type': 'x' } }) as unknown as SdkSpan;
    writeAttributes(span, { 'incident.outcome': 'success' }, remove);
    expect(span.attributes).toEqual(expected);
  });

  it('gives the span a new map: the map it held before is left as it was', () => {
    const span = tracer.startSpan('s', { attributes: { a: 1 } }) as unknown as SdkSpan;
    const before = span.attributes;
    writeAttributes(span, { b: 2 });
    expect(span.attributes).not.toBe(before);
    expect(before).toEqual({ a: 1 });
  });
});

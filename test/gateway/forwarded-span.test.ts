/**
 * forwardedSpan (src/gateway/forwarded-span.ts): a decoded span as the
 * gateway forwards it, in the ReadableSpan shape: its own ids, flags, parent,
 * times and duration, API kind, status, links and events; `endAt` cuts an
 * open span off; `sanitize` scrubs the span and its trace states in place.
 */
import { describe, expect, it } from 'vitest';
import type { ForwardedEnvelope } from '../../src/gateway/forwarded-span.js';
import { forwardedSpan } from '../../src/gateway/forwarded-span.js';
import { createSanitizer } from '../../src/sanitize/sanitizer.js';
import { createTally } from '../../src/sanitize/scrubber.js';
import { decodedSpan } from '../support/decoded-span.js';

const TRACE = 'a'.repeat(32);
const ENVELOPE: ForwardedEnvelope = {
  resource: { attributes: { 'service.name': 'unit' } },
  otlpResource: { attributes: { 'service.name': 'unit' } },
  otlpScope: { name: 'lib', version: '1.2', attributes: {} },
};
const SECRET = `sk-proj-${'A1b2C3d4'.repeat(4)}`;
const START = 1_700_000_000_250_000_000n;

describe('forwardedSpan', () => {
  it('keeps the ids, times, status, resource and scope of the decoded span', () => {
    const span = forwardedSpan(
      decodedSpan(TRACE, '1'.repeat(16), {
        parentSpanId: '2'.repeat(16),
        name: 'chat',
        kind: 3,
        startTimeUnixNano: START,
        endTimeUnixNano: START + 1_800_000_000n,
        statusCode: 2,
        statusMessage: 'boom',
        attributes: { 'gen_ai.operation.name': 'chat' },
        droppedAttributesCount: 4,
      }),
      ENVELOPE,
    );
    expect(span.spanContext()).toEqual({ traceId: TRACE, spanId: '1'.repeat(16), traceFlags: 1 });
    expect(span.parentSpanContext).toEqual({ traceId: TRACE, spanId: '2'.repeat(16), traceFlags: 1 });
    expect([span.name, span.kind, span.otlpKind]).toEqual(['chat', 2, 3]);
    expect(span.startTime).toEqual([1_700_000_000, 250_000_000]);
    expect(span.endTime).toEqual([1_700_000_002, 50_000_000]);
    expect(span.duration).toEqual([1, 800_000_000]);
    expect(span.status).toEqual({ code: 2, message: 'boom' });
    expect(span.attributes).toEqual({ 'gen_ai.operation.name': 'chat' });
    expect([span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount]).toEqual([4, 0, 0]);
    expect(span.resource).toBe(ENVELOPE.resource);
    expect(span.instrumentationScope).toEqual({ name: 'lib', version: '1.2' });
    expect(span.ended).toBe(true);
  });

  it.each([
    ['no flags: sampled', undefined, 1],
    ['flags kept to their low byte', 0x1_00, 0],
    ['unsampled', 0, 0],
  ])('trace flags, %s', (_case, flags, traceFlags) => {
    expect(forwardedSpan(decodedSpan(TRACE, 's', { flags }), ENVELOPE).spanContext().traceFlags).toBe(traceFlags);
  });

  it.each([
    ['internal (OTLP 1)', 1, 0],
    ['unspecified (OTLP 0) as internal', 0, 0],
    ['consumer (OTLP 5)', 5, 4],
  ])('maps the kind %s to the API numbering', (_case, kind, api) => {
    expect(forwardedSpan(decodedSpan(TRACE, 's', { kind }), ENVELOPE).kind).toBe(api);
  });

  it('a root span has no parent context and a status without a message', () => {
    const span = forwardedSpan(decodedSpan(TRACE, 's'), ENVELOPE);
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.status).toEqual({ code: 0 });
  });

  it('an open span ends at its start until endAt cuts it off', () => {
    const span = forwardedSpan(
      decodedSpan(TRACE, 's', { startTimeUnixNano: START, endTimeUnixNano: undefined }),
      ENVELOPE,
    );
    expect([span.endTimeUnixNano, span.duration]).toEqual([START, [0, 0]]);
    span.endAt(1_700_000_003_500.5);
    expect(span.endTime).toEqual([1_700_000_003, 500_500_000]);
    expect(span.endTimeUnixNano).toBe(1_700_000_003_500_500_000n);
    expect(span.duration).toEqual([3, 250_500_000]);
    span.endAt(1_000);
    expect(span.duration).toEqual([0, 0]);
  });

  it('carries links and events with their contexts, times and counts', () => {
    const span = forwardedSpan(
      decodedSpan(TRACE, 's', {
        links: [{ traceId: 'b'.repeat(32), spanId: '3'.repeat(16), traceState: 'k=v', attributes: { a: 1 } }],
        events: [{ name: 'exception', timeUnixNano: START, attributes: { m: 'x' }, droppedAttributesCount: 2 }],
      }),
      ENVELOPE,
    );
    expect(span.links).toEqual([
      {
        context: { traceId: 'b'.repeat(32), spanId: '3'.repeat(16), traceFlags: 1 },
        traceId: 'b'.repeat(32),
        spanId: '3'.repeat(16),
        traceState: 'k=v',
        flags: undefined,
        attributes: { a: 1 },
        droppedAttributesCount: undefined,
      },
    ]);
    expect(span.events).toEqual([
      {
        name: 'exception',
        time: [1_700_000_000, 250_000_000],
        timeUnixNano: START,
        attributes: { m: 'x' },
        droppedAttributesCount: 2,
      },
    ]);
  });

  it('sanitize scrubs attributes and the span and link trace states, counting each change', () => {
    const span = forwardedSpan(
      decodedSpan(TRACE, 's', {
        attributes: { 'note.text': `key ${SECRET}` },
        traceState: `vendor=${SECRET}`,
        links: [{ traceId: 'b'.repeat(32), spanId: '3'.repeat(16), traceState: `v=${SECRET}`, attributes: {} }],
      }),
      ENVELOPE,
    );
    const tally = createTally();
    span.sanitize(createSanitizer(), tally);
    expect(JSON.stringify([span.attributes, span.traceState, span.links[0]!.traceState])).not.toContain(SECRET);
    expect(span.traceState).not.toBe(`vendor=${SECRET}`);
    expect(tally.changed).toBeGreaterThanOrEqual(3);
  });

  it('sanitize leaves clean trace states as they are', () => {
    const span = forwardedSpan(decodedSpan(TRACE, 's', { traceState: 'vendor=abc' }), ENVELOPE);
    const tally = createTally();
    span.sanitize(createSanitizer(), tally);
    expect([span.traceState, tally.changed]).toEqual(['vendor=abc', 0]);
  });
});

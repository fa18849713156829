/**
 * spanViewOf's promise (src/sdk/span-view-of.ts): the plain view the fold
 * reads of an SDK span, times in epoch ms, with an end only once the span
 * ended (by its flag or by a non-zero end time).
 */
import { describe, expect, it } from 'vitest';
import type { SdkReadableSpan } from '../../src/sdk/sdk-span.js';
import { spanViewOf } from '../../src/sdk/span-view-of.js';

function sdkSpan(fields: Partial<SdkReadableSpan> = {}): SdkReadableSpan {
  return {
    name: 'chat',
    kind: 0,
    spanContext: () => ({ traceId: 't', spanId: 's', traceFlags: 1 }),
    parentSpanContext: { traceId: 't', spanId: 'p', traceFlags: 1 },
    startTime: [1_700_000_000, 0],
    endTime: [0, 0],
    status: { code: 2, message: 'boom' },
    attributes: { k: 'v' },
    links: [{ context: { traceId: 't', spanId: 'l', traceFlags: 1 }, attributes: { a: 1 } }],
    events: [{ name: 'exception', time: [1_700_000_000, 5_000_000], attributes: { e: 1 }, droppedAttributesCount: 2 }],
    ended: false,
    instrumentationScope: { name: 'scope' },
    droppedEventsCount: 3,
    droppedAttributesCount: 4,
    ...fields,
  };
}

describe('spanViewOf', () => {
  it('reads every field the fold needs, times in epoch ms', () => {
    expect(spanViewOf(sdkSpan())).toEqual({
      spanId: 's',
      parentSpanId: 'p',
      name: 'chat',
      startMillis: 1_700_000_000_000,
      endMillis: undefined,
      attributes: { k: 'v' },
      events: [{ name: 'exception', timeMillis: 1_700_000_000_005, attributes: { e: 1 }, droppedAttributesCount: 2 }],
      links: [{ spanId: 'l', attributes: { a: 1 } }],
      statusCode: 2,
      statusMessage: 'boom',
      scopeName: 'scope',
      droppedEventsCount: 3,
      droppedAttributesCount: 4,
    });
  });

  it.each([
    ['open: no end', { ended: false, endTime: [0, 0] as [number, number] }, undefined],
    ['ended by its flag', { ended: true, endTime: [1_700_000_001, 0] as [number, number] }, 1_700_000_001_000],
    ['ended by a non-zero end time (the flag not set yet)', { endTime: [0, 1_000_000] as [number, number] }, 1],
  ])('%s', (_case, fields, endMillis) => {
    expect(spanViewOf(sdkSpan(fields)).endMillis).toBe(endMillis);
  });

  it('a root span has no parent', () => {
    expect(spanViewOf(sdkSpan({ parentSpanContext: undefined })).parentSpanId).toBeUndefined();
  });
});

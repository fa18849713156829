/**
 * Adapts an SDK span to the plain {@link SpanView} the adapters read.
 */
import type { SpanView } from '../conventions/span-view.js';
import { hrTimeToMillis } from '../model/hr-time.js';
import type { SdkReadableSpan } from './sdk-span.js';

export { hrTimeToMillis };

function isEnded(span: SdkReadableSpan): boolean {
  const end = span.endTime;
  return span.ended || (Array.isArray(end) && (end[0] !== 0 || end[1] !== 0));
}

/** A {@link SpanView} of `span`. Cheap: attributes are shared, events mapped. */
export function spanViewOf(span: SdkReadableSpan): SpanView {
  return {
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    name: span.name,
    startMillis: hrTimeToMillis(span.startTime),
    endMillis: isEnded(span) ? hrTimeToMillis(span.endTime) : undefined,
    attributes: span.attributes,
    events: span.events.map((e) => ({
      name: e.name,
      timeMillis: hrTimeToMillis(e.time),
      attributes: e.attributes,
      droppedAttributesCount: e.droppedAttributesCount,
    })),
    links: span.links.map((l) => ({ spanId: l.context.spanId, attributes: l.attributes })),
    statusCode: span.status.code,
    statusMessage: span.status.message,
    scopeName: span.instrumentationScope?.name,
    droppedEventsCount: span.droppedEventsCount,
    droppedAttributesCount: span.droppedAttributesCount,
  };
}

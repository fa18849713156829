/**
 * The part of a decoded OTLP span that `report` holds while its trace is
 * open: the view the fold core reads, plus what a report row names (trace,
 * service, role). The resource, scope and envelope objects are dropped, so a
 * held span costs no more than its own attributes and events.
 */
import { recognise } from '../conventions/index.js';
import type { SpanRole, SpanView } from '../conventions/span-view.js';
import * as K from '../model/attributes.js';
import type { DecodedSpan } from '../otlp/otlp-json-spans.js';
import { spanViewOfDecoded } from '../otlp/otlp-json-spans.js';

/** One span held by `report`. */
export interface ReportSpan {
  readonly traceId: string;
  readonly view: SpanView;
  /** The resource's `service.name`, when it is a string. */
  readonly serviceName?: string;
  /** Its role by the first convention that knows it. */
  readonly role?: SpanRole;
  /** True when the span carries a verdict (`incident.outcome`), written by the processor or the gateway. */
  readonly judged: boolean;
}

/** The held form of a decoded span. */
export function reportSpanOf(span: DecodedSpan): ReportSpan {
  const view = spanViewOfDecoded(span);
  const service = span.resource['service.name'];
  return {
    traceId: span.traceId,
    view,
    serviceName: typeof service === 'string' ? service : undefined,
    role: recognise(view)?.role,
    judged: typeof span.attributes[K.ATTR_INCIDENT_OUTCOME] === 'string',
  };
}

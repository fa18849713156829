/**
 * The OTLP/JSON object shape otlp-protobuf.ts decodes an
 * `ExportTraceServiceRequest` into, so `decodeOtlpJsonSpans` reads both
 * encodings and there is one span model, not two.
 */
// ---------------------------------------------------------------------------
// The OTLP/JSON shape produced. Every field is present: absent proto3 fields
// carry their default (0, '', []), so readers never meet a missing member.

export interface AnyValueJson {
  stringValue?: string;
  boolValue?: boolean;
  /** int64 as a decimal string, as the OTLP/JSON mapping writes it. */
  intValue?: string;
  doubleValue?: number;
  arrayValue?: { values: AnyValueJson[] };
  kvlistValue?: { values: KeyValueJson[] };
  /** Base64, as the OTLP/JSON mapping writes bytes. */
  bytesValue?: string;
}

export interface KeyValueJson {
  key: string;
  value: AnyValueJson;
}

export interface ResourceJson {
  attributes: KeyValueJson[];
  droppedAttributesCount: number;
}

export interface ScopeJson {
  name: string;
  version: string;
  attributes: KeyValueJson[];
  droppedAttributesCount: number;
}

export interface StatusJson {
  code: number;
  message: string;
}

export interface EventJson {
  timeUnixNano: string;
  name: string;
  attributes: KeyValueJson[];
  droppedAttributesCount: number;
}

export interface LinkJson {
  traceId: string;
  spanId: string;
  traceState: string;
  attributes: KeyValueJson[];
  droppedAttributesCount: number;
  flags: number;
}

export interface SpanJson {
  traceId: string;
  spanId: string;
  traceState: string;
  parentSpanId: string;
  flags: number;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: KeyValueJson[];
  droppedAttributesCount: number;
  events: EventJson[];
  droppedEventsCount: number;
  links: LinkJson[];
  droppedLinksCount: number;
  status: StatusJson;
}

export interface ScopeSpansJson {
  scope: ScopeJson;
  spans: SpanJson[];
  schemaUrl: string;
}

export interface ResourceSpansJson {
  resource: ResourceJson;
  scopeSpans: ScopeSpansJson[];
  schemaUrl: string;
}

export interface ExportTraceRequestJson {
  resourceSpans: ResourceSpansJson[];
}

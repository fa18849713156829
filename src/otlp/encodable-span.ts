/**
 * The span the OTLP encoders (otlp-encode.ts, otlp-encode-json.ts) read:
 * every field OTLP carries, attribute values of every `AnyValue` kind, and
 * resources and scopes as shared objects, so that spans sharing one are
 * written under one `ResourceSpans` or `ScopeSpans`.
 */
import type { WireDouble } from './wire-double.js';
/**
 * An attribute value the encoder writes, each as its `AnyValue` kind: a
 * string, a boolean, a number (`intValue` when it is a safe integer, else
 * `doubleValue`), a boxed `Number` (always `doubleValue`: `3.0`, `-0`,
 * `NaN`), a bigint (`intValue`, as text past int64), bytes, an array
 * (`arrayValue`), a plain object (`kvlistValue`), and `null` (an empty
 * `AnyValue`).
 */
export type EncodableValue =
  | string
  | number
  | bigint
  | boolean
  | Uint8Array
  | WireDouble
  | readonly (EncodableValue | undefined)[]
  | EncodableMap
  | null;

/** A `kvlistValue`: entries by key. */
export interface EncodableMap {
  readonly [key: string]: EncodableValue | undefined;
}

/** Attributes by key. */
export type EncodableAttributes = Readonly<Record<string, EncodableValue | undefined>>;

/** A resource: spans sharing this object are written under one `ResourceSpans`. */
export interface EncodableResource {
  readonly attributes: EncodableAttributes;
  readonly droppedAttributesCount?: number;
  readonly schemaUrl?: string;
}

/** An instrumentation scope: spans sharing this object (under one resource) are written under one `ScopeSpans`. */
export interface EncodableScope {
  readonly name: string;
  readonly version?: string;
  readonly attributes?: EncodableAttributes;
  readonly droppedAttributesCount?: number;
  readonly schemaUrl?: string;
}

/** A span as the encoder reads it. Ids are lowercase hex; times are epoch nanoseconds. */
export interface EncodableSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly traceState?: string;
  readonly flags?: number;
  readonly name: string;
  /** OTLP numbering: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly otlpKind: number;
  readonly startTimeUnixNano: bigint;
  readonly endTimeUnixNano: bigint;
  readonly attributes: EncodableAttributes;
  readonly droppedAttributesCount?: number;
  readonly events: readonly {
    readonly timeUnixNano: bigint;
    readonly name: string;
    readonly attributes?: EncodableAttributes;
    readonly droppedAttributesCount?: number;
  }[];
  readonly droppedEventsCount?: number;
  readonly links: readonly {
    readonly traceId: string;
    readonly spanId: string;
    readonly traceState?: string;
    readonly flags?: number;
    readonly attributes?: EncodableAttributes;
    readonly droppedAttributesCount?: number;
  }[];
  readonly droppedLinksCount?: number;
  readonly status: { readonly code: number; readonly message?: string };
  readonly otlpResource: EncodableResource;
  readonly otlpScope: EncodableScope;
}

/** Spans grouped by resource, then scope, in first-seen order. */
export function grouped(spans: readonly EncodableSpan[]): Map<EncodableResource, Map<EncodableScope, EncodableSpan[]>> {
  const resources = new Map<EncodableResource, Map<EncodableScope, EncodableSpan[]>>();
  for (const span of spans) {
    let scopes = resources.get(span.otlpResource);
    if (!scopes) resources.set(span.otlpResource, (scopes = new Map()));
    let list = scopes.get(span.otlpScope);
    if (!list) scopes.set(span.otlpScope, (list = []));
    list.push(span);
  }
  return resources;
}

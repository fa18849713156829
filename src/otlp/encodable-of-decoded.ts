/**
 * Decoded spans as the encoder reads them, each resource and scope shared as
 * it was in the request: what lets the gateway split a request it encoded
 * itself (to isolate the spans upstream refused for good) from its bytes,
 * without keeping the spans in memory meanwhile. Pure.
 */
import type { EncodableResource, EncodableScope, EncodableSpan } from './otlp-encode.js';
import type { DecodedSpan } from './otlp-json-spans.js';
import { spanAttributesOf } from './otlp-json-spans.js';

/** The spans of `decoded`, in order, ready to encode again. */
export function encodableSpansOf(decoded: readonly DecodedSpan[]): EncodableSpan[] {
  const resources = new Map<object, EncodableResource>();
  const scopes = new Map<object, EncodableScope>();
  return decoded.map((span) => {
    let resource = resources.get(span.resource);
    if (resource === undefined) {
      resource = {
        attributes: spanAttributesOf(span.resource),
        droppedAttributesCount: span.resourceEnvelope?.droppedAttributesCount,
        schemaUrl: span.resourceEnvelope?.schemaUrl,
      };
      resources.set(span.resource, resource);
    }
    const scopeKey: object = span.scope ?? resource;
    let scope = scopes.get(scopeKey);
    if (scope === undefined) {
      scope = span.scope
        ? {
            name: span.scope.name,
            version: span.scope.version,
            attributes: spanAttributesOf(span.scope.attributes),
            droppedAttributesCount: span.scope.droppedAttributesCount,
            schemaUrl: span.scope.schemaUrl,
          }
        : { name: span.scopeName ?? '', version: span.scopeVersion };
      scopes.set(scopeKey, scope);
    }
    return {
      traceId: span.traceId,
      spanId: span.spanId,
      parentSpanId: span.parentSpanId,
      traceState: span.traceState,
      flags: span.flags,
      name: span.name,
      otlpKind: span.kind,
      startTimeUnixNano: span.startTimeUnixNano,
      endTimeUnixNano: span.endTimeUnixNano ?? span.startTimeUnixNano,
      attributes: spanAttributesOf(span.attributes),
      droppedAttributesCount: span.droppedAttributesCount,
      events: span.events.map((e) => ({
        timeUnixNano: e.timeUnixNano,
        name: e.name,
        attributes: spanAttributesOf(e.attributes),
        droppedAttributesCount: e.droppedAttributesCount,
      })),
      droppedEventsCount: span.droppedEventsCount,
      links: span.links.map((l) => ({
        traceId: l.traceId,
        spanId: l.spanId,
        traceState: l.traceState,
        flags: l.flags,
        attributes: spanAttributesOf(l.attributes),
        droppedAttributesCount: l.droppedAttributesCount,
      })),
      droppedLinksCount: span.droppedLinksCount,
      status:
        span.statusMessage === undefined
          ? { code: span.statusCode }
          : { code: span.statusCode, message: span.statusMessage },
      otlpResource: resource,
      otlpScope: scope,
    };
  });
}

/**
 * Sanitized resources and scopes of forwarded spans, keyed on the decoded
 * objects (the spans of one request's resource, and of one of its scopes,
 * share them) and then on their content. A resource's attributes and schema
 * URL, and a scope's name, version, attributes and schema URL, are free text
 * a sender chose: the span rules apply, once per resource and scope. Bounded:
 * services are few, but hostile input must not grow it.
 */
import type { EncodableResource, EncodableScope } from '../otlp/otlp-encode.js';
import type { DecodedEnvelope, DecodedScope, DecodedSpan, DecodedValue } from '../otlp/otlp-json-spans.js';
import { decodedKey, spanAttributesOf } from '../otlp/otlp-json-spans.js';
import type { Sanitizer } from '../sanitize/sanitizer.js';
import { sanitizeAttributeMap, UNSANITIZABLE } from '../sanitize/sanitizer.js';
import { createTally } from '../sanitize/scrubber.js';
import type { ForwardedEnvelope, ForwardedResource } from './forwarded-span.js';

/** @default 1024 resources and scopes kept by content */
const MAX_ENTRIES = 1024;

const NO_ENVELOPE: DecodedEnvelope = {};

/** Sanitized resources and scopes by decoded object. */
export class ResourceCache {
  readonly #sanitizer: Sanitizer;
  readonly #resources = new Map<string, { resource: ForwardedResource; otlpResource: EncodableResource }>();
  readonly #scopes = new Map<string, EncodableScope>();
  readonly #byResource = new WeakMap<object, { resource: ForwardedResource; otlpResource: EncodableResource }>();
  readonly #byScope = new WeakMap<object, EncodableScope>();
  readonly #envelopes = new WeakMap<object, WeakMap<object, ForwardedEnvelope>>();

  constructor(sanitizer: Sanitizer) {
    this.#sanitizer = sanitizer;
  }

  /** The sanitized resource of a decoded resource's attributes. */
  of(decoded: Record<string, DecodedValue>, envelope: DecodedEnvelope = NO_ENVELOPE): ForwardedResource {
    return this.#resource(decoded, envelope).resource;
  }

  /** What `span` is forwarded under: its sanitized resource and scope. */
  envelopeOf(span: DecodedSpan): ForwardedEnvelope {
    const scopeKey: DecodedScope = span.scope ?? {
      name: span.scopeName ?? '',
      version: span.scopeVersion,
      attributes: {},
    };
    let byScope = this.#envelopes.get(span.resource);
    if (!byScope) this.#envelopes.set(span.resource, (byScope = new WeakMap()));
    let envelope = span.scope ? byScope.get(span.scope) : undefined;
    if (!envelope) {
      const { resource, otlpResource } = this.#resource(span.resource, span.resourceEnvelope ?? NO_ENVELOPE);
      envelope = { resource, otlpResource, otlpScope: this.#scope(scopeKey) };
      if (span.scope) byScope.set(span.scope, envelope);
    }
    return envelope;
  }

  #text(value: string | undefined): string | undefined {
    if (value === undefined || this.#sanitizer.mode === 'off') return value;
    try {
      return this.#sanitizer.scrub(value, createTally());
    } catch {
      return UNSANITIZABLE;
    }
  }

  #attributes(decoded: Record<string, DecodedValue>): Record<string, unknown> {
    const attributes = spanAttributesOf(decoded);
    return this.#sanitizer.mode === 'off'
      ? attributes
      : sanitizeAttributeMap(attributes, this.#sanitizer, createTally());
  }

  #resource(
    decoded: Record<string, DecodedValue>,
    envelope: DecodedEnvelope,
  ): { resource: ForwardedResource; otlpResource: EncodableResource } {
    let entry = this.#byResource.get(decoded);
    if (entry) return entry;
    const key = decodedKey([decoded, envelope.schemaUrl, envelope.droppedAttributesCount]);
    entry = this.#resources.get(key);
    if (!entry) {
      const attributes = this.#attributes(decoded);
      const resource: ForwardedResource = { attributes: attributes as ForwardedResource['attributes'] };
      entry = {
        resource,
        otlpResource: {
          attributes: attributes as EncodableResource['attributes'],
          droppedAttributesCount: envelope.droppedAttributesCount,
          schemaUrl: this.#text(envelope.schemaUrl),
        },
      };
      if (this.#resources.size >= MAX_ENTRIES) this.#resources.clear();
      this.#resources.set(key, entry);
    }
    this.#byResource.set(decoded, entry);
    return entry;
  }

  #scope(decoded: DecodedScope): EncodableScope {
    let scope = this.#byScope.get(decoded);
    if (scope) return scope;
    const key = decodedKey(decoded);
    scope = this.#scopes.get(key);
    if (!scope) {
      scope = {
        name: this.#text(decoded.name) ?? '',
        version: this.#text(decoded.version),
        attributes: this.#attributes(decoded.attributes) as EncodableScope['attributes'],
        droppedAttributesCount: decoded.droppedAttributesCount,
        schemaUrl: this.#text(decoded.schemaUrl),
      };
      if (this.#scopes.size >= MAX_ENTRIES) this.#scopes.clear();
      this.#scopes.set(key, scope);
    }
    this.#byScope.set(decoded, scope);
    return scope;
  }
}

/**
 * Sanitized resources of forwarded spans, keyed on the decoded resource
 * object (the spans of one request's resource share it) and then on its
 * content. Bounded: services are few, but hostile input must not grow it.
 */
import type { Resource } from '@opentelemetry/resources';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { DecodedValue } from '../otlp/otlp-json-spans.js';
import { spanAttributesOf } from '../otlp/otlp-json-spans.js';
import type { Sanitizer } from '../sanitize/sanitizer.js';
import { sanitizeAttributeMap } from '../sanitize/sanitizer.js';
import { createTally } from '../sanitize/scrubber.js';

/** @default 1024 resources kept by content */
const MAX_RESOURCES = 1024;

/** Sanitized `Resource`s by decoded resource. */
export class ResourceCache {
  readonly #sanitizer: Sanitizer;
  readonly #byContent = new Map<string, Resource>();
  readonly #byObject = new WeakMap<object, Resource>();

  constructor(sanitizer: Sanitizer) {
    this.#sanitizer = sanitizer;
  }

  /** The sanitized resource of `decoded`. */
  of(decoded: Record<string, DecodedValue>): Resource {
    let resource = this.#byObject.get(decoded);
    if (resource) return resource;
    const key = JSON.stringify(decoded);
    resource = this.#byContent.get(key);
    if (!resource) {
      const attributes = spanAttributesOf(decoded);
      const sanitized = this.#sanitizer.mode === 'off' ? attributes : sanitizeAttributeMap(attributes, this.#sanitizer, createTally());
      // Bytes values are not in the API's attribute type, but the OTLP serializer writes them as bytesValue.
      resource = resourceFromAttributes(sanitized as unknown as Parameters<typeof resourceFromAttributes>[0]);
      if (this.#byContent.size >= MAX_RESOURCES) this.#byContent.clear();
      this.#byContent.set(key, resource);
    }
    this.#byObject.set(decoded, resource);
    return resource;
  }
}

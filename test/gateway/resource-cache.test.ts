/**
 * ResourceCache (src/gateway/resource-cache.ts): the sanitized resource and
 * scope a forwarded span goes under, made once per decoded object (and per
 * equal content), with the sender's free text (attributes, schema URLs, scope
 * name and version) scrubbed unless sanitization is off.
 */
import { describe, expect, it } from 'vitest';
import { ResourceCache } from '../../src/gateway/resource-cache.js';
import type { DecodedScope } from '../../src/otlp/otlp-json-spans.js';
import { createSanitizer } from '../../src/sanitize/sanitizer.js';
import { decodedSpan } from '../support/decoded-span.js';

const SECRET = `sk-proj-${'A1b2C3d4'.repeat(4)}`;
const RESOURCE = { 'service.name': 'agent', 'deployment.note': `token ${SECRET}` };
const SCOPE: DecodedScope = {
  name: `scope ${SECRET}`,
  version: '1.0',
  attributes: { 'scope.note': SECRET },
  schemaUrl: `https://example.com/schema?key=${SECRET}`,
};

describe('ResourceCache', () => {
  it('scrubs secrets from the resource, its schema URL and every field of the scope', () => {
    const cache = new ResourceCache(createSanitizer());
    const envelope = cache.envelopeOf(
      decodedSpan('t', 's', {
        resource: RESOURCE,
        resourceEnvelope: { schemaUrl: `https://x/${SECRET}`, droppedAttributesCount: 2 },
        scope: SCOPE,
      }),
    );
    const text = JSON.stringify([envelope.resource, envelope.otlpResource, envelope.otlpScope]);
    expect(text).not.toContain(SECRET);
    expect(envelope.resource.attributes['service.name']).toBe('agent');
    expect(envelope.otlpResource.attributes).toBe(envelope.resource.attributes);
    expect(envelope.otlpResource.droppedAttributesCount).toBe(2);
    expect(envelope.otlpScope.version).toBe('1.0');
  });

  it('forwards them as they came with sanitization off', () => {
    const cache = new ResourceCache(createSanitizer({ mode: 'off' }));
    const envelope = cache.envelopeOf(decodedSpan('t', 's', { resource: RESOURCE, scope: SCOPE }));
    expect(envelope.resource.attributes).toEqual(RESOURCE);
    expect(envelope.otlpScope).toEqual({
      name: SCOPE.name,
      version: '1.0',
      attributes: { 'scope.note': SECRET },
      droppedAttributesCount: undefined,
      schemaUrl: SCOPE.schemaUrl,
    });
  });

  it('gives the spans of one resource and scope the same envelope object', () => {
    const cache = new ResourceCache(createSanitizer());
    const a = cache.envelopeOf(decodedSpan('t', 'a', { resource: RESOURCE, scope: SCOPE }));
    const b = cache.envelopeOf(decodedSpan('t', 'b', { resource: RESOURCE, scope: SCOPE }));
    expect(b).toBe(a);
  });

  it('shares the sanitized resource and scope between equal objects of two requests', () => {
    const cache = new ResourceCache(createSanitizer());
    const a = cache.envelopeOf(decodedSpan('t', 'a', { resource: { ...RESOURCE }, scope: { ...SCOPE } }));
    const b = cache.envelopeOf(decodedSpan('t', 'b', { resource: { ...RESOURCE }, scope: { ...SCOPE } }));
    expect(b.resource).toBe(a.resource);
    expect(b.otlpScope).toBe(a.otlpScope);
  });

  it.each([
    ['attributes', { ...RESOURCE, extra: 1 }, undefined],
    ['schema URL', RESOURCE, 'https://other'],
  ])('tells resources apart by their %s', (_case, resource, schemaUrl) => {
    const cache = new ResourceCache(createSanitizer({ mode: 'off' }));
    const a = cache.of(RESOURCE);
    const b = cache.of({ ...resource }, { schemaUrl });
    expect(b).not.toBe(a);
    expect(cache.of({ ...resource }, { schemaUrl })).toBe(b);
  });

  it('builds a scope from the name and version of a span with no scope object', () => {
    const cache = new ResourceCache(createSanitizer({ mode: 'off' }));
    const envelope = cache.envelopeOf(decodedSpan('t', 's', { scopeName: 'lib', scopeVersion: '2' }));
    expect(envelope.otlpScope).toEqual({
      name: 'lib',
      version: '2',
      attributes: {},
      droppedAttributesCount: undefined,
      schemaUrl: undefined,
    });
    expect(cache.envelopeOf(decodedSpan('t', 'x')).otlpScope.name).toBe('');
  });
});

/**
 * Span sanitization (src/sanitize/sanitize-span.ts): one span sanitized in
 * place field by field, failing closed per field; or redacted whole.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { SpanStatusCode } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { UNSANITIZABLE } from '../../src/sanitize/attribute-map.js';
import type { SanitizableSpan } from '../../src/sanitize/sanitize-span.js';
import { redactSpanInPlace, sanitizeSpanInPlace } from '../../src/sanitize/sanitize-span.js';
import { createSanitizer } from '../../src/sanitize/sanitizer.js';
import { createTally } from '../../src/sanitize/scrubber.js';

const SECRET = '[redacted:secret]';

/** A finished SDK span with a secret in every text field. */
function sdkSpan(): SanitizableSpan {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('t');
  const link = tracer.startSpan('l');
  const span = tracer.startSpan('run password=hunter2', {
    attributes: { 'gen_ai.input.messages': 'hi', note: 'token=hunter2' },
    links: [{ context: link.spanContext(), attributes: { why: 'secret=hunter2' } }],
  });
  span.addEvent('exception', { 'exception.message': 'auth failed: password=hunter2' });
  span.setStatus({ code: SpanStatusCode.ERROR, message: 'password=hunter2' });
  span.end();
  link.end();
  return exporter.getFinishedSpans().find((s) => s.name.startsWith('run')) as unknown as SanitizableSpan;
}

describe('sanitizeSpanInPlace', () => {
  it('sanitizes the name, attributes, events, links and status message of an SDK span', () => {
    const span = sdkSpan();
    const tally = createTally();
    sanitizeSpanInPlace(span, createSanitizer(), tally);
    expect({
      name: span.name,
      attributes: span.attributes,
      event: span.events[0]?.attributes,
      link: span.links[0]?.attributes,
      status: span.status,
    }).toEqual({
      name: `run password=${SECRET}`,
      attributes: { note: `token=${SECRET}` },
      event: { 'exception.message': `auth failed: password=${SECRET}` },
      link: { why: `secret=${SECRET}` },
      status: { code: SpanStatusCode.ERROR, message: `password=${SECRET}` },
    });
    expect(tally.changed).toBe(6);
    expect(Object.fromEntries(tally.byKind)).toEqual({ content_key: 1, secret: 5 });
  });

  it('gives a GenAI span its documented name, read from the attributes as written', () => {
    const span: SanitizableSpan = {
      name: 'execute_tool {"path":"/etc"}',
      attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'read_file' },
      events: [],
      links: [],
      status: { code: 0 },
    };
    const tally = createTally();
    sanitizeSpanInPlace(span, createSanitizer(), tally);
    expect(span.name).toBe('execute_tool read_file');
    expect(Object.fromEntries(tally.byKind)).toEqual({ content_key: 1 });
  });

  it('fails closed field by field', () => {
    const span = {
      name: 42,
      attributes: 'not a map',
      events: 'not a list',
      links: [{ attributes: { ok: 'password=hunter2' } }],
      status: { code: 2, message: { nested: true } },
    } as unknown as SanitizableSpan;
    const tally = createTally();
    sanitizeSpanInPlace(span, createSanitizer(), tally);
    expect(span).toEqual({
      name: 42,
      attributes: { 'agent_incidents.unsanitizable': UNSANITIZABLE },
      events: [],
      links: [{ attributes: { ok: `password=${SECRET}` } }],
      status: { code: 2, message: UNSANITIZABLE },
    });
    expect(Object.fromEntries(tally.byKind)).toEqual({ unsanitizable: 3, secret: 1 });
  });

  it('replaces a field whose scrub throws by the marker', () => {
    const sanitizer = {
      ...createSanitizer(),
      scrub: () => {
        throw new Error('boom');
      },
    };
    const span: SanitizableSpan = { name: 'x y', attributes: {}, events: [], links: [], status: { code: 0 } };
    sanitizeSpanInPlace(span, sanitizer, createTally());
    expect(span.name).toBe(UNSANITIZABLE);
  });
});

describe('redactSpanInPlace', () => {
  it('replaces every text field by the marker and keeps the status code', () => {
    const span = sdkSpan();
    const tally = createTally();
    redactSpanInPlace(span, tally);
    expect({
      name: span.name,
      attributes: span.attributes,
      events: span.events.map((e) => [e.name, e.attributes]),
      links: span.links.map((l) => l.attributes),
      status: span.status,
    }).toEqual({
      name: UNSANITIZABLE,
      attributes: { 'agent_incidents.unsanitizable': UNSANITIZABLE },
      events: [[UNSANITIZABLE, {}]],
      links: [{}],
      status: { code: SpanStatusCode.ERROR, message: UNSANITIZABLE },
    });
    expect(Object.fromEntries(tally.byKind)).toEqual({ unsanitizable: 1 });
  });

  it('keeps a status with no message without one', () => {
    const span = {
      name: 'x',
      attributes: {},
      events: 'bad',
      links: [],
      status: { code: 1 },
    } as unknown as SanitizableSpan;
    redactSpanInPlace(span, createTally());
    expect(span.status).toEqual({ code: 1 });
  });
});

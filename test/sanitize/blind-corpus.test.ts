/**
 * The blind corpora (test/fixtures/sanitize/blind-corpus*, written from
 * public rule sets by helpers that never read the sanitizer) through both
 * edges, as users run them: the SDK processor in a real tracer provider, and
 * the gateway over real HTTP on 127.0.0.1 in both encodings. Every secret,
 * its committed instance and a fresh one drawn from its shape, is planted in
 * every place a span holds text (name, attributes and arrays, events, links,
 * status, exception message and stack, argv arrays; at the gateway also the
 * resource and the scope) and must leave nowhere. Benign near-misses must come
 * out unredacted but for at most 2%. The test prints recall and the
 * false-positive rate of each corpus.
 */
import type { Attributes, Tracer } from '@opentelemetry/api';
import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeepingExporter } from '../support/keeping-exporter.js';
import type { Gateway } from '../../src/gateway/gateway.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { IncidentSpanProcessor, isContentKey } from '../../src/index.js';
import type { BenignEntry, Carrier, SecretEntry } from '../support/blind-corpus.js';
import { CORPORA, benignOf, filled, secretsOf, shapeArbitrary } from '../support/blind-corpus.js';
import { startUpstream } from '../support/upstream.js';

const MAX_FALSE_POSITIVE_SHARE = 0.02;
/** Markers of the kinds that say "secret": a benign value carrying one is a false positive. */
const SECRET_MARKER = /\[redacted:(?:secret|credentials|private_key|jwt)[\]:]/;
const ID_KEY = 'test.case';

/** A secret to plant: the entry, the instance, and the carrier with the instance in place. */
interface Planting {
  readonly entry: SecretEntry;
  readonly secret: string;
  readonly carrier: Carrier;
}

/** The committed instance of every entry and a fresh one drawn from its shape (seeded, so a failure repeats). */
function plantingsOf(corpus: string): Planting[] {
  return secretsOf(corpus).flatMap((entry, index) => {
    const instances = [entry.secret];
    if (entry.shape !== null)
      instances.push(fc.sample(shapeArbitrary(entry.shape), { numRuns: 1, seed: 20261127 + index })[0]!);
    return instances.map((secret) => ({ entry, secret, carrier: filled(entry, secret) }));
  });
}

/** The attributes a carrier sets wherever a span holds attributes. */
function attributesOf(carrier: Carrier): Attributes {
  if (carrier.carrier === 'text') return { 'app.note': carrier.text, 'app.notes': ['ok', carrier.text] };
  if (carrier.carrier === 'attribute') return { [carrier.key]: carrier.value };
  return { 'process.command_args': [...carrier.argv] };
}

/**
 * Records a run (`invoke_agent`) with one child that holds the carrier in
 * every place a span holds text: its name (text carriers), attributes, an
 * event's name and attributes, a link's attributes, the status message and
 * an exception's message and stack.
 */
function plant(tracer: Tracer, carrier: Carrier, id: string): void {
  const run = tracer.startSpan('invoke_agent', {
    attributes: { 'gen_ai.operation.name': 'invoke_agent', [ID_KEY]: id },
  });
  // As a line of text, an attribute reads `key: value` (a log line, a config dump) and argv its command line.
  const text =
    carrier.carrier === 'text'
      ? carrier.text
      : carrier.carrier === 'attribute'
        ? `${carrier.key}: ${carrier.value}`
        : carrier.argv.join(' ');
  const child = tracer.startSpan(
    carrier.carrier === 'text' ? carrier.text : 'tool call',
    {
      attributes: { ...attributesOf(carrier), [ID_KEY]: id },
      links: [{ context: run.spanContext(), attributes: attributesOf(carrier) }],
    },
    trace.setSpan(context.active(), run),
  );
  child.addEvent(carrier.carrier === 'text' ? carrier.text : 'log', attributesOf(carrier));
  child.recordException({
    name: 'Error',
    message: text,
    stack: `Error: ${text}\n    at handler (/srv/app/index.js:10:5)\n    at ${text}`,
  });
  child.setStatus({ code: SpanStatusCode.ERROR, message: text });
  child.end();
  run.end();
}

/** What must not leave: the secret, also as JSON escapes it. */
function leaked(output: string, secret: string): boolean {
  return output.includes(secret) || output.includes(JSON.stringify(secret).slice(1, -1));
}

function processorProvider() {
  const exporter = new KeepingExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new IncidentSpanProcessor({ sweepIntervalMillis: 0 }), new SimpleSpanProcessor(exporter)],
  });
  return { exporter, tracer: provider.getTracer('blind-corpus') };
}

/** The exported span of a case that carries the planted attributes (the run's child). */
function childOf(spans: readonly ReadableSpan[], id: string): ReadableSpan | undefined {
  return spans.find((s) => s.attributes[ID_KEY] === id && s.name !== 'invoke_agent');
}

/** True when the benign carrier came out of the span redacted as a secret (or its key removed as a credential). */
function redactedAsSecret(carrier: Carrier, attributes: Attributes): boolean {
  const key =
    carrier.carrier === 'text' ? 'app.note' : carrier.carrier === 'attribute' ? carrier.key : 'process.command_args';
  if (!(key in attributes)) return !isContentKey(key);
  return SECRET_MARKER.test(JSON.stringify(attributes[key]));
}

function percent(part: number, whole: number): string {
  return `${((part / whole) * 100).toFixed(2)}%`;
}

describe.each(CORPORA)('the blind corpus %s', (corpus) => {
  const plantings = plantingsOf(corpus);
  const benign = benignOf(corpus);
  let gateway: Gateway | undefined;
  let upstream: Awaited<ReturnType<typeof startUpstream>> | undefined;

  beforeAll(async () => {
    upstream = await startUpstream();
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('holds enough secrets and near-misses to measure', () => {
    expect(plantings.length).toBeGreaterThanOrEqual(120);
    expect(new Set(plantings.map((p) => p.entry.provider)).size).toBeGreaterThanOrEqual(40);
    expect(benign.length).toBeGreaterThanOrEqual(300);
  });

  it('leaks no secret through the SDK processor, from any place a span holds text', () => {
    const { exporter, tracer } = processorProvider();
    const leaks: string[] = [];
    for (const [index, planting] of plantings.entries()) {
      exporter.spans.length = 0;
      plant(tracer, planting.carrier, `s${index}`);
      const json = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(exporter.spans));
      if (leaked(json, planting.secret)) leaks.push(`${planting.entry.id} (${planting.secret})`);
    }
    console.log(
      `${corpus}, processor: ${plantings.length - leaks.length} of ${plantings.length} secrets kept out of every place (recall ${percent(plantings.length - leaks.length, plantings.length)})`,
    );
    expect(leaks).toEqual([]);
  });

  it.each(['json', 'protobuf'] as const)(
    'leaks no secret through the gateway, sent as OTLP/%s, resource and scope included',
    async (sent) => {
      await gateway?.close();
      gateway = await createGateway({
        listen: { port: 0 },
        upstream: { endpoint: upstream!.endpoint, encoding: sent },
        hold: { decisionWaitMillis: 0, tickMillis: 10 },
      });
      upstream!.bodies.length = 0;
      const raw = new KeepingExporter();
      for (const [index, planting] of plantings.entries()) {
        // Raw spans, as any SDK sends them: the carrier also in the resource, and a text in the scope's name and version.
        const provider = new BasicTracerProvider({
          resource: resourceFromAttributes({ 'service.name': 'agent', ...attributesOf(planting.carrier) }),
          spanProcessors: [new SimpleSpanProcessor(raw)],
        });
        const scope = planting.carrier.carrier === 'text' ? planting.carrier.text : 'blind-corpus';
        plant(provider.getTracer(scope, scope), planting.carrier, `g${index}`);
      }
      for (let from = 0; from < raw.spans.length; from += 200) {
        const batch = raw.spans.slice(from, from + 200);
        const body =
          sent === 'json'
            ? JsonTraceSerializer.serializeRequest(batch)
            : ProtobufTraceSerializer.serializeRequest(batch);
        const response = await fetch(`${gateway.url}/v1/traces`, {
          method: 'POST',
          headers: { 'content-type': `application/${sent === 'json' ? 'json' : 'x-protobuf'}` },
          body,
        });
        expect(response.status).toBe(200);
      }
      await gateway.flush();
      const forwarded = upstream!.bodies.map((b) => b.toString('latin1')).join('\n');
      expect(upstream!.received.length).toBeGreaterThanOrEqual(raw.spans.length);
      const leaks = plantings.filter((p) => leaked(forwarded, p.secret)).map((p) => `${p.entry.id} (${p.secret})`);
      console.log(
        `${corpus}, gateway (${sent}): ${plantings.length - leaks.length} of ${plantings.length} secrets kept out of every place (recall ${percent(plantings.length - leaks.length, plantings.length)})`,
      );
      expect(leaks).toEqual([]);
      upstream!.received.length = 0;
    },
  );

  it(`redacts at most ${MAX_FALSE_POSITIVE_SHARE * 100}% of the benign near-misses, at either edge`, async () => {
    const { exporter, tracer } = processorProvider();
    const processorFalse: BenignEntry[] = [];
    for (const [index, entry] of benign.entries()) {
      exporter.spans.length = 0;
      plant(tracer, entry, `b${index}`);
      const child = childOf(exporter.spans, `b${index}`);
      if (!child || redactedAsSecret(entry, child.attributes)) processorFalse.push(entry);
    }

    await gateway?.close();
    gateway = await createGateway({
      listen: { port: 0 },
      upstream: { endpoint: upstream!.endpoint, encoding: 'json' },
      hold: { decisionWaitMillis: 0, tickMillis: 10 },
    });
    upstream!.received.length = 0;
    const raw = new KeepingExporter();
    const rawProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(raw)] });
    for (const [index, entry] of benign.entries()) plant(rawProvider.getTracer('blind-corpus'), entry, `b${index}`);
    const response = await fetch(`${gateway.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JsonTraceSerializer.serializeRequest(raw.spans),
    });
    expect(response.status).toBe(200);
    await gateway.flush();
    const gatewayFalse = benign.filter((entry, index) => {
      const child = upstream!.received.find((s) => s.attributes[ID_KEY] === `b${index}` && s.name !== 'invoke_agent');
      return !child || redactedAsSecret(entry, child.attributes as Attributes);
    });

    for (const [edge, found] of [
      ['processor', processorFalse],
      ['gateway', gatewayFalse],
    ] as const) {
      console.log(
        `${corpus}, ${edge}: false positives ${found.length} of ${benign.length} benign near-misses (${percent(found.length, benign.length)})${found.map((e) => `\n  ${e.id}`).join('')}`,
      );
    }
    expect(processorFalse.length / benign.length).toBeLessThanOrEqual(MAX_FALSE_POSITIVE_SHARE);
    expect(gatewayFalse.length / benign.length).toBeLessThanOrEqual(MAX_FALSE_POSITIVE_SHARE);
  });
});

/**
 * `agent-incidents receive` (src/gateway/file-receiver.ts): an app's real
 * OTLP exporter sends to it unchanged, every request it answers 200 is one
 * OTLP/JSON line of the file `report` reads, bad requests get the right 4xx
 * and the receiver keeps serving.
 */
import { createReadStream, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import type { FileReceiver } from '../../src/gateway/file-receiver.js';
import { startFileReceiver } from '../../src/gateway/file-receiver.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { readReport } from '../../src/report/read-report.js';
import { RunRecorder } from '../../src/runtime/run-recorder.js';
import { IncidentSpanProcessor } from '../../src/sdk/incident-span-processor.js';

const dir = mkdtempSync(join(tmpdir(), 'ai-receive-'));
let files = 0;
const freshFile = (): string => join(dir, `traces-${(files += 1)}.otlp.jsonl`);
const open: FileReceiver[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});

async function receiver(out: string, options: { maxBodyBytes?: number } = {}): Promise<FileReceiver> {
  const r = await startFileReceiver({ out, port: 0, ...options });
  open.push(r);
  return r;
}

/** Plays one run whose provider socket drops after text, in a real SDK pipeline. */
function recordDroppedRun(provider: BasicTracerProvider): void {
  const run = RunRecorder.start({
    tracer: provider.getTracer('app'),
    agentName: 'coder',
    providerName: 'openai',
    model: 'gpt-5-mini',
  });
  const attempt = run.startAttempt({ boundary: { tools: [{ name: 'read_file', sideEffects: 'read_only' }] } });
  attempt.textOutput();
  attempt.fail(
    new TypeError('terminated', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) }),
  );
  run.end();
}

/** Spans of a real SDK pipeline with the processor (for bodies this test encodes itself). */
async function processedSpans(): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new IncidentSpanProcessor({ sweepIntervalMillis: 0 }), new SimpleSpanProcessor(memory)],
  });
  recordDroppedRun(provider);
  await provider.forceFlush();
  // Read before shutdown: the in-memory exporter forgets its spans when it is shut down.
  const spans = memory.getFinishedSpans();
  await provider.shutdown();
  expect(spans.map((s) => s.name).sort()).toEqual(['chat gpt-5-mini', 'invoke_agent coder']);
  return spans;
}

function lines(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
}

describe('receive', () => {
  it("writes what an app's unchanged OTLP exporter sends, and report finds the incident in it", async () => {
    const out = freshFile();
    const r = await receiver(out);
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'my-agent' }),
      spanProcessors: [
        new IncidentSpanProcessor({ sweepIntervalMillis: 0 }),
        new BatchSpanProcessor(new OTLPTraceExporter({ url: `${r.url}/v1/traces` })),
      ],
    });
    recordDroppedRun(provider);
    await provider.shutdown(); // rejects when an export is refused
    expect(await r.close()).toEqual({ requests: 1, spans: 2 });
    const report = await readReport(createReadStream(out));
    expect(report.runs).toBe(1);
    expect(report.incidents[0]).toMatchObject({
      outcome: 'failed',
      cause: 'provider_transport_disconnect',
      serviceName: 'my-agent',
      source: 'file',
    });
  });

  it('converts a gzip protobuf body to one OTLP/JSON line with the same spans, and answers in protobuf', async () => {
    const out = freshFile();
    const r = await receiver(out);
    const spans = await processedSpans();
    const body = gzipSync(ProtobufTraceSerializer.serializeRequest(spans)!);
    const response = await fetch(`${r.url}/v1/traces`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-protobuf');
    expect((await response.arrayBuffer()).byteLength).toBe(0); // full success
    const [line, ...rest] = lines(out);
    expect(rest).toEqual([]);
    const decoded = decodeOtlpJsonSpans(JSON.parse(line!));
    expect(decoded.map((s) => s.spanId).sort()).toEqual(spans.map((s) => s.spanContext().spanId).sort());
    expect(decoded.find((s) => s.name === 'invoke_agent coder')?.attributes['incident.cause']).toBe(
      'provider_transport_disconnect',
    );
  });

  const refusals: [
    promise: string,
    init: { path?: string; method?: string; type?: string; body?: string | Buffer },
    status: number,
  ][] = [
    ['an unknown path is 404', { path: '/v1/metrics' }, 404],
    ['a GET is 405', { method: 'GET' }, 405],
    ['another content type is 415', { type: 'text/plain' }, 415],
    ['JSON that does not parse is 400', { body: '{"resourceSpans": [' }, 400],
    [
      'protobuf that does not parse is 400',
      { type: 'application/x-protobuf', body: Buffer.from([0x0a, 0xff, 0xff]) },
      400,
    ],
    ['a body past maxBodyBytes is 413', { body: JSON.stringify({ resourceSpans: [], pad: 'x'.repeat(5000) }) }, 413],
  ];
  it.each(refusals)('%s, writes nothing, and the receiver keeps serving', async (_promise, init, status) => {
    const out = freshFile();
    const r = await receiver(out, { maxBodyBytes: 4096 });
    const response = await fetch(`${r.url}${init.path ?? '/v1/traces'}`, {
      method: init.method ?? 'POST',
      headers: { 'content-type': init.type ?? 'application/json' },
      body: (init.method ?? 'POST') === 'GET' ? undefined : (init.body ?? JSON.stringify({ resourceSpans: [] })),
    });
    expect(response.status).toBe(status);
    expect((await response.json()) as { message: string }).toMatchObject({ code: status, message: expect.any(String) });
    expect(lines(out)).toEqual([]);
    const good = await fetch(`${r.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resourceSpans: [] }),
    });
    expect(good.status).toBe(200);
    expect(lines(out)).toEqual(['{"resourceSpans":[]}']);
  });

  it('writes concurrent requests as whole lines, one per request', async () => {
    const out = freshFile();
    const r = await receiver(out);
    const spans = await processedSpans();
    const body = Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!);
    const statuses = await Promise.all(
      Array.from({ length: 40 }, () =>
        fetch(`${r.url}/v1/traces`, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/x-protobuf' },
        }).then((res) => res.status),
      ),
    );
    expect(statuses).toEqual(Array(40).fill(200));
    const written = lines(out);
    expect(written).toHaveLength(40);
    for (const line of written) expect(decodeOtlpJsonSpans(JSON.parse(line))).toHaveLength(spans.length);
    expect(await r.close()).toEqual({ requests: 40, spans: 40 * spans.length });
  });

  it('appends to a file that exists rather than replacing it', async () => {
    const out = freshFile();
    writeFileSync(out, '{"resourceSpans":[]}\n');
    const r = await receiver(out);
    await fetch(`${r.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"resourceSpans":[]}',
    });
    await r.close();
    expect(lines(out)).toHaveLength(2);
  });

  it('refuses to start on a taken port with EADDRINUSE and leaves no handle open', async () => {
    const first = await receiver(freshFile());
    const port = Number(new URL(first.url).port);
    await expect(startFileReceiver({ out: freshFile(), port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});

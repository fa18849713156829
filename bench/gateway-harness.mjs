/**
 * What the gateway load bench and soak share: the gateway CLI started with the
 * shipped configuration (deploy/collector/gateway.yaml) and a few overrides,
 * a pool of OTLP/protobuf requests made before anything is measured, a
 * counting upstream, and /metrics readings.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { parse, stringify } from 'yaml';
import { RunRecorder } from '../dist/index.js';
import { decodeOtlpJsonSpans } from '../dist/otlp/otlp-json-spans.js';
import { decodeExportTraceRequest } from '../dist/otlp/otlp-protobuf.js';

const ROOT = new URL('..', import.meta.url).pathname;
const CLI = join(ROOT, 'dist', 'cli.js');

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export const mib = (bytes) => (bytes / 1024 / 1024).toFixed(0);

/** The shipped gateway configuration, as an object. */
export function shippedConfig() {
  return parse(readFileSync(join(ROOT, 'deploy', 'collector', 'gateway.yaml'), 'utf8'));
}

/**
 * `count` distinct requests of `runs` runs each (6 spans a run, a 1 KiB
 * prompt on the attempt), every run with its own trace id.
 */
export function requestPool(count, runs) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('load-agent');
  const prompt = 'Summarise the incident report for the on-call engineer. '.repeat(18);
  return Array.from({ length: count }, () => {
    exporter.reset();
    for (let i = 0; i < runs; i += 1) {
      const run = RunRecorder.start({ tracer, agentName: 'load' });
      const attempt = run.startAttempt({ boundary: { tools: [{ name: 'read', sideEffects: 'read_only' }] } });
      attempt.span.setAttribute('gen_ai.prompt', prompt);
      attempt.textOutput();
      attempt.fail(Object.assign(new TypeError('terminated'), { cause: { code: 'UND_ERR_SOCKET' } }));
      for (let t = 0; t < 4; t += 1) run.startTool({ name: 'read', sideEffects: 'read_only', attempt }).complete();
      run.end();
    }
    const spans = exporter.getFinishedSpans();
    return {
      body: ProtobufTraceSerializer.serializeRequest(spans),
      spans: spans.length,
      ids: spans.map((s) => `${s.spanContext().traceId}:${s.spanContext().spanId}`),
      traceIds: [...new Set(spans.map((s) => s.spanContext().traceId))],
    };
  });
}

/**
 * A copy of `request` with every trace id renewed for `generation` (its first
 * four bytes): the same spans, new traces, at the cost of a buffer copy, so a
 * long soak sends fresh traces without making them from scratch.
 */
export function renewed(request, generation) {
  const template = Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength);
  request.offsets ??= request.traceIds.map((id) => {
    const bytes = Buffer.from(id, 'hex');
    const at = [];
    for (let i = template.indexOf(bytes); i !== -1; i = template.indexOf(bytes, i + 1)) at.push(i);
    return at;
  });
  const body = Buffer.from(template);
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32BE(generation >>> 0);
  const rename = new Map();
  request.traceIds.forEach((id, i) => {
    for (const at of request.offsets[i]) prefix.copy(body, at);
    rename.set(id, prefix.toString('hex') + id.slice(8));
  });
  const ids = request.ids.map((key) => {
    const [traceId, spanId] = key.split(':');
    return `${rename.get(traceId)}:${spanId}`;
  });
  return { body, spans: request.spans, ids };
}

/** An OTLP/HTTP upstream on 127.0.0.1; with `count`, it decodes what it gets and counts distinct spans (trace and span id). */
export async function startUpstream({ count = false } = {}) {
  const delivered = new Set();
  let spans = 0;
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (c) => count && chunks.push(c));
    request.on('end', () => {
      if (count) {
        for (const span of decodeOtlpJsonSpans(decodeExportTraceRequest(Buffer.concat(chunks)))) {
          delivered.add(`${span.traceId}:${span.spanId}`);
          spans += 1;
        }
      }
      response.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    delivered,
    get spans() {
      return spans;
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

/** A port nothing listens on: an upstream that is down. */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Gateways started here: killed if this process ends first (a crashed bench must not leave them running). */
const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** Starts the gateway CLI with `config` (an object) written to `dir`; resolves once it listens. */
export async function startGateway(dir, config) {
  const file = join(dir, `gateway-${Date.now()}.yaml`);
  writeFileSync(file, stringify(config));
  const child = spawn(process.execPath, [CLI, 'gateway', '--config', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const url = await new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`gateway exited ${code}: ${stderr}`)));
    const poll = setInterval(() => {
      const found = /listening on (\S+)\/v1\/traces/.exec(stderr)?.[1];
      if (found) {
        clearInterval(poll);
        resolve(found);
      }
    }, 50);
  });
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        child.removeAllListeners('exit');
        child.on('exit', resolve);
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 60_000).unref();
      }),
  };
}

/** One reading of a gateway's /metrics: RSS, held bytes, event-loop delay since the previous reading. */
export async function readMetrics(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const metric = (name) => {
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return line ? Number(line.slice(name.length + 1)) : NaN;
  };
  return {
    rss: metric('process_resident_memory_bytes'),
    held: metric('agent_incidents_gateway_bytes_held'),
    p99: metric('agent_incidents_gateway_event_loop_delay_p99_seconds') * 1000,
    max: metric('agent_incidents_gateway_event_loop_delay_max_seconds') * 1000,
    forwarded: metric('agent_incidents_gateway_spans_forwarded_total'),
    received: metric('agent_incidents_gateway_spans_received_total'),
    shedBusy: metric('agent_incidents_gateway_requests_refused_total{reason="busy"}') || 0,
  };
}

/** Posts `request` once; returns the status (or 'error': a connection refused or cut), counted in `statuses`. */
export async function postOnce(url, request, statuses) {
  let status = 'error';
  try {
    const response = await fetch(`${url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: request.body,
    });
    await response.arrayBuffer();
    status = response.status;
  } catch {
    // counted as an error
  }
  statuses.set(status, (statuses.get(status) ?? 0) + 1);
  return status;
}

/** Posts `request` until the gateway acknowledges it (a refusal waits `backoffMillis`, as an OTLP exporter backs off). */
export async function sendUntilAccepted(url, request, statuses, backoffMillis, stillTrying = () => true) {
  for (;;) {
    if ((await postOnce(url, request, statuses)) === 200) return true;
    if (!stillTrying()) return false;
    await sleep(backoffMillis);
  }
}

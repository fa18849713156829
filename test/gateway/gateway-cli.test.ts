/**
 * `agent-incidents gateway --config FILE`, run as operators run it: a bad
 * configuration exits 2 naming the key; a running gateway folds what it
 * receives and, on SIGTERM, delivers what it still holds before exiting 0.
 */
import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { describe, expect, it } from 'vitest';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { decodeExportTraceRequest } from '../../src/otlp/otlp-protobuf.js';
import { createPipeline, errors, LOCAL_TOOLS } from '../support/harness.js';

const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli.js');

async function configFile(text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ai-gateway-'));
  const file = join(dir, 'gateway.yaml');
  await writeFile(file, text);
  return file;
}

describe('agent-incidents gateway', () => {
  it.each([
    ['a missing upstream', 'listen: { port: 0 }\n', 'upstream'],
    [
      'a port out of range',
      'listen: { port: 70000 }\nupstream: { endpoint: http://127.0.0.1:4318/v1/traces }\n',
      'listen.port',
    ],
    ['an unknown key', 'upstream: { endpoint: http://127.0.0.1:4318/v1/traces }\nhold: { decisionWait: 5 }\n', 'hold'],
    ['an endpoint that is not a URL', 'upstream: { endpoint: not-a-url }\n', 'upstream.endpoint'],
  ])('exits 2 on %s, naming the key', async (_name, yaml, key) => {
    const file = await configFile(yaml);
    const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(process.execPath, [CLI, 'gateway', '--config', file], (error, _stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
      );
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(key);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('folds a received trace and delivers what it holds on SIGTERM, then exits 0', async () => {
    const received: string[] = [];
    const upstream = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        for (const span of decodeOtlpJsonSpans(decodeExportTraceRequest(Buffer.concat(chunks)))) {
          const cause = span.attributes['incident.cause'];
          if (typeof cause === 'string') received.push(cause);
        }
        response.end();
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const port = (upstream.address() as AddressInfo).port;
    // A long decision wait: only SIGTERM can release the trace.
    const file = await configFile(
      `listen: { host: 127.0.0.1, port: 0 }\nupstream: { endpoint: http://127.0.0.1:${port}/v1/traces }\nhold: { decisionWaitMillis: 600000 }\n`,
    );
    const child = spawn(process.execPath, [CLI, 'gateway', '--config', file], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const listening = new Promise<string>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const url = /listening on (\S+)\/v1\/traces/.exec(stderr)?.[1];
        if (url) resolve(url);
      });
    });
    const url = await listening;

    const pipeline = createPipeline({ sanitization: { mode: 'off' } });
    const run = pipeline.startRun();
    const attempt = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
    attempt.textOutput();
    attempt.fail(errors.socketDrop());
    run.end();
    await pipeline.provider.forceFlush();
    const spans = pipeline.spans();
    for (const span of spans)
      for (const key of Object.keys(span.attributes))
        if (key.startsWith('incident.')) delete (span.attributes as Record<string, unknown>)[key];
    const response = await fetch(`${url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: ProtobufTraceSerializer.serializeRequest(spans),
    });
    expect(response.status).toBe(200);
    expect(received).toEqual([]);

    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(received).toContain('provider_transport_disconnect');
    expect(stderr).toContain('flushed and stopped');
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
  });
});

/**
 * readBody (src/gateway/request-body.ts) over real HTTP on 127.0.0.1: a body
 * within the limit is read whole (gunzipped when gzip), and an unsupported
 * encoding, a declared or streamed oversize, a gzip expanding past the limit
 * or a body that is not gzip are refused with their status.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BodyResult } from '../../src/gateway/request-body.js';
import { readBody } from '../../src/gateway/request-body.js';

const LIMIT = 1_000;
let server: Server;
let port = 0;
/** The results of the requests the server read, in order. */
const results: BodyResult[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    void readBody(request, LIMIT).then((result) => {
      results.push(result);
      response.writeHead(result.ok ? 200 : result.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Sends `chunks` (chunked when `headers` declares no length) and returns what readBody made of them. */
async function send(chunks: Buffer[], headers: Record<string, string | number> = {}): Promise<BodyResult> {
  const before = results.length;
  const status = await new Promise<number>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/v1/traces', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
  const result = results[before]!;
  expect(status).toBe(result.ok ? 200 : result.status);
  return result;
}

const TEXT = Buffer.from('x'.repeat(600));

describe('readBody', () => {
  it.each([
    ['identity, with a length', [TEXT], { 'content-length': 600 }],
    ['identity, chunked', [TEXT.subarray(0, 300), TEXT.subarray(300)], {}],
    ['an explicit identity encoding', [TEXT], { 'content-encoding': ' Identity ' }],
  ])('reads a body within the limit: %s', async (_case, chunks, headers) => {
    expect(await send(chunks, headers)).toEqual({ ok: true, body: TEXT, receivedBytes: 600 });
  });

  it('gunzips a gzip body and counts the bytes received, not decompressed', async () => {
    const zipped = gzipSync(TEXT);
    expect(await send([zipped], { 'content-encoding': 'GZIP' })).toEqual({
      ok: true,
      body: TEXT,
      receivedBytes: zipped.length,
    });
  });

  it.each([
    ['an unsupported encoding', [TEXT], { 'content-encoding': 'br' }, 415, 'unsupported content-encoding br'],
    [
      'a declared length past the limit',
      [Buffer.alloc(1_001)],
      { 'content-length': 1_001 },
      413,
      'body of 1001 bytes exceeds 1000',
    ],
    [
      'a chunked body streaming past the limit',
      [Buffer.alloc(600), Buffer.alloc(600)],
      {},
      413,
      'body exceeds 1000 bytes',
    ],
    [
      'a gzip body expanding past the limit',
      [gzipSync(Buffer.alloc(50_000))],
      { 'content-encoding': 'gzip' },
      413,
      'decompressed body exceeds 1000 bytes',
    ],
    ['a body that is not gzip', [TEXT], { 'content-encoding': 'gzip' }, 400, 'body is not valid gzip'],
  ])('refuses %s', async (_case, chunks, headers, status, message) => {
    expect(await send(chunks, headers)).toEqual({ ok: false, status, message });
  });
});

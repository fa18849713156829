/**
 * Reads an OTLP/HTTP request body within a byte limit, before and after
 * gzip: an oversized body is refused as it streams in, and decompression
 * stops at the limit, so a gzip bomb never expands in memory.
 */
import type { IncomingMessage } from 'node:http';
import { gunzip } from 'node:zlib';

/** A body, or why it cannot be read (with the HTTP status to answer). */
export type BodyResult =
  | { readonly ok: true; readonly body: Buffer; readonly receivedBytes: number }
  | { readonly ok: false; readonly status: 400 | 413 | 415; readonly message: string };

function gunzipLimited(data: Buffer, maxBytes: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    gunzip(data, { maxOutputLength: maxBytes }, (error, result) => {
      if (!error) resolve({ ok: true, body: result, receivedBytes: data.length });
      else if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
        resolve({ ok: false, status: 413, message: `decompressed body exceeds ${maxBytes} bytes` });
      else resolve({ ok: false, status: 400, message: 'body is not valid gzip' });
    });
  });
}

/** Reads the body of `request`, at most `maxBytes` compressed and decompressed. */
export function readBody(request: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  const encoding = (request.headers['content-encoding'] ?? 'identity').toLowerCase().trim();
  if (encoding !== 'identity' && encoding !== 'gzip') {
    request.resume();
    return Promise.resolve({ ok: false, status: 415, message: `unsupported content-encoding ${encoding}` });
  }
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    request.resume();
    return Promise.resolve({ ok: false, status: 413, message: `body of ${declared} bytes exceeds ${maxBytes}` });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    request.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > maxBytes) {
        // Stop keeping it; the rest is drained so the answer can still be written.
        refused = true;
        chunks.length = 0;
        resolve({ ok: false, status: 413, message: `body exceeds ${maxBytes} bytes` });
        return;
      }
      chunks.push(chunk);
    });
    request.on('error', () => {
      if (!refused) resolve({ ok: false, status: 400, message: 'request body could not be read' });
      refused = true;
    });
    request.on('end', () => {
      if (refused) return;
      const data = Buffer.concat(chunks, size);
      if (encoding === 'gzip') void gunzipLimited(data, maxBytes).then(resolve);
      else resolve({ ok: true, body: data, receivedBytes: size });
    });
  });
}

/**
 * `agent-incidents receive`: an OTLP/HTTP traces endpoint that appends every
 * request it accepts to a file, one OTLP/JSON `ExportTraceServiceRequest` per
 * line: the input `agent-incidents report` reads. It lets a user see the
 * incidents of their own app with no collector: the app's OTLP exporter
 * sends to its default address (port 4318) unchanged.
 *
 * It writes what it receives as it is: it judges and sanitizes nothing (the
 * app's IncidentSpanProcessor already did, and `report` judges what has no
 * verdict). A `200` is answered only once the line is written, and lines are
 * written one request at a time, so a line is never torn by another.
 */
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeExportTraceResponse } from '../otlp/otlp-protobuf.js';
import { decodeBody } from './decode-body.js';
import { readBody } from './request-body.js';

const PROTOBUF = 'application/x-protobuf';
const JSON_TYPE = 'application/json';

/** Options of {@link startFileReceiver}. */
export interface FileReceiverOptions {
  /** The OTLP/JSON lines file; created when missing, appended to when it exists. */
  readonly out: string;
  /** Address to listen on. @default '127.0.0.1' */
  readonly host?: string;
  /** Port to listen on; `0` picks a free one. @default 4318 (where OTLP exporters send by default) */
  readonly port?: number;
  /** Largest body accepted, before and after gzip; larger ones get `413`. @default 67108864 (64 MiB) */
  readonly maxBodyBytes?: number;
  /** Largest number of spans, events, links and values one protobuf request may hold; past it `413`. @default 1000000 */
  readonly maxRequestItems?: number;
}

/** What a receiver has written so far. */
export interface FileReceiverCounts {
  /** Requests written (one line each). */
  readonly requests: number;
  /** Spans in them. */
  readonly spans: number;
}

/** A running receiver. */
export interface FileReceiver {
  /** Base URL, e.g. `http://127.0.0.1:4318`; the endpoint is `${url}/v1/traces`. */
  readonly url: string;
  /** What was written so far. */
  counts(): FileReceiverCounts;
  /** Stops accepting, waits for requests being written, closes the file; resolves to what was written. */
  close(): Promise<FileReceiverCounts>;
}

/** Starts a receiver; rejects when the file cannot be opened or the address is taken (`EADDRINUSE`). */
export async function startFileReceiver(options: FileReceiverOptions): Promise<FileReceiver> {
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024 * 1024;
  const maxItems = options.maxRequestItems ?? 1_000_000;
  const file: FileHandle = await open(options.out, 'a');
  let requests = 0;
  let spans = 0;
  // One write at a time, in arrival order: concurrent appends could interleave a line.
  let writing: Promise<unknown> = Promise.resolve();

  const refuse = (
    response: ServerResponse,
    status: number,
    message: string,
    headers: Record<string, string> = {},
  ): void => {
    response.writeHead(status, { 'content-type': JSON_TYPE, ...headers });
    response.end(JSON.stringify({ code: status, message }));
  };

  const receive = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/v1/traces') {
      request.resume();
      return refuse(response, 404, `no such endpoint ${path ?? ''}: traces go to POST /v1/traces`);
    }
    if (request.method !== 'POST') {
      request.resume();
      return refuse(response, 405, 'use POST', { allow: 'POST' });
    }
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== PROTOBUF && type !== JSON_TYPE) {
      request.resume();
      return refuse(response, 415, `content-type must be ${PROTOBUF} or ${JSON_TYPE}`);
    }
    const body = await readBody(request, maxBodyBytes);
    if (!body.ok)
      return refuse(response, body.status, body.message, body.status === 413 ? { connection: 'close' } : {});
    const decoded = decodeBody(type === PROTOBUF ? 'protobuf' : 'json', body.body, maxItems);
    if (!decoded.ok) return refuse(response, decoded.status, decoded.message);
    // The OTLP/JSON shape of the request on one line (a protobuf body was converted by the decoder).
    const line = JSON.stringify(decoded.request) + '\n';
    const written = writing.then(() => file.write(line));
    writing = written.catch(() => undefined);
    try {
      await written;
    } catch (error) {
      // Not written, so not accepted: the exporter may retry.
      return refuse(
        response,
        503,
        `cannot write ${options.out}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
        { 'retry-after': '1' },
      );
    }
    requests += 1;
    spans += decoded.spans.length;
    const partial =
      decoded.rejected > 0
        ? { rejectedSpans: decoded.rejected, errorMessage: 'spans without valid ids were not kept' }
        : undefined;
    if (type === PROTOBUF) {
      response.writeHead(200, { 'content-type': PROTOBUF });
      response.end(encodeExportTraceResponse(partial));
    } else {
      response.writeHead(200, { 'content-type': JSON_TYPE });
      response.end(JSON.stringify(partial ? { partialSuccess: partial } : {}));
    }
  };

  const server: Server = createServer((request, response) => {
    receive(request, response).catch((error: unknown) => {
      // Only a bug gets here; answer it rather than leave the exporter waiting.
      if (!response.headersSent)
        refuse(response, 500, `internal error: ${error instanceof Error ? error.message : String(error)}`);
      else response.destroy();
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 4318, options.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await file.close();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const counts = (): FileReceiverCounts => ({ requests, spans });
  return {
    url: `http://${host}:${address.port}`,
    counts,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await writing;
      await file.close();
      return counts();
    },
  };
}

/**
 * An OTLP/HTTP receiver on 127.0.0.1 standing in for the collector or Jaeger
 * behind the gateway: it answers each request with the next status given (200
 * once they run out) and keeps the decoded spans and the raw bodies it accepted.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DecodedSpan } from '../../src/otlp/otlp-json-spans.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { decodeExportTraceRequest } from '../../src/otlp/otlp-protobuf.js';

/**
 * Starts the receiver (on `port`, or a free one); `statuses` are answered in
 * order (a 503 with `Retry-After: 0`). Once they run out, `refuse` (if given)
 * may answer a request by its decoded spans: a status to refuse it with, or
 * undefined to take it.
 */
export async function startUpstream(
  statuses: number[] = [],
  port = 0,
  refuse?: (spans: DecodedSpan[]) => number | undefined,
) {
  const received: DecodedSpan[] = [];
  const bodies: Buffer[] = [];
  let requests = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      requests += 1;
      const body = Buffer.concat(chunks);
      const decode = (): DecodedSpan[] => {
        const json = (request.headers['content-type'] ?? '').startsWith('application/json');
        return decodeOtlpJsonSpans(
          json ? (JSON.parse(body.toString('utf8')) as unknown) : decodeExportTraceRequest(body),
        );
      };
      let status = statuses.shift();
      let spans: DecodedSpan[] | undefined;
      if (status === undefined) {
        spans = decode();
        status = refuse?.(spans) ?? 200;
      }
      if (status === 200) {
        bodies.push(body);
        received.push(...(spans ?? decode()));
      }
      response.writeHead(status, status === 503 ? { 'retry-after': '0' } : {});
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    endpoint: `http://127.0.0.1:${bound}/v1/traces`,
    received,
    bodies,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Down means down: keep-alive connections go too, so the next request is refused.
        server.closeAllConnections();
      }),
  };
}

/**
 * OtlpJsonPoster (src/demo/otlp-json-poster.ts), the demo's `--otlp-endpoint`
 * sender, against a real OTLP/HTTP collector on 127.0.0.1: spans are POSTed
 * as OTLP/JSON in batches of at least 512 (a trace is never split), one
 * request at a time and in order; `ready()` is the demo's backpressure (it
 * waits while more than 8 batches wait); the first failure (a refusal, an
 * unreachable collector) is kept, ends the sending and drops what waits, and
 * nothing throws: the demo still writes its file.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OtlpJsonPoster } from '../../src/demo/otlp-json-poster.js';
import type { EncodableSpan } from '../../src/otlp/otlp-encode.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { waitFor } from '../support/wait-for.js';

const RESOURCE = { attributes: { 'service.name': 'poster-test' } };
const SCOPE = { name: 'poster-test' };
const T0 = 1_700_000_000_000_000_000n;

/** `count` spans numbered from `from`: span n has the span id n in hex and the name `span n`. */
function spans(count: number, from = 1): EncodableSpan[] {
  return Array.from({ length: count }, (_, i) => ({
    traceId: (from + i).toString(16).padStart(32, '0'),
    spanId: (from + i).toString(16).padStart(16, '0'),
    name: `span ${from + i}`,
    otlpKind: 1,
    startTimeUnixNano: T0,
    endTimeUnixNano: T0 + 1_000_000n,
    attributes: { n: from + i },
    events: [],
    links: [],
    status: { code: 0 },
    otlpResource: RESOURCE,
    otlpScope: SCOPE,
  }));
}

interface Received {
  readonly method?: string;
  readonly path?: string;
  readonly contentType?: string;
  readonly names: string[];
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A collector on 127.0.0.1: answers `status`, or, with `hold`, only when the test releases each request. */
async function collector(options: { status?: number; hold?: boolean } = {}) {
  const received: Received[] = [];
  const held: (() => void)[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
      received.push({
        method: req.method,
        path: req.url,
        contentType: req.headers['content-type'],
        names: decodeOtlpJsonSpans(body).map((s) => s.name),
      });
      const answer = () => {
        inFlight -= 1;
        res.writeHead(options.status ?? 200, { 'content-type': 'application/json' }).end('{}');
      };
      if (options.hold) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      for (const answer of held.splice(0)) answer();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  closers.push(close);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    received,
    held,
    maxInFlight: () => maxInFlight,
    close,
  };
}

const namesOf = (list: readonly EncodableSpan[]) => list.map((s) => s.name);

describe('batches', () => {
  it('holds fewer than 512 spans until flush, then POSTs them as one OTLP/JSON request', async () => {
    const c = await collector();
    const poster = new OtlpJsonPoster(c.url);
    poster.add(spans(200));
    poster.add(spans(311, 201));
    await poster.flush();
    expect(c.received).toEqual([
      {
        method: 'POST',
        path: '/v1/traces',
        contentType: 'application/json',
        names: namesOf(spans(511)),
      },
    ]);
    expect(poster.error).toBeUndefined();
  });

  it('sends a batch as soon as it holds 512 spans, with all it holds, without waiting for flush', async () => {
    const c = await collector();
    const poster = new OtlpJsonPoster(c.url);
    poster.add(spans(300));
    poster.add(spans(300, 301));
    await waitFor(() => c.received.length === 1, { what: 'the batch of 600 spans is posted' });
    expect(c.received[0]!.names).toEqual(namesOf(spans(600)));
    await poster.flush();
    expect(c.received).toHaveLength(1);
  });

  it('sends nothing when nothing was added, however often it is flushed', async () => {
    const c = await collector();
    const poster = new OtlpJsonPoster(c.url);
    await poster.flush();
    await poster.flush();
    expect(c.received).toEqual([]);
    expect(poster.error).toBeUndefined();
  });

  it('sends one request at a time, in the order the spans came', async () => {
    const c = await collector({ hold: true });
    const poster = new OtlpJsonPoster(c.url);
    for (let b = 0; b < 3; b += 1) poster.add(spans(512, 1 + b * 512));
    poster.add(spans(5, 1537));
    const flushed = poster.flush();
    for (let n = 1; n <= 4; n += 1) {
      await waitFor(() => c.held.length === 1, { what: `request ${n} is held` });
      expect(c.received).toHaveLength(n);
      c.held.shift()!();
    }
    await flushed;
    expect(c.maxInFlight()).toBe(1);
    expect(c.received.flatMap((r) => r.names)).toEqual(namesOf(spans(1541)));
  });
});

describe('ready(), the backpressure', () => {
  it('resolves at once while at most 8 batches wait behind the one being sent', async () => {
    const c = await collector({ hold: true });
    const poster = new OtlpJsonPoster(c.url);
    for (let b = 0; b < 9; b += 1) poster.add(spans(512, 1 + b * 512));
    await poster.ready();
    expect(c.received.length).toBeLessThanOrEqual(1);
  });

  it('waits while more than 8 batches wait, and resolves once a request has ended', async () => {
    const c = await collector({ hold: true });
    const poster = new OtlpJsonPoster(c.url);
    for (let b = 0; b < 10; b += 1) poster.add(spans(512, 1 + b * 512));
    let ready = false;
    void poster.ready().then(() => {
      ready = true;
    });
    await waitFor(() => c.held.length === 1, { what: 'the first request is held' });
    expect(ready).toBe(false);
    c.held.shift()!();
    // 8 batches wait now: the demo may go on while the rest are sent.
    await waitFor(() => ready, { what: 'ready() resolves after one request', timeoutMs: 2000 });
    expect(c.received.length).toBeLessThan(10);
  });
});

describe('failures', () => {
  it('keeps a refusal as the error, drops what waits and sends nothing more', async () => {
    const c = await collector({ status: 503 });
    const poster = new OtlpJsonPoster(c.url);
    for (let b = 0; b < 3; b += 1) poster.add(spans(512, 1 + b * 512));
    await poster.flush();
    expect(poster.error).toBe('HTTP 503 Service Unavailable');
    poster.add(spans(600));
    await poster.flush();
    expect(c.received).toHaveLength(1);
    expect(poster.error).toBe('HTTP 503 Service Unavailable');
  });

  it('keeps the code of a collector it cannot reach, without throwing', async () => {
    const c = await collector();
    await c.close();
    const poster = new OtlpJsonPoster(c.url);
    poster.add(spans(600));
    await expect(poster.flush()).resolves.toBeUndefined();
    expect(poster.error).toBe('ECONNREFUSED');
  });

  it('keeps the reason of an address fetch cannot use, without throwing', async () => {
    const poster = new OtlpJsonPoster('not a url');
    poster.add(spans(3));
    await expect(poster.flush()).resolves.toBeUndefined();
    expect(poster.error).toMatch(/ERR_INVALID_URL|Invalid URL/);
  });
});

/**
 * The fake provider's HTTP server: real `node:http` on real sockets, so the
 * real provider packages and undici meet the same failures they meet in
 * production (a destroyed socket, a stalled answer, an HTTP error).
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { anthropicMessages } from './anthropic-messages.js';
import { chatCompletions, openAiError } from './chat-completions.js';
import type { Dialect, DialectName } from './dialect.js';
import type { PlayOutcome } from './play.js';
import { play } from './play.js';
import { responses } from './responses.js';
import type { Reply } from './script.js';
import { DEFAULT_REPLY } from './script.js';

/**
 * How an exchange ended: the fake answered in full (`finished`), with an HTTP
 * error (`http-error`, also for an unknown path or a body that is not JSON),
 * with a provider error event (`provider-error`), ended the body cleanly
 * without the finish (`ended`), or destroyed the socket (`destroyed`); or the
 * client closed the connection first (`client-aborted`), or `close()` cut it
 * short (`server-closed`).
 */
export type RequestEnd =
  'finished' | 'http-error' | 'provider-error' | 'ended' | 'destroyed' | 'client-aborted' | 'server-closed';

/** One request the fake provider received. */
export interface RecordedRequest {
  /** `unknown` for a path no dialect serves (answered 404). */
  readonly dialect: DialectName | 'unknown';
  readonly method: string;
  /** The path without the query string, e.g. `/v1/messages`. */
  readonly path: string;
  /** The parsed JSON body; the raw text when it is not JSON. */
  readonly body: unknown;
  readonly headers: IncomingHttpHeaders;
  /** The request asked for a streamed answer. */
  readonly stream: boolean;
  /** The client closed the connection before the answer ended. */
  readonly aborted: boolean;
  /** How the exchange ended; `undefined` while it is still going on. */
  readonly end: RequestEnd | undefined;
}

/** Options of {@link startFakeProvider}. */
export interface FakeProviderOptions {
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** @default 0 (the OS picks a free port) */
  readonly port?: number;
  /** The answer when no reply is queued. @default a short text answer ({@link DEFAULT_REPLY}) */
  readonly defaultReply?: Reply;
}

/** A running fake provider. */
export interface FakeProvider {
  /** e.g. `http://127.0.0.1:41234` */
  readonly url: string;
  /** `${url}/v1`: the `baseURL` for `@ai-sdk/openai`, `@ai-sdk/anthropic` and the `openai` SDK. */
  readonly baseURL: string;
  /** Every request received, in arrival order. */
  readonly requests: readonly RecordedRequest[];
  /** Queues replies; each incoming request takes the next one, or the default reply when none is left. */
  enqueue(...replies: readonly Reply[]): void;
  /** Resolves once every request received so far has ended (a stalled one ends only by abort or close). */
  settled(): Promise<void>;
  /** Closes the server and destroys every open socket, stalled ones included; clears every timer. */
  close(): Promise<void>;
}

const DIALECTS: readonly Dialect[] = [chatCompletions, responses, anthropicMessages];

type MutableRecord = { -readonly [K in keyof RecordedRequest]: RecordedRequest[K] };

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Starts a fake provider on `host:port`. Close it with {@link FakeProvider.close}. */
export async function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const { host = '127.0.0.1', port = 0, defaultReply = DEFAULT_REPLY } = options;
  const queue: Reply[] = [];
  const requests: MutableRecord[] = [];
  const sockets = new Set<Socket>();
  const inFlight = new Set<Promise<void>>();
  const stops = new Set<AbortController>();
  let closing = false;
  let closed: Promise<void> | undefined;
  let serial = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const stop = new AbortController();
    stops.add(stop);
    let record: MutableRecord | undefined;
    let endedByServer = false;
    const destroy = (): void => {
      endedByServer = true;
      res.socket?.destroy();
    };
    // 'close' fires when the answer is done or the connection is gone; only the
    // second, before our answer ended and not caused by us, is a client abort.
    res.once('close', () => {
      if (record !== undefined && !res.writableFinished && !endedByServer && !closing) record.aborted = true;
      stop.abort();
    });
    try {
      const text = await readBody(req);
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const dialect = req.method === 'POST' ? DIALECTS.find((d) => d.path === path) : undefined;
      const parsed = parseJson(text);
      const body = parsed.ok ? parsed.value : text;
      record = {
        dialect: dialect?.name ?? 'unknown',
        method: req.method ?? 'GET',
        path,
        body,
        headers: req.headers,
        stream: dialect !== undefined && isObject(body) && dialect.wantsStream(body),
        aborted: false,
        end: undefined,
      };
      requests.push(record);
      let outcome: PlayOutcome;
      if (dialect === undefined || !isObject(body)) {
        const status = dialect === undefined ? 404 : 400;
        const message =
          dialect === undefined
            ? `No fake provider route for ${req.method} ${path}`
            : 'The request body is not a JSON object.';
        const errorBody =
          dialect?.errorBody(status, { message }) ?? JSON.stringify({ error: openAiError(status, { message }) });
        outcome = await play(
          {
            res,
            dialect: dialect ?? chatCompletions,
            context: contextOf({}, text),
            stream: false,
            signal: stop.signal,
            destroy,
          },
          { status, body: errorBody },
        );
      } else {
        const reply = queue.shift() ?? defaultReply;
        outcome = await play(
          { res, dialect, context: contextOf(body, text), stream: record.stream, signal: stop.signal, destroy },
          reply,
        );
      }
      record.end = outcome === 'stopped' ? (closing ? 'server-closed' : 'client-aborted') : outcome;
    } catch {
      // The client went away while the body was read, or an answer could not be
      // rendered (e.g. tool arguments that are not JSON): drop the connection.
      if (record !== undefined)
        record.end = closing ? 'server-closed' : record.aborted ? 'client-aborted' : 'destroyed';
      destroy();
    } finally {
      stops.delete(stop);
    }
  }

  function contextOf(body: Readonly<Record<string, unknown>>, text: string): Parameters<typeof play>[0]['context'] {
    serial += 1;
    const streamOptions = body.stream_options;
    return {
      model: typeof body.model === 'string' ? body.model : 'fake-model',
      serial,
      created: Math.floor(Date.now() / 1000),
      inputTokens: Math.max(1, Math.ceil(text.length / 4)),
      includeUsage: isObject(streamOptions) && streamOptions.include_usage === true,
    };
  }

  const server = createServer((req, res) => {
    const exchange = handle(req, res);
    inFlight.add(exchange);
    void exchange.finally(() => inFlight.delete(exchange));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;

  return {
    url,
    baseURL: `${url}/v1`,
    requests,
    enqueue(...replies) {
      queue.push(...replies);
    },
    async settled() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    close() {
      closed ??= (async () => {
        closing = true;
        for (const stop of stops) stop.abort();
        const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const socket of sockets) socket.destroy();
        await serverClosed;
        await Promise.all([...inFlight]);
      })();
      return closed;
    },
  };
}

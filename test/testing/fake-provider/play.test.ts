/**
 * play(): one reply on one real HTTP response over 127.0.0.1, in the Chat Completions dialect:
 * the outcome each way of ending gives, the status and headers of an error answer, a whole
 * (non-streaming) answer built from the steps, and a stall that ends only when the signal aborts.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { chatCompletions } from '../../../src/testing/fake-provider/chat-completions.js';
import type { PlayOutcome } from '../../../src/testing/fake-provider/play.js';
import { play } from '../../../src/testing/fake-provider/play.js';
import type { Reply } from '../../../src/testing/fake-provider/script.js';
import { reply } from '../../../src/testing/fake-provider/script.js';
import { waitFor } from '../../support/wait-for.js';

const CONTEXT = { model: 'm', serial: 1, created: 1_700_000_000, inputTokens: 4, includeUsage: false };
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** Plays `answer` on one request; resolves with what the client saw and the outcome. */
async function exchange(answer: Reply, stream: boolean, abortAfterStart = false) {
  let outcome: Promise<PlayOutcome> | undefined;
  const stop = new AbortController();
  server = createServer((req, res) => {
    res.once('close', () => stop.abort());
    outcome = play(
      {
        res,
        dialect: chatCompletions,
        context: CONTEXT,
        stream,
        signal: stop.signal,
        destroy: () => res.socket?.destroy(),
      },
      answer,
    );
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const seen = fetch(`http://127.0.0.1:${port}/`).then(
    async (res) => ({
      status: res.status,
      type: res.headers.get('content-type'),
      extra: res.headers.get('x-extra'),
      body: await res.text(),
    }),
    (error: unknown) => ({ status: 0, type: null, extra: null, body: String(error) }),
  );
  if (abortAfterStart) {
    await waitFor(() => outcome !== undefined, { what: 'the request arrived' });
    stop.abort();
    const stopped = await outcome;
    // Nothing was written, so the client still waits for headers: drop it.
    server.closeAllConnections();
    return { client: await seen, outcome: stopped };
  }
  const client = await seen;
  await waitFor(() => outcome !== undefined, { what: 'play started' });
  return { client, outcome: await outcome };
}

describe('play, streaming', () => {
  it.each<[string, Reply, PlayOutcome]>([
    ['a script that ends without finish finishes', reply.text('hi'), 'finished'],
    [
      'an error step is a provider error',
      reply.script({ type: 'text', text: 'a' }, { type: 'error' }),
      'provider-error',
    ],
    [
      'an end step ends cleanly without the finish',
      reply.script({ type: 'text', text: 'a' }, { type: 'end' }),
      'ended',
    ],
    ['a destroy step destroys the socket', reply.destroy(), 'destroyed'],
  ])('%s', async (_name, answer, expected) => {
    expect((await exchange(answer, true)).outcome).toBe(expected);
  });

  it('writes the steps as SSE, then the implied finish and [DONE]', async () => {
    const client = (await exchange(reply.script({ type: 'text', text: ['a', 'b'] }), true)).client;
    expect(client.type).toBe('text/event-stream; charset=utf-8');
    expect(client.body.match(/"content":"\w"/g)).toEqual(['"content":"a"', '"content":"b"']);
    expect(client.body).toContain('"finish_reason":"stop"');
    expect(client.body.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('implies tool_calls for a script that made a tool call', async () => {
    const { client } = await exchange(reply.toolCall('t', { a: 1 }), true);
    expect(client.body).toContain('"finish_reason":"tool_calls"');
  });

  it('a stall ends as stopped once the signal aborts', async () => {
    expect((await exchange(reply.stall(), true, true)).outcome).toBe('stopped');
  });
});

describe('play, whole answers and errors', () => {
  it('answers an HTTP error with its status, headers and the dialect’s error body', async () => {
    const { client, outcome } = await exchange(reply.status(429, { 'x-extra': 'v' }), false);
    expect(outcome).toBe('http-error');
    expect([client.status, client.extra]).toEqual([429, 'v']);
    expect(JSON.parse(client.body)).toEqual(JSON.parse(chatCompletions.errorBody(429, undefined)));
  });

  it('joins the text steps into one JSON answer with the scripted finish reason', async () => {
    const { client, outcome } = await exchange(
      reply.script(
        { type: 'text', text: ['a', 'b'] },
        { type: 'finish', reason: 'length' },
        { type: 'text', text: 'ignored' },
      ),
      false,
    );
    expect(outcome).toBe('finished');
    const body = JSON.parse(client.body) as {
      choices: [{ message: { content: string }; finish_reason: string }];
      usage: { completion_tokens: number };
    };
    expect([body.choices[0].message.content, body.choices[0].finish_reason, body.usage.completion_tokens]).toEqual([
      'ab',
      'length',
      2,
    ]);
  });

  it('answers an error step with the dialect’s error status', async () => {
    const { client, outcome } = await exchange(reply.script({ type: 'error' }), false);
    expect([outcome, client.status]).toEqual(['provider-error', 500]);
  });

  it('cuts the JSON body in half at an end step', async () => {
    const { client, outcome } = await exchange(reply.script({ type: 'text', text: 'abc' }, { type: 'end' }), false);
    expect(outcome).toBe('ended');
    expect(() => JSON.parse(client.body) as unknown).toThrow();
    expect(client.body.startsWith('{"id":"chatcmpl-fake1"')).toBe(true);
  });
});

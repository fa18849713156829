/**
 * The fake provider's HTTP server, with plain `fetch` over 127.0.0.1: routing by path, error
 * answers for unknown paths and bodies that are not JSON objects, what it records of each
 * request, the reply queue and the default reply, and how an exchange's end is recorded
 * (finished, client-aborted, server-closed).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeProvider, FakeProviderOptions } from '../../../src/testing/fake-provider/server.js';
import { startFakeProvider } from '../../../src/testing/fake-provider/server.js';
import { reply } from '../../../src/testing/fake-provider/script.js';
import { waitFor } from '../../support/wait-for.js';

let provider: FakeProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

async function start(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  provider = await startFakeProvider(options);
  return provider;
}

const post = (p: FakeProvider, path: string, body: unknown, init: RequestInit = {}) =>
  fetch(`${p.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });

describe('startFakeProvider', () => {
  it('listens on 127.0.0.1 on a free port, with baseURL under /v1', async () => {
    const p = await start();
    expect(p.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(p.baseURL).toBe(`${p.url}/v1`);
  });

  it('answers an unknown path 404 in the OpenAI error shape and records it as unknown', async () => {
    const p = await start();
    const res = await fetch(`${p.url}/v2/nothing?x=1`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: {
        message: 'No fake provider route for GET /v2/nothing',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_request_error',
      },
    });
    await p.settled();
    expect(p.requests).toMatchObject([
      { dialect: 'unknown', method: 'GET', path: '/v2/nothing', stream: false, end: 'http-error' },
    ]);
  });

  it.each([
    ['chat-completions', '/v1/chat/completions', 'invalid_request_error'],
    ['messages', '/v1/messages', 'invalid_request_error'],
  ])('answers a %s body that is not a JSON object 400 in the dialect’s error shape', async (dialect, path, type) => {
    const p = await start();
    const res = await post(p, path, 'not json');
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain(`"type":"${type}"`);
    await p.settled();
    expect(p.requests[0]).toMatchObject({ dialect, body: 'not json', stream: false, end: 'http-error' });
  });

  it('records each request: dialect, path without query, parsed body, headers and stream', async () => {
    const p = await start();
    await (
      await post(p, '/v1/responses?api-version=1', { model: 'm', stream: true }, { headers: { 'x-test': 'yes' } })
    ).text();
    await p.settled();
    expect(p.requests).toHaveLength(1);
    expect(p.requests[0]).toMatchObject({
      dialect: 'responses',
      method: 'POST',
      path: '/v1/responses',
      body: { model: 'm', stream: true },
      headers: { 'x-test': 'yes' },
      stream: true,
      aborted: false,
      end: 'finished',
    });
  });

  it('answers queued replies in order, then the default reply, echoing the model', async () => {
    const p = await start({ defaultReply: reply.text('fallback') });
    p.enqueue(reply.text('one'), reply.status(503));
    const answers: [number, string][] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await post(p, '/v1/chat/completions', { model: `m${i}`, messages: [] });
      const body = (await res.json()) as { model?: string; choices?: [{ message: { content: string } }] };
      answers.push([res.status, body.choices?.[0]?.message.content ?? 'error']);
      if (res.status === 200) expect(body.model).toBe(`m${i}`);
    }
    expect(answers).toEqual([
      [200, 'one'],
      [503, 'error'],
      [200, 'fallback'],
    ]);
  });

  it('numbers answers by serial across requests', async () => {
    const p = await start();
    const ids: string[] = [];
    for (let i = 0; i < 2; i += 1) ids.push(((await (await post(p, '/v1/messages', {})).json()) as { id: string }).id);
    expect(ids).toEqual(['msg_fake1', 'msg_fake2']);
  });

  it('records a stalled exchange the client aborted as client-aborted', async () => {
    const p = await start();
    p.enqueue(reply.stall());
    const controller = new AbortController();
    const pending = post(p, '/v1/chat/completions', { stream: true }, { signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    await waitFor(() => p.requests.length === 1, { what: 'the request arrived' });
    controller.abort();
    await pending;
    await waitFor(() => p.requests[0]?.end !== undefined, { what: 'the exchange ended' });
    expect(p.requests[0]).toMatchObject({ aborted: true, end: 'client-aborted' });
  });

  it('close() ends a stalled exchange as server-closed and the client sees the connection drop', async () => {
    const p = await start();
    p.enqueue(reply.stall());
    const pending = post(p, '/v1/chat/completions', { stream: true }).then(
      () => 'answered',
      () => 'failed',
    );
    await waitFor(() => p.requests.length === 1, { what: 'the request arrived' });
    await p.close();
    expect(await pending).toBe('failed');
    expect(p.requests[0]).toMatchObject({ aborted: false, end: 'server-closed' });
  });
});

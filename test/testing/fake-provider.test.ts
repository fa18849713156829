/**
 * The fake provider against the REAL clients, over real sockets on 127.0.0.1:
 * `ai` with `@ai-sdk/openai` (chat and responses) and `@ai-sdk/anthropic`, and
 * the `openai` SDK. Each test names the promise it checks; the observed error
 * shapes are the facts the incident classifier relies on.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModel, TextStreamPart, ToolSet } from 'ai';
import { APICallError, generateText, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { DialectName, FakeProvider, Reply } from '../../src/testing/fake-provider.js';
import { reply, startFakeProvider } from '../../src/testing/fake-provider.js';
import { watchTimers } from '../support/armed-timers.js';

let provider: FakeProvider;
beforeEach(async () => {
  provider = await startFakeProvider();
});
afterEach(() => provider.close());

interface DialectCase {
  readonly dialect: DialectName;
  readonly model: (provider: FakeProvider) => LanguageModel;
  /** Chat Completions has no reasoning field the parser reads. */
  readonly reasoning: boolean;
  /** The default message of a provider error event in this dialect. */
  readonly errorEventMessage: string;
  readonly authHeader: readonly [string, string];
}

const DIALECTS: readonly DialectCase[] = [
  {
    dialect: 'chat-completions',
    model: (p) => createOpenAI({ baseURL: p.baseURL, apiKey: 'test' }).chat('gpt-4o-mini'),
    reasoning: false,
    errorEventMessage: 'The server had an error while processing your request.',
    authHeader: ['authorization', 'Bearer test'],
  },
  {
    dialect: 'responses',
    model: (p) => createOpenAI({ baseURL: p.baseURL, apiKey: 'test' })('gpt-4o-mini'),
    reasoning: true,
    errorEventMessage: 'The server had an error while processing your request.',
    authHeader: ['authorization', 'Bearer test'],
  },
  {
    dialect: 'messages',
    model: (p) => createAnthropic({ baseURL: p.baseURL, apiKey: 'test' })('claude-sonnet-4-5'),
    reasoning: true,
    errorEventMessage: 'Overloaded',
    authHeader: ['x-api-key', 'test'],
  },
];

/** The first error in `error`'s `.cause` chain with this `code`. */
function causeWithCode(error: unknown, code: string): { readonly code: string; readonly name: string } | undefined {
  for (let current = error; current instanceof Object; current = (current as { cause?: unknown }).cause) {
    const candidate = current as { code?: unknown; name?: unknown };
    if (candidate.code === code) return { code, name: String(candidate.name) };
  }
  return undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Object && 'message' in error ? String(error.message) : String(error);
}

interface Collected {
  readonly text: string;
  readonly reasoning: string;
  /** Part types in arrival order, with text deltas as `text:<delta>`. */
  readonly order: readonly string[];
  /** An error part's error, or what the stream threw. */
  readonly error: unknown;
}

/** Reads a `streamText` result to the end, keeping errors whether they arrive as a part or are thrown. */
async function collect(
  result: { readonly fullStream: AsyncIterable<TextStreamPart<ToolSet>> },
  onText?: () => void,
): Promise<Collected> {
  let text = '';
  let reasoning = '';
  const order: string[] = [];
  let error: unknown;
  try {
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') {
        text += part.text;
        order.push(`text:${part.text}`);
        onText?.();
      } else {
        if (part.type === 'reasoning-delta') reasoning += part.text;
        if (part.type === 'error') error = part.error;
        order.push(part.type);
      }
    }
  } catch (thrown) {
    error = thrown;
    order.push('thrown');
  }
  return { text, reasoning, order, error };
}

/** A tool that records every input it ran with. */
function bashTool(ran: unknown[]) {
  return tool({
    description: 'Runs a shell command.',
    inputSchema: z.object({ command: z.string() }),
    execute: ({ command }) => {
      ran.push({ command });
      return Promise.resolve(`ran ${command}`);
    },
  });
}

/** Streams a prompt; errors are asserted on, so the SDK's default console logging is turned off. */
function stream(model: LanguageModel, options: { maxRetries: number; abortSignal?: AbortSignal; ran?: unknown[] }) {
  const { ran, ...rest } = options;
  return streamText({
    model,
    prompt: 'Hi',
    onError: () => {},
    ...(ran === undefined ? {} : { tools: { bash: bashTool(ran) } }),
    ...rest,
  });
}

describe.each(DIALECTS)(
  '$dialect through the ai SDK',
  ({ dialect, model, reasoning, errorEventMessage, authHeader }) => {
    it('streams reasoning and text deltas and records the request', async () => {
      provider.enqueue(
        reply.script({ type: 'reasoning', text: ['Thinking', ' hard'] }, { type: 'text', text: ['Hel', 'lo'] }),
      );
      const got = await collect(stream(model(provider), { maxRetries: 0 }));
      expect(got.error).toBeUndefined();
      expect(got.order).toEqual(expect.arrayContaining(['text:Hel', 'text:lo', 'finish']));
      expect(got.text).toBe('Hello');
      expect(got.reasoning).toBe(reasoning ? 'Thinking hard' : '');
      const [request] = provider.requests;
      expect(request).toMatchObject({ dialect, method: 'POST', stream: true, aborted: false, end: 'finished' });
      expect(request?.headers[authHeader[0]]).toBe(authHeader[1]);
      expect(request?.body).toMatchObject({ model: expect.any(String), stream: true });
    });

    it('a socket destroyed after text reaches the client as an UND_ERR_SOCKET error, after the text', async () => {
      provider.enqueue(reply.script({ type: 'text', text: 'Hello' }, { type: 'destroy' }));
      const got = await collect(stream(model(provider), { maxRetries: 0 }));
      expect(got.order.indexOf('text:Hello')).toBeGreaterThanOrEqual(0);
      expect(got.order.at(-1)).toBe('thrown');
      expect(causeWithCode(got.error, 'UND_ERR_SOCKET')).toEqual({ code: 'UND_ERR_SOCKET', name: 'SocketError' });
      expect(messageOf((got.error as { cause?: unknown }).cause)).toBe('terminated');
      await provider.settled();
      expect(provider.requests[0]).toMatchObject({ aborted: false, end: 'destroyed' });
    });

    it('a stall before the first byte ends when the client aborts, and is recorded as aborted', async () => {
      provider.enqueue(reply.stall());
      const abort = new AbortController();
      const result = stream(model(provider), { maxRetries: 0, abortSignal: abort.signal });
      const collecting = collect(result);
      await vi.waitFor(() => expect(provider.requests).toHaveLength(1));
      abort.abort();
      const got = await collecting;
      expect(got.order).toContain('abort');
      expect(got.text).toBe('');
      await provider.settled();
      expect(provider.requests[0]).toMatchObject({ aborted: true, end: 'client-aborted' });
    });

    it('a mid-stream stall ends when the client aborts, after the text arrived', async () => {
      provider.enqueue(reply.script({ type: 'text', text: 'Hello' }, { type: 'stall' }));
      const abort = new AbortController();
      const got = await collect(stream(model(provider), { maxRetries: 0, abortSignal: abort.signal }), () =>
        abort.abort(),
      );
      expect(got.text).toBe('Hello');
      expect(got.order.at(-1)).toBe('abort');
      await provider.settled();
      expect(provider.requests[0]).toMatchObject({ aborted: true, end: 'client-aborted' });
    });

    it.each<{ readonly name: string; readonly first: Reply }>([
      { name: '503', first: { status: 503, headers: { 'retry-after': '0' } } },
      { name: '429 with retry-after 0', first: { status: 429, headers: { 'retry-after': '0' } } },
    ])('$name then 200 with maxRetries 1 yields the text after 2 requests, at once', async ({ first }) => {
      provider.enqueue(first, reply.text('Recovered'));
      const timers = watchTimers();
      let got: Awaited<ReturnType<typeof collect>>;
      try {
        got = await collect(stream(model(provider), { maxRetries: 1 }));
      } finally {
        timers.restore();
      }
      // Without the header the SDK would back off 2 s first (a 2,000 ms timer): it armed no such wait.
      expect(timers.armed().map((timer) => timer.ms)).not.toContain(2_000);
      expect(got.error).toBeUndefined();
      expect(got.text).toBe('Recovered');
      expect(provider.requests.map((r) => r.end)).toEqual(['http-error', 'finished']);
    });

    it('400 insufficient quota is not retried and the error says 400', async () => {
      provider.enqueue(reply.insufficientQuota(), reply.text('never sent'));
      const got = await collect(stream(model(provider), { maxRetries: 2 }));
      expect(APICallError.isInstance(got.error)).toBe(true);
      expect(got.error).toMatchObject({ statusCode: 400, isRetryable: false });
      expect(messageOf(got.error)).toMatch(
        dialect === 'messages' ? /credit balance is too low/ : /exceeded your current quota/,
      );
      expect(provider.requests).toHaveLength(1);
    });

    it('a streamed tool call is parsed with its name and input, and the tool runs', async () => {
      provider.enqueue(reply.toolCall('bash', { command: 'ls -la' }));
      const ran: unknown[] = [];
      const result = stream(model(provider), { maxRetries: 0, ran });
      const got = await collect(result);
      expect(got.error).toBeUndefined();
      expect(got.order).toEqual(
        expect.arrayContaining(['tool-input-start', 'tool-input-delta', 'tool-call', 'tool-result']),
      );
      const [call] = await result.toolCalls;
      expect(call).toMatchObject({ toolName: 'bash', input: { command: 'ls -la' } });
      expect(ran).toEqual([{ command: 'ls -la' }]);
      expect(await result.finishReason).toBe('tool-calls');
    });

    it('a partial tool call then destroy never calls the tool and fails with UND_ERR_SOCKET', async () => {
      provider.enqueue(
        reply.script({ type: 'partial-tool-call', name: 'bash', arguments: '{"command":"rm -' }, { type: 'destroy' }),
      );
      const ran: unknown[] = [];
      const got = await collect(stream(model(provider), { maxRetries: 0, ran }));
      expect(got.order).toContain('tool-input-delta');
      expect(got.order).not.toContain('tool-call');
      expect(ran).toEqual([]);
      expect(causeWithCode(got.error, 'UND_ERR_SOCKET')).toBeDefined();
    });

    it('a provider error event after text reaches the client as an error part', async () => {
      provider.enqueue(reply.script({ type: 'text', text: 'Hello' }, { type: 'error' }));
      const got = await collect(stream(model(provider), { maxRetries: 0 }));
      expect(got.text).toBe('Hello');
      expect(got.order).toContain('error');
      expect(got.order).not.toContain('thrown');
      expect(got.order.indexOf('text:Hello')).toBeLessThan(got.order.indexOf('error'));
      expect(messageOf(got.error)).toBe(errorEventMessage);
      await provider.settled();
      expect(provider.requests[0]?.end).toBe('provider-error');
    });

    it('generateText reads a whole (non-streaming) answer', async () => {
      provider.enqueue(reply.script({ type: 'reasoning', text: 'Hmm' }, { type: 'text', text: ['Hel', 'lo'] }));
      const result = await generateText({ model: model(provider), prompt: 'Hi', maxRetries: 0 });
      expect(result.text).toBe('Hello');
      expect(result.reasoningText).toBe(reasoning ? 'Hmm' : undefined);
      expect(result.finishReason).toBe('stop');
      expect(provider.requests[0]).toMatchObject({ dialect, stream: false, end: 'finished' });
    });

    it('generateText runs a tool call from a whole answer', async () => {
      provider.enqueue(reply.toolCall('bash', { command: 'pwd' }));
      const ran: unknown[] = [];
      const result = await generateText({
        model: model(provider),
        prompt: 'Hi',
        maxRetries: 0,
        tools: { bash: bashTool(ran) },
      });
      expect(result.toolCalls).toMatchObject([{ toolName: 'bash', input: { command: 'pwd' } }]);
      expect(result.finishReason).toBe('tool-calls');
      expect(ran).toEqual([{ command: 'pwd' }]);
    });
  },
);

describe('the openai SDK on chat completions', () => {
  const client = (): OpenAI => new OpenAI({ baseURL: provider.baseURL, apiKey: 'test', maxRetries: 0 });
  const create = (signal?: AbortSignal) =>
    client().chat.completions.create(
      {
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Hi' }],
        stream: true,
        stream_options: { include_usage: true },
      },
      { signal },
    );

  /** Reads a stream; keeps the content deltas and what it threw. */
  async function read(
    signal?: AbortSignal,
    onContent?: () => void,
  ): Promise<{ content: string; usage: unknown; error: unknown }> {
    let content = '';
    let usage: unknown;
    try {
      for await (const chunk of await create(signal)) {
        content += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) usage = chunk.usage;
        if (content !== '') onContent?.();
      }
    } catch (error) {
      return { content, usage, error };
    }
    return { content, usage, error: undefined };
  }

  it('streams text deltas, then a usage chunk because include_usage is set', async () => {
    provider.enqueue(reply.text(['Hel', 'lo']));
    const got = await read();
    expect(got).toMatchObject({ content: 'Hello', error: undefined, usage: { completion_tokens: 2 } });
  });

  it('a socket destroyed after text throws TypeError terminated caused by UND_ERR_SOCKET', async () => {
    provider.enqueue(reply.script({ type: 'text', text: 'Hello' }, { type: 'destroy' }));
    const got = await read();
    expect(got.content).toBe('Hello');
    expect(got.error).toBeInstanceOf(TypeError);
    expect(messageOf(got.error)).toBe('terminated');
    expect(causeWithCode(got.error, 'UND_ERR_SOCKET')).toBeDefined();
  });

  it('a socket destroyed before the first byte is an APIConnectionError caused by UND_ERR_SOCKET', async () => {
    provider.enqueue(reply.destroy());
    const got = await read();
    expect(got.error).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(causeWithCode(got.error, 'UND_ERR_SOCKET')).toBeDefined();
  });

  it('a stall before the first byte ends in APIUserAbortError when the client aborts', async () => {
    provider.enqueue(reply.stall());
    const abort = new AbortController();
    const reading = read(abort.signal);
    await vi.waitFor(() => expect(provider.requests).toHaveLength(1));
    abort.abort();
    expect((await reading).error).toBeInstanceOf(OpenAI.APIUserAbortError);
    await provider.settled();
    expect(provider.requests[0]).toMatchObject({ aborted: true, end: 'client-aborted' });
  });

  it('a mid-stream stall aborted by the client ends the iteration without an error', async () => {
    provider.enqueue(reply.script({ type: 'text', text: 'Hello' }, { type: 'stall' }));
    const abort = new AbortController();
    const got = await read(abort.signal, () => abort.abort());
    expect(got).toMatchObject({ content: 'Hello', error: undefined });
    await provider.settled();
    expect(provider.requests[0]).toMatchObject({ aborted: true, end: 'client-aborted' });
  });

  it.each<{
    readonly first: Reply;
    readonly errorClass: new (...args: never[]) => Error;
    readonly status: number;
    readonly message: RegExp;
  }>([
    { first: reply.status(503), errorClass: OpenAI.InternalServerError, status: 503, message: /^503 / },
    {
      first: reply.status(429, { 'retry-after': '0' }),
      errorClass: OpenAI.RateLimitError,
      status: 429,
      message: /^429 /,
    },
    {
      first: reply.insufficientQuota(),
      errorClass: OpenAI.BadRequestError,
      status: 400,
      message: /^400 You exceeded your current quota/,
    },
  ])('HTTP $status is a $errorClass.name', async ({ first, errorClass, status, message }) => {
    provider.enqueue(first);
    const { error } = await read();
    expect(error).toBeInstanceOf(errorClass);
    expect(error).toMatchObject({ status });
    expect(messageOf(error)).toMatch(message);
  });

  it('a provider error event after text throws an APIError with the message', async () => {
    provider.enqueue(
      reply.script(
        { type: 'text', text: 'Hello' },
        { type: 'error', error: { message: 'Upstream went away', code: 'server_error' } },
      ),
    );
    const got = await read();
    expect(got.content).toBe('Hello');
    expect(got.error).toBeInstanceOf(OpenAI.APIError);
    expect(got.error).toMatchObject({ message: 'Upstream went away', code: 'server_error' });
  });

  it('a tool call streams as incremental function.arguments, and a whole answer carries it too', async () => {
    provider.enqueue(reply.toolCall('bash', { command: 'ls' }, 'call_1'), reply.toolCall('bash', { command: 'ls' }));
    let name = '';
    let args = '';
    let deltas = 0;
    for await (const chunk of await create()) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        name += call.function?.name ?? '';
        args += call.function?.arguments ?? '';
        deltas += 1;
      }
    }
    expect({ name, args: JSON.parse(args) as unknown }).toEqual({ name: 'bash', args: { command: 'ls' } });
    expect(deltas).toBeGreaterThan(2);
    const whole = await client().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(whole.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: { tool_calls: [{ type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }] },
    });
  });
});

describe('the server itself', () => {
  it('close() frees a stalled request, and the client sees the socket close', async () => {
    provider.enqueue(reply.stall());
    const result = stream(DIALECTS[0]!.model(provider), { maxRetries: 0 });
    const collecting = collect(result);
    await vi.waitFor(() => expect(provider.requests).toHaveLength(1));
    await provider.close();
    const got = await collecting;
    expect(causeWithCode(got.error, 'UND_ERR_SOCKET')).toBeDefined();
    expect(provider.requests[0]).toMatchObject({ aborted: false, end: 'server-closed' });
  });

  it('a delay holds back the next step, and an unqueued request gets the default text', async () => {
    provider.enqueue(reply.script({ type: 'delay', ms: 50 }, { type: 'text', text: 'Late' }));
    const timers = watchTimers();
    let late: Awaited<ReturnType<typeof generateText>>;
    try {
      late = await generateText({ model: DIALECTS[2]!.model(provider), prompt: 'Hi', maxRetries: 0 });
    } finally {
      timers.restore();
    }
    expect(late.text).toBe('Late');
    // The text came after the script's one 50 ms wait, which ran out: the request was not aborted.
    expect(timers.armed().filter((timer) => timer.ms === 50)).toHaveLength(1);
    expect(provider.requests[0]).toMatchObject({ aborted: false, end: 'finished' });
    const fallback = await generateText({ model: DIALECTS[2]!.model(provider), prompt: 'Hi', maxRetries: 0 });
    expect(fallback.text).toBe('Hello from the fake provider.');
  });

  it('an unknown path is a recorded 404', async () => {
    const response = await fetch(`${provider.baseURL}/embeddings`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { message: expect.stringContaining('/v1/embeddings') } });
    expect(provider.requests[0]).toMatchObject({ dialect: 'unknown', end: 'http-error' });
  });
});

/**
 * A trace that can get no verdict is never held for one: a plain LLM call at
 * the root, under an application's own span, or a tool call outside any agent
 * run, or one whose missing ancestor the sender's flags put in another
 * process, leaves (sanitized, with no incident attributes) after the decision
 * wait, not after hold.maxHoldMillis. Only a part of a run whose run span may
 * still come from the same process waits, because it does get a verdict (a
 * crashed run's).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Gateway } from '../../src/gateway/gateway.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { startUpstream } from '../support/upstream.js';
import { freezeDate } from '../support/frozen-date.js';
import { waitFor } from '../support/wait-for.js';

let gateway: Gateway | undefined;
let upstream: Awaited<ReturnType<typeof startUpstream>> | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await gateway?.close();
  await upstream?.close();
});

const post = async (spans: object[]): Promise<number> =>
  (
    await fetch(`${gateway!.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resourceSpans: [{ resource: {}, scopeSpans: [{ scope: {}, spans }] }] }),
    })
  ).status;

const now = BigInt(Date.now()) * 1_000_000n;
const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });
/** OTLP span flags: sampled, "is the parent remote" known (0x100), and the parent remote (0x200) or not. */
const REMOTE_PARENT = 0x301;
const LOCAL_PARENT = 0x101;
const span = (spanId: string, name: string, attributes: object[], parentSpanId?: string, flags?: number) => ({
  traceId: 'ef'.repeat(16),
  spanId,
  ...(parentSpanId ? { parentSpanId } : {}),
  ...(flags ? { flags } : {}),
  name,
  kind: 3,
  startTimeUnixNano: String(now - 2_000_000n),
  endTimeUnixNano: String(now),
  attributes,
  status: {},
});

const CASES: [string, object[]][] = [
  [
    'a plain LLM call at the root',
    [span('1'.repeat(16), 'chat gpt-4o', [attr('gen_ai.operation.name', 'chat'), attr('gen_ai.system', 'openai')])],
  ],
  [
    'an LLM call under an application span',
    [
      span('1'.repeat(16), 'POST /answer', [attr('http.request.method', 'POST')]),
      span('2'.repeat(16), 'chat gpt-4o', [attr('gen_ai.operation.name', 'chat')], '1'.repeat(16)),
    ],
  ],
  [
    'an OpenInference LLM span at the root',
    [
      span('1'.repeat(16), 'ChatCompletion', [
        attr('openinference.span.kind', 'LLM'),
        attr('llm.model_name', 'gpt-4o'),
      ]),
    ],
  ],
  [
    'a tool call outside any agent run',
    [
      span('1'.repeat(16), 'execute_tool search', [
        attr('gen_ai.operation.name', 'execute_tool'),
        attr('gen_ai.tool.name', 'search'),
      ]),
    ],
  ],
  [
    // A web backend: its server span's parent is the browser's, in another process, never sent here.
    'an LLM call under a server span whose parent is in another process',
    [
      span('1'.repeat(16), 'POST /answer', [attr('http.request.method', 'POST')], '9'.repeat(16), REMOTE_PARENT),
      span('2'.repeat(16), 'chat gpt-4o', [attr('gen_ai.operation.name', 'chat')], '1'.repeat(16), LOCAL_PARENT),
    ],
  ],
  [
    'an LLM call whose own parent is in another process (an LLM proxy)',
    [span('2'.repeat(16), 'chat gpt-4o', [attr('gen_ai.operation.name', 'chat')], '9'.repeat(16), REMOTE_PARENT)],
  ],
];

describe('a trace with no agent run in it', () => {
  it.each(CASES)('%s leaves after the decision wait, without a verdict', async (_name, spans) => {
    upstream = await startUpstream();
    gateway = await createGateway({
      listen: { port: 0 },
      upstream: { endpoint: upstream.endpoint },
      hold: { decisionWaitMillis: 100, maxHoldMillis: 600_000, tickMillis: 10 },
      // Folded in this thread (workers: 0): the test's frozen clock reaches this thread only, not a worker's.
      workers: 0,
    });
    // The gateway's clock moves only when the test moves it: the hold it sees is exactly the one given.
    const clock = freezeDate();
    expect(await post(spans)).toBe(200);
    // Far from the 10-minute hold: the gateway's clock moves by the decision wait only, and that lets it go.
    clock.advance(100);
    await waitFor(() => upstream!.received.length === spans.length, { what: 'the trace forwarded' });
    for (const received of upstream.received) expect(received.attributes['incident.outcome']).toBeUndefined();
  });

  it('still waits for a missing parent in the same process (a run span on its way, or a crashed run), and judges the crash', async () => {
    upstream = await startUpstream();
    gateway = await createGateway({
      listen: { port: 0 },
      upstream: { endpoint: upstream.endpoint },
      hold: { decisionWaitMillis: 100, maxHoldMillis: 1_500, tickMillis: 10 },
      // Folded in this thread (workers: 0): the test's frozen clock reaches this thread only, not a worker's.
      workers: 0,
    });
    // The gateway's clock moves only when the test moves it: the hold it sees is exactly the one given.
    const clock = freezeDate();
    const waiting = span(
      '2'.repeat(16),
      'chat gpt-4o',
      [attr('gen_ai.operation.name', 'chat')],
      '9'.repeat(16),
      LOCAL_PARENT,
    );
    // Another trace that leaves after the decision wait: once it is forwarded, a release tick past the wait has run.
    const leaving = {
      ...span('1'.repeat(16), 'chat gpt-4o', [attr('gen_ai.operation.name', 'chat')]),
      traceId: 'cd'.repeat(16),
    };
    expect(await post([waiting])).toBe(200);
    expect(await post([leaving])).toBe(200);
    clock.advance(700);
    await waitFor(() => upstream!.received.length > 0, { what: 'the trace without a run forwarded' });
    expect(upstream.received.map((s) => s.traceId)).toEqual(['cd'.repeat(16)]);
    // Past hold.maxHoldMillis the run span is given up on: the part is judged as a crashed run's.
    clock.advance(800);
    await waitFor(() => upstream!.received.length === 2, { what: 'the held part forwarded' });
    const judged = upstream.received.find((s) => s.traceId === 'ef'.repeat(16));
    expect(judged?.attributes['incident.cause']).toBe('crash_or_restart_incomplete');
  });
});

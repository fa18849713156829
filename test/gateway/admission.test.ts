/**
 * Admission decides every refusal of docs/gateway.md ("What it answers") from a snapshot: the status, the
 * message, the metric label, whether traces are held for the sender, and the precedence between them.
 */
import { describe, expect, it } from 'vitest';
import type { DecodedRequest, HoldState, IncomingRequest, IntakeState } from '../../src/gateway/admission.js';
import {
  admitDecoded,
  admitRequest,
  roomFor,
  undecodableBody,
  unpersisted,
  workerExited,
  unreadableBody,
} from '../../src/gateway/admission.js';

const MB = 1024 * 1024;
const roomy = { heldBytes: 0, keptBytes: 0, maxHeldBytes: 64 * MB };
const idle: IntakeState = {
  lagMillis: 0,
  maxEventLoopDelayMillis: 200,
  inHand: 0,
  rssBytes: 100 * MB,
  maxRssBytes: 1024 * MB,
  maxBodyBytes: 8 * MB,
  memory: roomy,
};
const protobuf: IncomingRequest = { contentType: 'application/x-protobuf', contentLength: '1000' };

describe('admitRequest: the cheap refusals, before the body is read', () => {
  const cases: { name: string; state?: Partial<IntakeState>; request?: Partial<IncomingRequest>; expected: object }[] =
    [
      {
        name: 'a content type OTLP/HTTP does not use is 415 unsupported',
        request: { contentType: 'text/plain' },
        expected: {
          status: 415,
          reason: 'unsupported',
          message: 'content-type must be application/x-protobuf or application/json',
        },
      },
      {
        name: 'no content type is 415 too',
        request: { contentType: undefined },
        expected: { status: 415, reason: 'unsupported' },
      },
      {
        name: 'a lagging loop with work in hand is 503 busy, holding traces for the sender',
        state: { lagMillis: 250.4, inHand: 2 },
        expected: {
          status: 503,
          reason: 'busy',
          message: 'gateway is busy (event loop 250 ms behind)',
          holdForSender: true,
        },
      },
      {
        name: 'the process past limits.maxRssBytes is 503 memory, not holding',
        state: { rssBytes: 1025 * MB },
        expected: {
          status: 503,
          reason: 'memory',
          message: 'gateway process is at limits.maxRssBytes',
          holdForSender: false,
        },
      },
      {
        name: 'a declared length that does not fit in memory is 429 capacity',
        state: { memory: { heldBytes: 64 * MB - 10, keptBytes: 0, maxHeldBytes: 64 * MB } },
        expected: { status: 429, reason: 'capacity', message: 'gateway is holding as much as it may' },
      },
      {
        name: 'the content type is checked first: a wrong one is 415 even on a busy, full gateway',
        state: { lagMillis: 999, inHand: 5, rssBytes: 2048 * MB },
        request: { contentType: 'text/plain' },
        expected: { status: 415 },
      },
      {
        name: 'busy comes before memory',
        state: { lagMillis: 999, inHand: 5, rssBytes: 2048 * MB },
        expected: { status: 503, reason: 'busy' },
      },
      {
        name: 'memory comes before capacity',
        state: { rssBytes: 2048 * MB, memory: { heldBytes: 64 * MB, keptBytes: 0, maxHeldBytes: 64 * MB } },
        expected: { status: 503, reason: 'memory' },
      },
    ];
  it.each(cases)('$name', ({ state, request, expected }) => {
    const admission = admitRequest({ ...idle, ...state }, { ...protobuf, ...request });
    expect(admission.accept).toBe(false);
    if (admission.accept) return;
    expect(admission.refusal).toMatchObject({ spans: 0, closeConnection: false, ...expected });
  });

  const accepted: {
    name: string;
    state?: Partial<IntakeState>;
    request?: Partial<IncomingRequest>;
    encoding: string;
  }[] = [
    { name: 'protobuf on an idle gateway', encoding: 'protobuf' },
    {
      name: 'JSON with parameters and any case',
      request: { contentType: 'Application/JSON; charset=utf-8' },
      encoding: 'json',
    },
    {
      name: 'a lagging loop with less than two requests in hand (the lag is a neighbour’s)',
      state: { lagMillis: 999, inHand: 1 },
      encoding: 'protobuf',
    },
    {
      name: 'no busy limit set',
      state: { lagMillis: 999, inHand: 9, maxEventLoopDelayMillis: undefined },
      encoding: 'protobuf',
    },
    { name: 'no RSS limit set', state: { rssBytes: 9e12, maxRssBytes: undefined }, encoding: 'protobuf' },
    {
      name: 'a chunked body (no declared length) on a full gateway: known only as it is read',
      state: { memory: { heldBytes: 64 * MB, keptBytes: 0, maxHeldBytes: 64 * MB } },
      request: { contentLength: undefined },
      encoding: 'protobuf',
    },
    {
      name: 'a declared length over maxBodyBytes: refused as too large while it is read',
      state: { memory: { heldBytes: 64 * MB, keptBytes: 0, maxHeldBytes: 64 * MB } },
      request: { contentLength: String(9 * MB) },
      encoding: 'protobuf',
    },
  ];
  it.each(accepted)('accepts $name', ({ state, request, encoding }) => {
    expect(admitRequest({ ...idle, ...state }, { ...protobuf, ...request })).toEqual({ accept: true, encoding });
  });

  it('makes room by letting kept traces go, and reads a body that then fits', () => {
    const memory = { heldBytes: 64 * MB, keptBytes: 4 * MB, maxHeldBytes: 64 * MB };
    expect(admitRequest({ ...idle, memory }, { ...protobuf, contentLength: String(MB) })).toEqual({
      accept: true,
      encoding: 'protobuf',
      shrinkKeptTo: 3 * MB,
    });
  });

  it('lets every kept trace go when that is still not enough, and refuses', () => {
    const memory = { heldBytes: 64 * MB, keptBytes: MB, maxHeldBytes: 64 * MB };
    const admission = admitRequest({ ...idle, memory }, { ...protobuf, contentLength: String(2 * MB) });
    expect(admission).toMatchObject({ accept: false, shrinkKeptTo: 0, refusal: { status: 429, reason: 'capacity' } });
  });
});

describe('roomFor: kept traces give way first', () => {
  it.each([
    { held: 10, kept: 0, bytes: 5, max: 20, expected: { fits: true } },
    { held: 20, kept: 0, bytes: 0, max: 20, expected: { fits: true } },
    { held: 20, kept: 0, bytes: 1, max: 20, expected: { fits: false } },
    { held: 20, kept: 5, bytes: 3, max: 20, expected: { fits: true, shrinkKeptTo: 2 } },
    { held: 20, kept: 5, bytes: 5, max: 20, expected: { fits: true, shrinkKeptTo: 0 } },
    { held: 20, kept: 5, bytes: 6, max: 20, expected: { fits: false, shrinkKeptTo: 0 } },
  ])('held $held (kept $kept) + $bytes under $max → $expected', ({ held, kept, bytes, max, expected }) => {
    expect(roomFor({ heldBytes: held, keptBytes: kept, maxHeldBytes: max }, bytes)).toEqual(expected);
  });
});

describe('admitDecoded: once the body is decoded and its size known', () => {
  const limits = {
    maxSpans: 1000,
    maxTraces: 100,
    maxHeldBytes: 64 * MB,
    maxForwardBacklogSpans: 500,
    upstreamFailingAttempts: 3,
  };
  const open: HoldState = { limits, closing: false, upstreamFailures: 0, backlogSpans: 0, memory: roomy };
  const small: DecodedRequest = { spans: 10, newTraces: 1, fitsStore: true, decodedBytes: 10_000, bodyBytes: 2_000 };
  const cases: { name: string; state?: Partial<HoldState>; request?: Partial<DecodedRequest>; expected: object }[] = [
    {
      name: 'more spans than limits.maxSpans is 413: it could never fit',
      request: { spans: 1001 },
      expected: {
        status: 413,
        reason: 'too_large',
        message: 'request too large: 1001 spans exceed limits.maxSpans (1000)',
      },
    },
    {
      name: 'more spans than the forward backlog takes is 413',
      request: { spans: 501 },
      expected: {
        status: 413,
        message: 'request too large: 501 spans exceed limits.maxForwardBacklogSpans (500)',
      },
    },
    {
      name: 'more new traces than limits.maxTraces is 413',
      request: { newTraces: 101 },
      expected: { status: 413, message: "request too large: the request's traces exceed limits.maxTraces (100)" },
    },
    {
      name: 'a request that decodes past limits.maxHeldBytes is 413',
      request: { decodedBytes: 64 * MB, bodyBytes: 1 },
      expected: {
        status: 413,
        message: `request too large: the request decodes to about ${64 * MB} bytes, over limits.maxHeldBytes (${64 * MB})`,
      },
    },
    {
      name: 'a gateway shutting down is 503 closing, not holding',
      state: { closing: true },
      expected: { status: 503, reason: 'closing', message: 'gateway is shutting down', holdForSender: false },
    },
    {
      name: 'upstream failing is 503, holding traces for the sender',
      state: { upstreamFailures: 3 },
      expected: {
        status: 503,
        reason: 'upstream_failing',
        message: 'upstream is failing (3 attempts in a row)',
        holdForSender: true,
      },
    },
    {
      name: 'a full forward backlog is 503, holding',
      state: { backlogSpans: 495 },
      expected: { status: 503, reason: 'backlog', message: 'upstream backlog is full', holdForSender: true },
    },
    {
      name: 'a full trace store is 429 capacity',
      request: { fitsStore: false },
      expected: {
        status: 429,
        reason: 'capacity',
        message: 'gateway is holding as much as it may',
        holdForSender: false,
      },
    },
    {
      name: 'memory full is 429 capacity',
      state: { memory: { heldBytes: 64 * MB - 100, keptBytes: 0, maxHeldBytes: 64 * MB } },
      expected: { status: 429, reason: 'capacity' },
    },
    {
      name: 'too large comes before closing',
      state: { closing: true },
      request: { spans: 1001 },
      expected: { status: 413 },
    },
    {
      name: 'closing comes before upstream failing',
      state: { closing: true, upstreamFailures: 9 },
      expected: { reason: 'closing' },
    },
    {
      name: 'upstream failing comes before a full backlog',
      state: { upstreamFailures: 9, backlogSpans: 500 },
      expected: { reason: 'upstream_failing' },
    },
    {
      name: 'a full backlog comes before a full store',
      state: { backlogSpans: 500 },
      request: { fitsStore: false },
      expected: { reason: 'backlog' },
    },
  ];
  it.each(cases)('$name', ({ state, request, expected }) => {
    const admission = admitDecoded({ ...open, ...state }, { ...small, ...request });
    expect(admission.accept).toBe(false);
    if (admission.accept) return;
    expect(admission.refusal).toMatchObject({
      spans: request?.spans ?? small.spans,
      closeConnection: false,
      ...expected,
    });
  });

  it('holds a request that fits', () => {
    expect(admitDecoded(open, small)).toEqual({ accept: true });
  });

  it('holds a request once kept traces make room for it, and says how far they shrink', () => {
    const memory = { heldBytes: 64 * MB, keptBytes: MB, maxHeldBytes: 64 * MB };
    expect(admitDecoded({ ...open, memory }, small)).toEqual({ accept: true, shrinkKeptTo: MB - 10_000 });
  });

  it('does not let kept traces go for a request the store refuses anyway', () => {
    const memory = { heldBytes: 64 * MB, keptBytes: MB, maxHeldBytes: 64 * MB };
    const admission = admitDecoded({ ...open, memory }, { ...small, fitsStore: false });
    expect(admission).toEqual({ accept: false, refusal: expect.objectContaining({ status: 429 }) });
  });
});

describe('the refusals of bodies that cannot be read, decoded or stored', () => {
  it.each([
    {
      name: 'a body too large to read: 413, and the connection closes',
      refusal: unreadableBody(413, 'too big'),
      expected: { status: 413, reason: 'too_large', closeConnection: true },
    },
    {
      name: 'an encoding not supported: 415',
      refusal: unreadableBody(415, 'br'),
      expected: { status: 415, reason: 'unsupported', closeConnection: false },
    },
    {
      name: 'a body cut short: 400 malformed',
      refusal: unreadableBody(400, 'aborted'),
      expected: { status: 400, reason: 'malformed' },
    },
    {
      name: 'too many items to decode: 413',
      refusal: undecodableBody(413, 'items'),
      expected: { status: 413, reason: 'too_large', closeConnection: false },
    },
    {
      name: 'not OTLP: 400 malformed',
      refusal: undecodableBody(400, 'bad'),
      expected: { status: 400, reason: 'malformed', message: 'bad' },
    },
    {
      name: 'a full persistent queue: 503',
      refusal: unpersisted(7, true, undefined),
      expected: { status: 503, reason: 'persistence', spans: 7, message: 'persistent queue is full' },
    },
    {
      name: 'an unwritable persistent queue: 503 with the error code',
      refusal: unpersisted(7, false, 'EACCES'),
      expected: { status: 503, message: 'persistent queue cannot be written (EACCES)' },
    },
    {
      name: 'an unwritable persistent queue without a code',
      refusal: unpersisted(7, false, undefined),
      expected: { message: 'persistent queue cannot be written (error)' },
    },
  ])('$name', ({ refusal, expected }) => {
    expect(refusal).toMatchObject({ holdForSender: false, ...expected });
  });

  it('answers a request whose worker exited while decoding it with 503, holding traces for its sender', () => {
    expect(workerExited(0)).toMatchObject({ status: 503, reason: 'busy', holdForSender: true, spans: 0 });
  });
});

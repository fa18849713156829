/**
 * Admission: whether the gateway takes a request, decided from a snapshot of its state. Pure, no I/O: the
 * intake (`intake.ts`) gathers the snapshot, asks, and carries out the answer. Every refusal of
 * docs/gateway.md ("What it answers") is here, in the order the intake asks, so one table of tests
 * (`test/gateway/admission.test.ts`) covers each status, message and metric label.
 *
 * A request is asked about twice: `admitRequest` before its body is read (the cheap refusals, which cost
 * the gateway nothing it has not spent already), `admitDecoded` once it is decoded and its size is known.
 */
import type { RefusalReason } from './gateway-metrics.js';

/** The OTLP/HTTP content type of protobuf bodies. */
export const PROTOBUF_TYPE = 'application/x-protobuf';
/** The OTLP/HTTP content type of JSON bodies. */
export const JSON_TYPE = 'application/json';
/** Requests in hand (read, decoded or held, not yet answered) below which a lagging loop takes more: enough to stay busy. */
export const WORK_IN_HAND = 2;

/**
 * A refusal: the status and message the sender gets, and what the gateway does besides answering.
 * A `429` or `503` is one the sender retries (OTLP/HTTP), so it always carries `Retry-After`.
 */
export interface Refusal {
  readonly status: number;
  readonly message: string;
  /** The `reason` label of `agent_incidents_gateway_refused_total`; unset for answers that are not refusals of spans (404, 405, 500). */
  readonly reason?: RefusalReason;
  /** Spans the request held, counted in the metric (0 before the body is decoded). */
  readonly spans: number;
  /**
   * Hold every trace until the refused sender can be back: for causes judging does not cure (busy, upstream failing,
   * backlog full), never for memory or a full queue, where judging and delivering is what frees room.
   */
  readonly holdForSender: boolean;
  /** Close the connection after answering: a body too large is not read to its end. */
  readonly closeConnection: boolean;
}

/** What is known of the gateway's memory: everything is in bytes, estimated as `limits.maxHeldBytes` counts them. */
export interface HeldMemory {
  /** All that is held: spans waiting to be folded, the forward backlog, bodies being read, traces kept for a correction. */
  readonly heldBytes: number;
  /** Of `heldBytes`, what traces kept for a correction take: let go first, losing only a possible correction. */
  readonly keptBytes: number;
  /** `limits.maxHeldBytes`. */
  readonly maxHeldBytes: number;
}

/** Whether `bytes` more fit, and how far the kept traces must shrink for it (set only when they must). */
export interface Room {
  readonly fits: boolean;
  /** The size the traces kept for a correction shrink to, the oldest let go first; unset: they stay. */
  readonly shrinkKeptTo?: number;
}

/**
 * Whether `bytes` more fit under `limits.maxHeldBytes`, letting go of traces kept for a correction to make room.
 * When they are not enough, they are still let go (all of them): the next request may fit.
 */
export function roomFor(memory: HeldMemory, bytes: number): Room {
  const over = memory.heldBytes + bytes - memory.maxHeldBytes;
  if (over <= 0) return { fits: true };
  if (memory.keptBytes <= 0) return { fits: false };
  return { fits: over <= memory.keptBytes, shrinkKeptTo: Math.max(0, memory.keptBytes - over) };
}

/** The gateway as the intake sees it when a request arrives. */
export interface IntakeState {
  /** How far the event loop is behind, in milliseconds (0 when `limits.maxEventLoopDelayMillis` is unset). */
  readonly lagMillis: number;
  /** `limits.maxEventLoopDelayMillis`; unset: never refused as busy. */
  readonly maxEventLoopDelayMillis: number | undefined;
  /** Requests past the cheap refusals and not yet answered. */
  readonly inHand: number;
  /** The process's resident set size, in bytes. */
  readonly rssBytes: number;
  /** `limits.maxRssBytes`; unset: never refused for memory. */
  readonly maxRssBytes: number | undefined;
  /** `limits.maxBodyBytes`. */
  readonly maxBodyBytes: number;
  readonly memory: HeldMemory;
}

/** A request before its body is read. */
export interface IncomingRequest {
  /** The `content-type` header as sent, parameters included; unset when there is none. */
  readonly contentType: string | undefined;
  /** The `content-length` header as sent; unset when there is none (a chunked body). */
  readonly contentLength: string | undefined;
}

/** The answer before the body is read: refuse, or read it (and, to make room, shrink the kept traces). */
export type RequestAdmission =
  | { readonly accept: false; readonly refusal: Refusal; readonly shrinkKeptTo?: number }
  | { readonly accept: true; readonly encoding: 'protobuf' | 'json'; readonly shrinkKeptTo?: number };

/** A `503` that holds the traces for the sender; see {@link Refusal.holdForSender}. */
function refuseAndHold(reason: RefusalReason, message: string, spans: number): Refusal {
  return { status: 503, message, reason, spans, holdForSender: true, closeConnection: false };
}

/** A refusal that changes nothing else. */
function refuse(status: number, reason: RefusalReason, message: string, spans: number): Refusal {
  return { status, message, reason, spans, holdForSender: false, closeConnection: false };
}

/** The message of a full gateway (`429`), the same before and after decoding. */
const FULL = 'gateway is holding as much as it may';

/**
 * The cheap refusals, before the body is read, in this order: a content type OTLP/HTTP does not use (`415`); a
 * lagging event loop with work in hand (`503`, holding); the process past `limits.maxRssBytes` (`503`); a declared
 * length that does not fit in memory (`429`).
 */
export function admitRequest(state: IntakeState, request: IncomingRequest): RequestAdmission {
  const type = (request.contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== PROTOBUF_TYPE && type !== JSON_TYPE)
    return {
      accept: false,
      refusal: refuse(415, 'unsupported', `content-type must be ${PROTOBUF_TYPE} or ${JSON_TYPE}`, 0),
    };
  // A lagging loop sheds only what exceeds the work already in hand: with requests queued it stays busy, and without
  // them the lag is another process's (a busy neighbour on the same cores), which refusing would not cure but only
  // turn into idle time.
  if (
    state.maxEventLoopDelayMillis !== undefined &&
    state.lagMillis > state.maxEventLoopDelayMillis &&
    state.inHand >= WORK_IN_HAND
  ) {
    const message = `gateway is busy (event loop ${Math.round(state.lagMillis)} ms behind)`;
    return { accept: false, refusal: refuseAndHold('busy', message, 0) };
  }
  if (state.maxRssBytes !== undefined && state.rssBytes > state.maxRssBytes)
    return { accept: false, refusal: refuse(503, 'memory', 'gateway process is at limits.maxRssBytes', 0) };
  const encoding = type === PROTOBUF_TYPE ? 'protobuf' : 'json';
  const declared = Number(request.contentLength);
  // A length over maxBodyBytes is refused as too large while it is read; a missing one is known only then.
  if (!Number.isFinite(declared) || declared > state.maxBodyBytes) return { accept: true, encoding };
  const room = roomFor(state.memory, declared);
  // Refused before it is read: memory is full, and reading it would add to it.
  if (!room.fits) return { accept: false, refusal: refuse(429, 'capacity', FULL, 0), shrinkKeptTo: room.shrinkKeptTo };
  return { accept: true, encoding, shrinkKeptTo: room.shrinkKeptTo };
}

/** Why a body could not be read (`request-body.ts`): `413` too large, `415` an encoding not supported, else malformed. */
export function unreadableBody(status: number, message: string): Refusal {
  if (status === 413) return { ...refuse(413, 'too_large', message, 0), closeConnection: true };
  return refuse(status, status === 415 ? 'unsupported' : 'malformed', message, 0);
}

/** Why a body could not be decoded (`decode-body.ts`): `413` too many items, else malformed. */
export function undecodableBody(status: number, message: string): Refusal {
  return refuse(status, status === 413 ? 'too_large' : 'malformed', message, 0);
}

/** The bounds a decoded request is held against (`limits.*`). */
export interface HoldLimits {
  readonly maxSpans: number;
  readonly maxTraces: number;
  readonly maxHeldBytes: number;
  readonly maxForwardBacklogSpans: number;
  readonly upstreamFailingAttempts: number;
}

/** The gateway as it stands when a decoded request asks to be held. */
export interface HoldState {
  readonly limits: HoldLimits;
  readonly closing: boolean;
  /** Upstream requests that failed in a row. */
  readonly upstreamFailures: number;
  /** Spans waiting to go upstream. */
  readonly backlogSpans: number;
  readonly memory: HeldMemory;
}

/** A decoded request: how much it would hold. */
export interface DecodedRequest {
  readonly spans: number;
  /** Traces of the request the gateway does not hold yet. */
  readonly newTraces: number;
  /** Whether the trace store has room for its spans and traces (`TraceStore.fits`). */
  readonly fitsStore: boolean;
  /** Its estimated decoded size (`decodedRequestBytes`). */
  readonly decodedBytes: number;
  /** Its body's size as read. */
  readonly bodyBytes: number;
}

/** The answer once the body is decoded: refuse, or hold it (after shrinking the kept traces, when set). */
export type HoldAdmission =
  | { readonly accept: false; readonly refusal: Refusal; readonly shrinkKeptTo?: number }
  | { readonly accept: true; readonly shrinkKeptTo?: number };

/** Why a request can never fit, however long its sender waits; undefined when it can. */
function neverFits(limits: HoldLimits, request: DecodedRequest): string | undefined {
  if (request.spans > limits.maxSpans) return `${request.spans} spans exceed limits.maxSpans (${limits.maxSpans})`;
  if (request.spans > limits.maxForwardBacklogSpans)
    return `${request.spans} spans exceed limits.maxForwardBacklogSpans (${limits.maxForwardBacklogSpans})`;
  if (request.newTraces > limits.maxTraces) return `the request's traces exceed limits.maxTraces (${limits.maxTraces})`;
  if (request.decodedBytes + request.bodyBytes > limits.maxHeldBytes)
    return `the request decodes to about ${request.decodedBytes} bytes, over limits.maxHeldBytes (${limits.maxHeldBytes})`;
  return undefined;
}

/**
 * Whether a decoded request is held, in this order: one that could never fit (`413`: too large, not "later"); a
 * gateway shutting down (`503`); upstream failing (`503`, holding); the forward backlog full (`503`, holding); the
 * store or memory full (`429`).
 */
export function admitDecoded(state: HoldState, request: DecodedRequest): HoldAdmission {
  const tooLarge = neverFits(state.limits, request);
  if (tooLarge)
    return { accept: false, refusal: refuse(413, 'too_large', `request too large: ${tooLarge}`, request.spans) };
  if (state.closing)
    return { accept: false, refusal: refuse(503, 'closing', 'gateway is shutting down', request.spans) };
  if (state.upstreamFailures >= state.limits.upstreamFailingAttempts) {
    const failures = state.upstreamFailures;
    const message = `upstream is failing (${failures} ${failures === 1 ? 'attempt' : 'attempts'} in a row)`;
    return { accept: false, refusal: refuseAndHold('upstream_failing', message, request.spans) };
  }
  if (state.backlogSpans + request.spans > state.limits.maxForwardBacklogSpans)
    return { accept: false, refusal: refuseAndHold('backlog', 'upstream backlog is full', request.spans) };
  if (!request.fitsStore) return { accept: false, refusal: refuse(429, 'capacity', FULL, request.spans) };
  const room = roomFor(state.memory, request.decodedBytes);
  if (!room.fits)
    return { accept: false, refusal: refuse(429, 'capacity', FULL, request.spans), shrinkKeptTo: room.shrinkKeptTo };
  return { accept: true, shrinkKeptTo: room.shrinkKeptTo };
}

/** A worker exited while it decoded a part of the request: nothing of it was held, and the sender sends it again. */
export function workerExited(spans: number): Refusal {
  return refuseAndHold('busy', 'a gateway worker exited while decoding the request', spans);
}

/** Why the persistent queue would not take an accepted request: full, or not writable (`503` either way). */
export function unpersisted(spans: number, full: boolean, code: string | undefined): Refusal {
  const message = full ? 'persistent queue is full' : `persistent queue cannot be written (${code ?? 'error'})`;
  return refuse(503, 'persistence', message, spans);
}

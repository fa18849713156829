/**
 * The intake of `POST /v1/traces`: asks admission (`admission.ts`) before reading a body and once it is
 * decoded, writes what it accepts to the persistent queue before acknowledging it (accepted means
 * delivered, a crash included), and hands it to the trace store. The I/O around pure decisions.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { diag } from '@opentelemetry/api';
import { encodeExportTraceResponse } from '../otlp/otlp-protobuf.js';
import type { Refusal } from './admission.js';
import {
  admitDecoded,
  admitRequest,
  JSON_TYPE,
  PROTOBUF_TYPE,
  undecodableBody,
  unpersisted,
  unreadableBody,
} from './admission.js';
import type { BodyEncoding } from './decode-body.js';
import { decodeBody } from './decode-body.js';
import { decodedRequestBytes } from './decoded-size.js';
import type { GatewayState, StateParts } from './gateway-state.js';
import { readBody } from './request-body.js';
import type { HeldRequest } from './spill-log.js';
import { SpillLogFullError } from './spill-log.js';
import { Turns } from './turns.js';

/** Writes answers: counts each by status, and asks a closing gateway's clients to close their connection. */
export class Responder {
  constructor(private readonly state: GatewayState<StateParts>) {}

  /** Answers with `status` and `body`. */
  answer(
    response: ServerResponse,
    status: number,
    body: string | Uint8Array,
    type: string,
    headers: Record<string, string> = {},
  ): void {
    this.state.parts.metrics.request(status);
    const closing = this.state.closing ? { connection: 'close' } : {};
    response.writeHead(status, { 'content-type': type, ...closing, ...headers });
    response.end(body);
  }

  /** Answers `200` to an accepted request, in its encoding, with the spans it held that were rejected. */
  accepted(response: ServerResponse, encoding: BodyEncoding, rejected: number): void {
    const partial =
      rejected > 0
        ? { rejectedSpans: rejected, errorMessage: `${rejected} span(s) without ids or start time were rejected` }
        : undefined;
    if (encoding === 'protobuf') return this.answer(response, 200, encodeExportTraceResponse(partial), PROTOBUF_TYPE);
    this.answer(response, 200, JSON.stringify(partial ? { partialSuccess: partial } : {}), JSON_TYPE);
  }

  /**
   * Answers a refusal as OTLP/HTTP's JSON `Status`, counts it, and, for a `429` or `503` (which the sender retries,
   * after `Retry-After`), expects the sender back with what it sent.
   */
  refuse(response: ServerResponse, refusal: Refusal): void {
    const { metrics, config } = this.state.parts;
    if (refusal.reason) metrics.refused(refusal.reason, refusal.spans);
    const retried = refusal.status === 429 || refusal.status === 503;
    if (retried) this.state.expectSenderBack(refusal.holdForSender);
    const headers: Record<string, string> = {
      ...(retried ? { 'retry-after': String(config.limits.retryAfterSeconds) } : {}),
      ...(refusal.closeConnection ? { connection: 'close' } : {}),
    };
    this.answer(
      response,
      refusal.status,
      JSON.stringify({ code: refusal.status, message: refusal.message }),
      JSON_TYPE,
      headers,
    );
  }
}

/** Where a body read and past the cheap refusals goes: decoded, checked and held, in process or in the workers. */
export interface BodyHolder {
  /** Decodes, checks and holds `body`, and answers; `endTurn` lets the next body in once the synchronous part is over. */
  hold(encoding: BodyEncoding, body: Buffer, response: ServerResponse, endTurn: () => void): Promise<void>;
}

/** Takes OTLP/HTTP trace requests into a gateway's state. */
export class Intake {
  /** Bodies are decoded one at a time, in the order they were read. */
  readonly #turns = new Turns();

  constructor(
    private readonly state: GatewayState<StateParts>,
    private readonly responder: Responder,
    private readonly holder: BodyHolder,
  ) {}

  /** Handles one `POST /v1/traces`. Never throws for a bad request: it is answered. */
  async receive(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { state } = this;
    const { limits } = state.parts.config;
    const admission = admitRequest(
      {
        lagMillis: limits.maxEventLoopDelayMillis === undefined ? 0 : state.parts.gauge.lagMillis(),
        maxEventLoopDelayMillis: limits.maxEventLoopDelayMillis,
        inHand: state.inHand,
        rssBytes: limits.maxRssBytes === undefined ? 0 : state.parts.gauge.rssBytes(),
        maxRssBytes: limits.maxRssBytes,
        maxBodyBytes: limits.maxBodyBytes,
        memory: state.memory(),
      },
      { contentType: request.headers['content-type'], contentLength: request.headers['content-length'] },
    );
    state.shrinkKept(admission.shrinkKeptTo);
    if (!admission.accept) {
      // Not read: the rest of the body is drained so the connection can serve the sender's next request.
      request.resume();
      return this.responder.refuse(response, admission.refusal);
    }
    state.inHand += 1;
    try {
      await this.#take(request, response, admission.encoding);
    } finally {
      state.inHand -= 1;
    }
  }

  /** Reads a request that passed the cheap refusals, then decodes and holds it in its turn. */
  async #take(request: IncomingMessage, response: ServerResponse, encoding: BodyEncoding): Promise<void> {
    const { state } = this;
    const body = await readBody(request, state.parts.config.limits.maxBodyBytes);
    if (!body.ok) return this.responder.refuse(response, unreadableBody(body.status, body.message));
    state.readingBytes += body.body.length;
    const done = await this.#turns.take();
    try {
      await this.holder.hold(encoding, body.body, response, done);
    } finally {
      done();
      state.readingBytes -= body.body.length;
    }
  }
}

/** Holds bodies in this thread's trace store: the gateway without workers. */
export class LocalHolder implements BodyHolder {
  constructor(
    private readonly state: GatewayState,
    private readonly responder: Responder,
  ) {}

  /** Decodes, checks and holds a body; `endTurn` lets the next body be decoded once the synchronous part is over. */
  async hold(encoding: BodyEncoding, body: Buffer, response: ServerResponse, endTurn: () => void): Promise<void> {
    const { state, responder } = this;
    const { limits } = state.parts.config;
    const { metrics, store, forwarder, spill } = state.parts;
    const decoded = decodeBody(encoding, body, limits.maxRequestItems);
    if (!decoded.ok) return responder.refuse(response, undecodableBody(decoded.status, decoded.message));
    const { spans, rejected } = decoded;
    if (rejected > 0) metrics.refused('malformed', rejected);
    const admission = admitDecoded(
      {
        limits,
        closing: state.closing,
        upstreamFailures: forwarder.consecutiveFailures,
        backlogSpans: forwarder.backlogSpans,
        memory: state.memory(),
      },
      {
        spans: spans.length,
        newTraces: store.newTraces(spans),
        fitsStore: store.fits(spans),
        decodedBytes: decodedRequestBytes(spans),
        bodyBytes: body.length,
      },
    );
    state.shrinkKept(admission.shrinkKeptTo);
    if (!admission.accept) return responder.refuse(response, admission.refusal);
    // The synchronous part is over: the next body may be decoded while this one is written.
    endTurn();
    let record: HeldRequest | undefined;
    if (spill && spans.length > 0) {
      try {
        // Written before it is acknowledged: accepted means delivered, a crash included.
        record = await spill.append(encoding, body, spans.length);
      } catch (error) {
        const full = error instanceof SpillLogFullError;
        if (!full) diag.error('agent-incidents gateway: the persistent queue cannot be written', error);
        return responder.refuse(response, unpersisted(spans.length, full, (error as NodeJS.ErrnoException).code));
      }
    }
    const added = store.add(spans, Date.now(), record);
    metrics.spansReceived += added.added;
    metrics.spansDuplicate += added.duplicates;
    responder.accepted(response, encoding, rejected);
  }
}

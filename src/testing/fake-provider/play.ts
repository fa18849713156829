/**
 * Plays one reply on one HTTP response. Every write waits for the socket to
 * take the bytes, so each step reaches the client before the next one happens;
 * every wait (a write, a delay, a stall) also ends when `signal` aborts (the
 * client went away or the server is closing), and nothing is written after.
 */
import type { ServerResponse } from 'node:http';
import type { AnswerContext, ContentPart, Dialect } from './dialect.js';
import type { FinishReason, Reply, Step } from './script.js';
import { isStatusReply } from './script.js';

/**
 * How the fake provider ended an answer: `stopped` means it stopped because
 * `signal` aborted (a stall, or a write or delay cut short); `ended` that it
 * ended the body cleanly without the finish (an `end` step).
 */
export type PlayOutcome = 'finished' | 'http-error' | 'provider-error' | 'destroyed' | 'ended' | 'stopped';

/** Everything one answer needs. */
export interface Exchange {
  readonly res: ServerResponse;
  readonly dialect: Dialect;
  readonly context: AnswerContext;
  readonly stream: boolean;
  /** Aborts when the client closes the connection or the server closes. */
  readonly signal: AbortSignal;
  /** Destroys the socket abruptly (and lets the server know it was not the client). */
  readonly destroy: () => void;
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
} as const;

/** Resolves once `signal` aborts. */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** Waits `ms`, or less if `signal` aborts; the timer never outlives the wait. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

function deltas(text: string | readonly string[]): readonly string[] {
  return typeof text === 'string' ? [text] : text;
}

/** Tool arguments in up to three pieces, so clients see them arrive incrementally. */
function pieces(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 3));
  const result: string[] = [];
  for (let at = 0; at < text.length; at += size) result.push(text.slice(at, at + size));
  return result;
}

/** The reason a script that never said `finish` ends with. */
function impliedReason(toolCalls: number): FinishReason {
  return toolCalls > 0 ? 'tool_calls' : 'stop';
}

class Player {
  readonly #exchange: Exchange;
  readonly #aborted: Promise<void>;
  readonly #headers: Readonly<Record<string, string>>;

  constructor(exchange: Exchange, headers: Readonly<Record<string, string>>) {
    this.#exchange = exchange;
    this.#aborted = aborted(exchange.signal);
    this.#headers = headers;
  }

  get #stopped(): boolean {
    return this.#exchange.signal.aborted;
  }

  /**
   * Writes `text` (sending the headers first if needed) and waits until the
   * socket took it. False when `signal` aborted first: the bytes may be lost.
   */
  async #write(
    text: string,
    status = 200,
    contentType: Record<string, string> = SSE_HEADERS,
    end = false,
  ): Promise<boolean> {
    const { res } = this.#exchange;
    if (this.#stopped) return false;
    if (text === '' && !end) return true;
    if (!res.headersSent) res.writeHead(status, { ...contentType, ...this.#headers });
    const written = new Promise<boolean>((resolve) => {
      if (end) res.end(text, () => resolve(true));
      else res.write(text, () => resolve(true));
    });
    // A finished response also emits 'close' (which aborts `signal`), so the
    // outcome is whichever happened first, not whether `signal` is aborted now.
    return Promise.race([written, this.#aborted.then(() => false)]);
  }

  async #end(
    frames: string,
    outcome: PlayOutcome,
    status = 200,
    contentType: Record<string, string> = SSE_HEADERS,
  ): Promise<PlayOutcome> {
    return (await this.#write(frames, status, contentType, true)) ? outcome : 'stopped';
  }

  #json(status: number, body: string, outcome: PlayOutcome): Promise<PlayOutcome> {
    return this.#end(body, outcome, status, { 'content-type': 'application/json' });
  }

  #destroy(): PlayOutcome {
    this.#exchange.destroy();
    return 'destroyed';
  }

  /** Plays the steps that behave alike in both modes; `undefined` means "not one of those". */
  async #common(step: Step): Promise<PlayOutcome | 'next' | undefined> {
    switch (step.type) {
      case 'delay':
        await sleep(step.ms, this.#exchange.signal);
        return 'next';
      case 'stall':
        await this.#aborted;
        return 'stopped';
      case 'destroy':
        return this.#stopped ? 'stopped' : this.#destroy();
      default:
        return undefined;
    }
  }

  async stream(steps: readonly Step[]): Promise<PlayOutcome> {
    const { dialect, context } = this.#exchange;
    const encoder = dialect.encoder(context);
    let toolCalls = 0;
    for (const step of steps) {
      if (this.#stopped) return 'stopped';
      const common = await this.#common(step);
      if (common === 'next') continue;
      if (common !== undefined) return common;
      switch (step.type) {
        case 'open':
          await this.#write(encoder.open());
          break;
        case 'text':
          for (const delta of deltas(step.text)) await this.#write(encoder.text(delta));
          break;
        case 'reasoning':
          for (const delta of deltas(step.text)) await this.#write(encoder.reasoning(delta));
          break;
        case 'tool-call':
        case 'partial-tool-call':
          await this.#write(encoder.toolCallStart(step.id ?? dialect.toolCallId(context.serial, toolCalls), step.name));
          toolCalls += 1;
          for (const piece of pieces(step.arguments)) await this.#write(encoder.toolCallDelta(piece));
          if (step.type === 'tool-call') await this.#write(encoder.toolCallEnd());
          else encoder.abandon();
          break;
        case 'error':
          return this.#end(encoder.error(step.error ?? {}), 'provider-error');
        case 'finish':
          return this.#end(encoder.finish(step.reason), 'finished');
        case 'end':
          // A clean end of the body, with no finish events before it.
          return this.#end('', 'ended');
      }
    }
    if (this.#stopped) return 'stopped';
    return this.#end(encoder.finish(impliedReason(toolCalls)), 'finished');
  }

  async whole(steps: readonly Step[]): Promise<PlayOutcome> {
    const { dialect, context } = this.#exchange;
    const parts: ContentPart[] = [];
    let toolCalls = 0;
    let outputTokens = 0;
    let reason: FinishReason | undefined;
    const append = (type: 'text' | 'reasoning', text: string | readonly string[]): void => {
      const joined = deltas(text).join('');
      outputTokens += deltas(text).length;
      const last = parts.at(-1);
      if (last?.type === type) parts[parts.length - 1] = { type, text: last.text + joined };
      else parts.push({ type, text: joined });
    };
    for (const step of steps) {
      if (this.#stopped) return 'stopped';
      const common = await this.#common(step);
      if (common === 'next') continue;
      if (common !== undefined) return common;
      if (step.type === 'finish') {
        reason = step.reason;
        break;
      }
      if (step.type === 'end') {
        // A body cut short where it stands: the start of the JSON answer, then a clean end.
        const body = JSON.stringify(dialect.json(parts, impliedReason(toolCalls), context, outputTokens));
        return this.#end(body.slice(0, Math.floor(body.length / 2)), 'ended', 200, {
          'content-type': 'application/json',
        });
      }
      switch (step.type) {
        case 'text':
        case 'reasoning':
          append(step.type, step.text);
          break;
        case 'tool-call':
          parts.push({
            type: 'tool-call',
            id: step.id ?? dialect.toolCallId(context.serial, toolCalls),
            name: step.name,
            arguments: step.arguments,
          });
          outputTokens += pieces(step.arguments).length;
          toolCalls += 1;
          break;
        case 'partial-tool-call':
          // A whole answer cannot hold half a tool call: it only exists in a stream.
          toolCalls += 1;
          break;
        case 'error': {
          const status = dialect.errorStepStatus(step.error ?? {});
          return this.#json(status, dialect.errorBody(status, step.error), 'provider-error');
        }
      }
    }
    if (this.#stopped) return 'stopped';
    const body = JSON.stringify(dialect.json(parts, reason ?? impliedReason(toolCalls), context, outputTokens));
    return this.#json(200, body, 'finished');
  }

  status(status: number, body: string): Promise<PlayOutcome> {
    return this.#json(status, body, 'http-error');
  }
}

/** Answers one request with `reply`, in the exchange's dialect and mode. */
export function play(exchange: Exchange, reply: Reply): Promise<PlayOutcome> {
  const player = new Player(exchange, reply.headers ?? {});
  if (isStatusReply(reply))
    return player.status(reply.status, reply.body ?? exchange.dialect.errorBody(reply.status, reply.error));
  return exchange.stream ? player.stream(reply.steps) : player.whole(reply.steps);
}

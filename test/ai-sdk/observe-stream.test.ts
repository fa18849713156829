/**
 * observeStream: the same parts and the same ending as the source (end, error, cancel), each
 * told to the observer, and an observer that throws never changes what the reader sees.
 */
import { describe, expect, it } from 'vitest';
import type { StreamObserver } from '../../src/ai-sdk/observe-stream.js';
import { observeStream } from '../../src/ai-sdk/observe-stream.js';

/** An observer that logs what it is told; `throwing` makes every call throw after logging. */
function logger(throwing = false): StreamObserver<string> & { readonly log: unknown[][] } {
  const log: unknown[][] = [];
  const note = (...entry: unknown[]): void => {
    log.push(entry);
    if (throwing) throw new Error('observer bug');
  };
  return {
    log,
    part: (part) => note('part', part),
    error: (error) => note('error', error),
    close: () => note('close'),
    cancel: (reason) => note('cancel', reason),
  };
}

/** A source that gives `parts` one per read, then closes or errors with `failure`. */
function source(parts: readonly string[], failure?: Error): ReadableStream<string> {
  const left = [...parts];
  return new ReadableStream<string>({
    pull(controller) {
      const part = left.shift();
      if (part !== undefined) controller.enqueue(part);
      else if (failure) controller.error(failure);
      else controller.close();
    },
  });
}

async function readAll(stream: ReadableStream<string>): Promise<{ parts: string[]; error?: unknown }> {
  const parts: string[] = [];
  try {
    for await (const part of stream) parts.push(part);
    return { parts };
  } catch (error) {
    return { parts, error };
  }
}

describe('observeStream', () => {
  it.each([false, true])(
    'passes every part and the end through, telling the observer (observer throws: %s)',
    async (throwing) => {
      const observer = logger(throwing);
      expect(await readAll(observeStream(source(['a', 'b']), observer))).toEqual({ parts: ['a', 'b'] });
      expect(observer.log).toEqual([['part', 'a'], ['part', 'b'], ['close']]);
    },
  );

  it.each([false, true])(
    'passes the source’s own error through after its parts (observer throws: %s)',
    async (throwing) => {
      const failure = new TypeError('terminated');
      const observer = logger(throwing);
      const result = await readAll(observeStream(source(['a'], failure), observer));
      expect(result.parts).toEqual(['a']);
      expect(result.error).toBe(failure);
      expect(observer.log).toEqual([
        ['part', 'a'],
        ['error', failure],
      ]);
    },
  );

  it.each([false, true])(
    'tells a cancel and passes its reason to the source (observer throws: %s)',
    async (throwing) => {
      const reasons: unknown[] = [];
      const endless = new ReadableStream<string>({
        pull: (controller) => controller.enqueue('x'),
        cancel: (reason) => {
          reasons.push(reason);
        },
      });
      const observer = logger(throwing);
      const reader = observeStream(endless, observer).getReader();
      expect(await reader.read()).toEqual({ done: false, value: 'x' });
      await reader.cancel('user stopped');
      expect(reasons).toEqual(['user stopped']);
      expect(observer.log.at(-1)).toEqual(['cancel', 'user stopped']);
      expect(observer.log.some(([kind]) => kind === 'close' || kind === 'error')).toBe(false);
    },
  );

  it('tells an empty source’s end with no part', async () => {
    const observer = logger();
    expect(await readAll(observeStream(source([]), observer))).toEqual({ parts: [] });
    expect(observer.log).toEqual([['close']]);
  });
});

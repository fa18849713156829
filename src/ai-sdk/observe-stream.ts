/**
 * Passes a provider stream through unchanged while telling an observer about
 * each part, the error that broke it, its end, or its cancellation. The
 * observer can never break the stream: anything it throws is swallowed.
 */

/** What is told about a stream. */
export interface StreamObserver<T> {
  part(part: T): void;
  /** The stream failed (a dropped socket, an abort). */
  error(error: unknown): void;
  /** The stream ended normally. */
  close(): void;
  /** The consumer stopped reading. */
  cancel(reason: unknown): void;
}

function quietly(call: () => void): void {
  try {
    call();
  } catch {
    // Observation must never change what the caller sees.
  }
}

/**
 * A stream with the same parts and the same ending as `source`. A
 * `TransformStream` would not do: its transformer never sees the source's
 * error, which is the fact that matters most here.
 */
export function observeStream<T>(source: ReadableStream<T>, observer: StreamObserver<T>): ReadableStream<T> {
  const reader = source.getReader();
  return new ReadableStream<T>({
    async pull(controller) {
      let result: Awaited<ReturnType<typeof reader.read>>;
      try {
        result = await reader.read();
      } catch (error) {
        quietly(() => observer.error(error));
        controller.error(error);
        return;
      }
      if (result.done) {
        quietly(() => observer.close());
        controller.close();
        return;
      }
      quietly(() => observer.part(result.value));
      controller.enqueue(result.value);
    },
    async cancel(reason) {
      quietly(() => observer.cancel(reason));
      await reader.cancel(reason);
    },
  });
}

/**
 * Tries inside one attempt span (docs/conventions.md#retries-inside-one-span):
 * the earlier tries a span shows by its `exception` events, the events of its
 * last try, and the number of tries its call states (`AI_RetryError`). The
 * fold turns them into attempts of their own (src/fold/tries.ts).
 */
import type { EarlierTry } from './adapter.js';
import { classifyDescribed, describeException, STATUS_ERROR } from './span-error.js';
import type { EventView, SpanView } from './span-view.js';
import { stringAttr } from './span-view.js';
/** Tries inside one span, at most: a span cannot show more tries than this. */
const MAX_TRIES = 64;

/**
 * The distinct `exception` events of a span, in time order, before its end:
 * the same error recorded twice within a millisecond (a wrapper and the
 * instrumentation both) counts once.
 */
function exceptionsOf(view: SpanView): EventView[] {
  const end = view.endMillis ?? Number.POSITIVE_INFINITY;
  const exceptions = view.events
    .filter(
      (e) =>
        e.name === 'exception' &&
        Number.isFinite(e.timeMillis) &&
        e.timeMillis >= view.startMillis &&
        e.timeMillis <= end,
    )
    .sort((a, b) => a.timeMillis - b.timeMillis);
  const distinct: EventView[] = [];
  for (const event of exceptions) {
    const last = distinct.at(-1);
    const same =
      last !== undefined &&
      event.timeMillis - last.timeMillis < 1 &&
      stringAttr(event.attributes, 'exception.type') === stringAttr(last.attributes, 'exception.type') &&
      stringAttr(event.attributes, 'exception.message') === stringAttr(last.attributes, 'exception.message');
    if (!same) distinct.push(event);
  }
  return distinct.slice(-MAX_TRIES);
}

/** How a span's last try stands: it finished, it is still open (cut off at its run's end), or it ended otherwise. */
export type LastTry = 'finished' | 'open' | 'ended';

/**
 * The tries an attempt span recorded before its last one
 * (docs/conventions.md#retries-inside-one-span). A span that covers its
 * call's retries (GenAI: "the duration of the logical operation with all
 * retries") shows a failed try by an `exception` event. When the last try
 * finished, every exception recorded before the span's end was an earlier
 * try's (one at the very end belongs to the end); when it is still open,
 * every exception so far was; when it ended otherwise (an error, a stop), the
 * last exception is its own.
 */
export function earlierTriesOf(view: SpanView, last: LastTry): EarlierTry[] {
  const exceptions = exceptionsOf(view);
  const end = view.endMillis ?? Number.POSITIVE_INFINITY;
  const earlier =
    last === 'finished'
      ? exceptions.filter((e) => e.timeMillis < end)
      : last === 'open'
        ? exceptions
        : exceptions.slice(0, -1);
  const tries: EarlierTry[] = [];
  let start = view.startMillis;
  for (const event of earlier) {
    tries.push({
      startMillis: start,
      failedMillis: event.timeMillis,
      error: classifyDescribed(describeException(event)),
    });
    start = event.timeMillis;
  }
  return tries;
}

/** The exception events of the span's last try: after its earlier tries'. */
export function lastTryEvents(view: SpanView, earlier: readonly EarlierTry[]): readonly EventView[] {
  const after = earlier.at(-1)?.failedMillis;
  return after === undefined ? view.events : view.events.filter((e) => e.name !== 'exception' || e.timeMillis > after);
}

const RETRY_COUNT = /^Failed after (\d{1,3}) attempts\b/;

/**
 * How many tries the span's call made, when it says: the AI SDK's
 * `AI_RetryError` ("Failed after N attempts. Last error: …", or "… with
 * non-retryable error: …") on a failed span.
 */
export function statedTriesOf(view: SpanView): number | undefined {
  if (view.statusCode !== STATUS_ERROR) return undefined;
  const texts: string[] = [];
  for (const event of view.events) {
    if (event.name !== 'exception' || !/RetryError$/.test(stringAttr(event.attributes, 'exception.type') ?? ''))
      continue;
    texts.push(stringAttr(event.attributes, 'exception.message') ?? '');
  }
  if (view.statusMessage) texts.push(view.statusMessage);
  for (const text of texts) {
    const count = Number(RETRY_COUNT.exec(text)?.[1]);
    if (Number.isInteger(count) && count >= 1) return Math.min(count, MAX_TRIES);
  }
  return undefined;
}

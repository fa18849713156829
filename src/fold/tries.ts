/**
 * Tries inside one attempt span (docs/conventions.md#retries-inside-one-span).
 * A GenAI span covers its call as the caller saw it, retries included: one
 * span, several provider requests. Each earlier try the span shows becomes an
 * attempt of its own, numbered right before the span's, so the span's last
 * try is what the span ended as, and an earlier failed try is never taken
 * for it: it was retried.
 */
import type { EarlierTry, Extraction } from '../conventions/adapter.js';
import type { SpanView } from '../conventions/span-view.js';
import { numberAttr } from '../conventions/span-view.js';
import type { AttemptRecord, FactDraft } from '../model/facts.js';
import { NATIVE_ATTR } from '../model/native-convention.js';
import type { RunState } from './open-run-state.js';

/** More tries than this in one span are not told apart (the adapters read at most as many). */
const MAX_TRIES = 64;

/**
 * The earlier tries to add for an attempt span: those it recorded, and, when
 * its convention states how many tries the call made (`statedTries`), as
 * many more as the count names beyond those and beyond the earlier attempt
 * spans of the same call (`sameCallBefore`). A try named only by the count
 * is placed at the span's start, its error unknown.
 */
export function triesToAdd(
  recorded: readonly EarlierTry[],
  statedTries: number | undefined,
  sameCallBefore: number,
  spanStartMillis: number,
): EarlierTry[] {
  const named = statedTries === undefined ? 0 : Math.min(MAX_TRIES, statedTries) - 1 - sameCallBefore;
  const missing = Math.max(0, named - recorded.length);
  const unnamed: EarlierTry[] = Array.from({ length: missing }, () => ({
    startMillis: spanStartMillis,
    failedMillis: spanStartMillis,
    error: { kind: 'unknown' },
  }));
  return [...unnamed, ...recorded].slice(-MAX_TRIES);
}

/**
 * Inserts one attempt per try right before the attempt `key` in `attempts`
 * (in place) and numbers every attempt from there by position, as attempts
 * without a declared number are. The tries start with the span, for the
 * order of attempts; their facts keep their own times. Returns their keys,
 * in order; none when `key` is not an attempt.
 */
export function insertTries(attempts: AttemptRecord[], key: string, tries: readonly EarlierTry[]): string[] {
  const at = attempts.findIndex((a) => a.key === key);
  const own = attempts[at];
  if (own === undefined || tries.length === 0) return [];
  const keys = tries.map((_, i) => `${key}/try-${i + 1}`);
  attempts.splice(at, 0, ...keys.map((k) => ({ key: k, number: 0, startMillis: own.startMillis })));
  for (let i = at; i < attempts.length; i += 1) {
    const record = attempts[i] as AttemptRecord;
    attempts[i] = { key: record.key, number: i + 1, startMillis: record.startMillis };
  }
  return keys;
}

/**
 * The facts of the tries under `keys`: the request's side-effect boundary
 * (the span's own, the same request sent again), and the error that ended it.
 */
export function tryFacts(
  tries: readonly EarlierTry[],
  keys: readonly string[],
  boundary: FactDraft | undefined,
): FactDraft[] {
  const facts: FactDraft[] = [];
  tries.forEach((t, i) => {
    const attempt = keys[i];
    if (attempt === undefined) return;
    if (boundary?.kind === 'side_effect_boundary')
      facts.push({ kind: 'side_effect_boundary', boundary: boundary.boundary, timeMillis: t.startMillis, attempt });
    facts.push({ kind: 'provider_error', error: t.error, timeMillis: t.failedMillis, attempt });
  });
  return facts;
}

/**
 * The tries before the last one inside attempt span `key` (docs/conventions.md#retries-inside-one-span):
 * inserted into `attempts` as attempts of their own, their facts handed to
 * `emit`, each said to have unknown progress (the span shows only its last
 * try's). An attempt with a declared number is native: it has no tries.
 */
export function addTries<H>(
  run: RunState<H>,
  attempts: AttemptRecord[],
  key: string,
  view: SpanView,
  extraction: Extraction,
  emit: (fact: FactDraft) => void,
  unsure: (key: string) => void,
): void {
  if (extraction.earlierTries === undefined && extraction.statedTries === undefined) return;
  if (numberAttr(view.attributes, NATIVE_ATTR.ATTEMPT_NUMBER) !== undefined) return;
  const tries = triesToAdd(
    extraction.earlierTries ?? [],
    extraction.statedTries,
    sameCallBefore(run, attempts, key),
    view.startMillis,
  );
  const keys = insertTries(attempts, key, tries);
  const boundary = extraction.facts.find((f) => f.kind === 'side_effect_boundary' && f.attempt === key);
  for (const fact of tryFacts(tries, keys, boundary)) emit(fact);
  for (const k of keys) unsure(k);
}

/**
 * Attempt spans of the same call before attempt `key`: the attempts right
 * before it under the same parent span that did not finish (AI SDK 7's
 * `streamText` starts a span per try and leaves the failed ones open).
 */
function sameCallBefore<H>(run: RunState<H>, attempts: readonly AttemptRecord[], key: string): number {
  const at = attempts.findIndex((a) => a.key === key);
  const parent = run.attemptParents.get(key);
  let count = 0;
  for (let i = at - 1; i >= 0; i -= 1) {
    const before = (attempts[i] as AttemptRecord).key;
    if (!run.attemptParents.has(before) || run.attemptParents.get(before) !== parent) break;
    if (run.facts.some((f) => f.attempt === before && f.kind === 'attempt_finished')) break;
    count += 1;
  }
  return count;
}

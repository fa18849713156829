/**
 * Tries inside one attempt span (docs/conventions.md#retries-inside-one-span).
 * A GenAI span covers its call as the caller saw it, retries included: one
 * span, several provider requests. Each earlier try the span shows becomes an
 * attempt of its own, numbered right before the span's, so the span's last
 * try is what the span ended as, and an earlier failed try is never taken
 * for it: it was retried.
 */
import type { EarlierTry } from '../conventions/adapter.js';
import type { AttemptRecord, FactDraft } from '../model/facts.js';

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

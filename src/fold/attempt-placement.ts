/**
 * Which attempt a span of a run belongs to, by structure: the attempt it
 * descends from, the one it names (`agent_incidents.attempt.number`), the one
 * it links to, or the one running when it started; and how attempts are
 * registered and numbered. Also the late role of a span whose attributes were
 * set after it started.
 */
import type { ConventionAdapter } from '../conventions/adapter.js';
import { recognise } from '../conventions/index.js';
import type { SpanRole, SpanView } from '../conventions/span-view.js';
import { numberAttr } from '../conventions/span-view.js';
import { attemptAt } from '../derive/timeline.js';
import type { AttemptRecord } from '../model/facts.js';
import { NATIVE_ATTR } from '../model/native-convention.js';
import type { LiveSpan, OpenChild, RunState } from './open-run-state.js';

/** True when `spanId` is an attempt of `run`. */
export function isAttempt<H>(run: RunState<H>, spanId: string | undefined): boolean {
  return spanId !== undefined && run.attempts.some((a) => a.key === spanId);
}

/** True when a tool or an attempt span lies between the span whose parent is `parentSpanId` and the span of `run`. */
export function underToolOrAttempt<H>(run: RunState<H>, parentSpanId: string | undefined): boolean {
  let id = parentSpanId;
  for (let depth = 0; id !== undefined && id !== run.spanId && depth < 64; depth += 1) {
    const entry = run.open.get(id);
    if (!entry) return false;
    if (entry.role === 'tool' || entry.role === 'attempt') return true;
    id = entry.parentSpanId;
  }
  return false;
}

/** The nearest attempt at or above span `spanId` within `run`, by structure. */
export function attemptAbove<H extends LiveSpan>(run: RunState<H>, spanId: string | undefined): string | undefined {
  let id = spanId;
  for (let depth = 0; id !== undefined && id !== run.spanId && depth < 64; depth += 1) {
    if (isAttempt(run, id)) return id;
    const entry = run.open.get(id);
    if (!entry) return undefined;
    const declared =
      entry.role === 'attempt' ? undefined : numberAttr(entry.handle.attributes, NATIVE_ATTR.ATTEMPT_NUMBER);
    const named = declared === undefined ? undefined : run.attempts.find((a) => a.number === declared)?.key;
    if (named !== undefined) return named;
    id = entry.parentSpanId;
  }
  return undefined;
}

/**
 * The attempt a descendant span belongs to: the attempt it descends from,
 * the one it names (`agent_incidents.attempt.number`), the one it links to,
 * or, for conventions that show none of these, the attempt running when it
 * started.
 */
export function attemptOf<H extends LiveSpan>(run: RunState<H>, view: SpanView, role: SpanRole): string | undefined {
  if (role === 'attempt') return view.spanId;
  const above = attemptAbove(run, view.parentSpanId);
  if (above !== undefined) return above;
  const declared = numberAttr(view.attributes, NATIVE_ATTR.ATTEMPT_NUMBER);
  const named = declared === undefined ? undefined : run.attempts.find((a) => a.number === declared)?.key;
  if (named !== undefined) return named;
  const linked = view.links.find((l) => isAttempt(run, l.spanId));
  if (linked) return linked.spanId;
  return attemptAt(run.attempts, view.startMillis)?.key;
}

/**
 * The attempt or tool role of a span that had none at its start: some
 * instrumentations (OpenInference) set their attributes after starting it.
 */
export function lateRole<H extends LiveSpan>(
  run: RunState<H>,
  entry: OpenChild<H>,
  adapters: readonly ConventionAdapter[],
): { role: 'attempt' | 'tool'; adapter: ConventionAdapter } | undefined {
  if (entry.demoted) return undefined;
  const late = recognise(entry.handle, adapters);
  if (!late || (late.role !== 'attempt' && late.role !== 'tool')) return undefined;
  if (late.role === 'attempt' && isAttempt(run, entry.parentSpanId)) return undefined;
  return { role: late.role, adapter: late.adapter };
}

/** Registers an attempt; without a declared number, attempts are numbered in start order. */
export function addAttempt<H>(run: RunState<H>, key: string, startMillis: number, declared: unknown): void {
  if (typeof declared === 'number' && Number.isInteger(declared) && declared > 0) {
    run.attempts.push({ key, number: declared, startMillis });
    return;
  }
  // Usually the newest; an attempt recognised only at its end may have started before others.
  let at = run.attempts.length;
  while (at > 0 && (run.attempts[at - 1] as AttemptRecord).startMillis > startMillis) at -= 1;
  run.attempts.splice(at, 0, { key, number: at + 1, startMillis });
  for (let i = at + 1; i < run.attempts.length; i += 1) {
    const later = run.attempts[i] as AttemptRecord;
    run.attempts[i] = { key: later.key, number: i + 1, startMillis: later.startMillis };
  }
}

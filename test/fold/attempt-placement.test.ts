/**
 * Attempt placement by structure: isAttempt, underToolOrAttempt,
 * attemptAbove (ancestors, or the attempt an ancestor names), attemptOf (then
 * the number a span names, the attempt it links to, the one running at its
 * start), lateRole, and addAttempt's numbering.
 */
import { describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/conventions/index.js';
import type { SpanRole, SpanView } from '../../src/conventions/span-view.js';
import {
  addAttempt,
  attemptAbove,
  attemptOf,
  isAttempt,
  lateRole,
  underToolOrAttempt,
} from '../../src/fold/attempt-placement.js';
import type { LiveSpan, OpenChild, RunState } from '../../src/fold/open-run-state.js';
import { startedRunState } from '../../src/fold/open-run-state.js';
import { genAiAdapter } from '../../src/conventions/gen-ai.js';

const NUMBER = 'agent_incidents.attempt.number';
type Run = RunState<LiveSpan>;
const child = (
  role: SpanRole,
  parentSpanId: string | undefined,
  attributes: Record<string, unknown> = {},
  fields: Partial<OpenChild<LiveSpan>> = {},
): OpenChild<LiveSpan> => ({
  handle: { name: 'span', attributes },
  parentSpanId,
  role,
  startMillis: 0,
  truncated: false,
  ...fields,
});

/** run → a1 (attempt, 10) → tool t1 → x ; run → a2 (attempt, 20) ; run → step (other) → y */
function fixture(): Run {
  const run = startedRunState<LiveSpan>({
    spanId: 'run',
    handle: { name: 'invoke_agent', attributes: {} },
    adapter: genAiAdapter,
    startMillis: 0,
    trackedMillis: 0,
  });
  run.attempts.push({ key: 'a1', number: 1, startMillis: 10 }, { key: 'a2', number: 2, startMillis: 20 });
  run.open.set('a1', child('attempt', 'run'));
  run.open.set('t1', child('tool', 'a1'));
  run.open.set('x', child('other', 't1'));
  run.open.set('step', child('other', 'run'));
  run.open.set('named', child('other', 'run', { [NUMBER]: 2 }));
  return run;
}
const view = (fields: Partial<SpanView>): SpanView => ({
  spanId: 'new',
  name: 'span',
  startMillis: 0,
  attributes: {},
  events: [],
  links: [],
  statusCode: 0,
  ...fields,
});

describe('isAttempt and underToolOrAttempt', () => {
  it.each([
    ['a1', true],
    ['t1', false],
    [undefined, false],
  ])('isAttempt(%s) is %s', (spanId, expected) => {
    expect(isAttempt(fixture(), spanId)).toBe(expected);
  });

  it.each([
    ['under a tool', 'x', true],
    ['directly under an attempt', 'a1', true],
    ['under a plain step', 'step', false],
    ['directly under the run', 'run', false],
    ['under a span not open', 'gone', false],
    ['with no parent', undefined, false],
  ])('a span %s: %s', (_what, parent, expected) => {
    expect(underToolOrAttempt(fixture(), parent)).toBe(expected);
  });
});

describe('attemptAbove', () => {
  it.each([
    ['the attempt itself', 'a1', 'a1'],
    ['an attempt two levels up', 'x', 'a1'],
    ['the attempt an ancestor names by number', 'named', 'a2'],
    ['none under a plain step', 'step', undefined],
    ['none at the run', 'run', undefined],
    ['none from a span not open', 'gone', undefined],
  ])('finds %s', (_what, spanId, expected) => {
    expect(attemptAbove(fixture(), spanId)).toBe(expected);
  });

  it('does not follow a number an attempt span declares', () => {
    const run = fixture();
    run.open.set('a3', child('attempt', 'step', { [NUMBER]: 1 }));
    run.open.set('z', child('other', 'a3'));
    expect(attemptAbove(run, 'z')).toBeUndefined();
  });
});

describe('attemptOf', () => {
  it.each<[string, Partial<SpanView>, SpanRole, string | undefined]>([
    ['an attempt is its own', { spanId: 'a9', parentSpanId: 't1' }, 'attempt', 'a9'],
    ['by structure first', { parentSpanId: 'x', attributes: { [NUMBER]: 2 }, startMillis: 25 }, 'tool', 'a1'],
    [
      'then by the number it names',
      { parentSpanId: 'step', attributes: { [NUMBER]: 2 }, startMillis: 15 },
      'tool',
      'a2',
    ],
    [
      'then by a link to an attempt',
      { parentSpanId: 'step', links: [{ spanId: 'zz' }, { spanId: 'a1' }], startMillis: 25 },
      'tool',
      'a1',
    ],
    ['then by the attempt running at its start', { parentSpanId: 'step', startMillis: 15 }, 'tool', 'a1'],
    [
      'a named number no attempt has falls back to time',
      { parentSpanId: 'step', attributes: { [NUMBER]: 9 }, startMillis: 25 },
      'tool',
      'a2',
    ],
    ['none before the first attempt', { parentSpanId: 'step', startMillis: 5 }, 'other', undefined],
  ])('%s', (_what, fields, role, expected) => {
    expect(attemptOf(fixture(), view(fields), role)).toBe(expected);
  });
});

describe('lateRole', () => {
  const chat = { 'gen_ai.operation.name': 'chat' };

  it('recognises an attempt whose attributes came after its start', () => {
    const late = lateRole(fixture(), child('other', 'step', chat), ADAPTERS);
    expect(late).toEqual({ role: 'attempt', adapter: genAiAdapter });
  });

  it('recognises a tool', () => {
    expect(
      lateRole(fixture(), child('other', 'step', { 'gen_ai.operation.name': 'execute_tool' }), ADAPTERS)?.role,
    ).toBe('tool');
  });

  it.each([
    ['a demoted span', child('other', 'step', chat, { demoted: true })],
    ['an attempt inside an attempt', child('other', 'a1', chat)],
    ['a span of no convention', child('other', 'step', {})],
    ['a span recognised as a run', child('other', 'step', { 'gen_ai.operation.name': 'invoke_agent' })],
  ])('gives no late role to %s', (_what, entry) => {
    expect(lateRole(fixture(), entry, ADAPTERS)).toBeUndefined();
  });
});

describe('addAttempt', () => {
  const keys = (run: Run) => run.attempts.map((a) => [a.key, a.number, a.startMillis]);

  it('numbers attempts without a declared number in start order, renumbering later ones', () => {
    const run = fixture();
    addAttempt(run, 'a3', 30, undefined);
    addAttempt(run, 'early', 15, 'not a number');
    expect(keys(run)).toEqual([
      ['a1', 1, 10],
      ['early', 2, 15],
      ['a2', 3, 20],
      ['a3', 4, 30],
    ]);
  });

  it('keeps a declared positive integer as given, at the end', () => {
    const run = fixture();
    addAttempt(run, 'declared', 5, 7);
    expect(keys(run).at(-1)).toEqual(['declared', 7, 5]);
    expect(run.attempts).toHaveLength(3);
  });

  it.each([0, -1, 1.5])('ignores a declared %d and numbers by start', (declared) => {
    const run = fixture();
    addAttempt(run, 'a3', 30, declared);
    expect(keys(run).at(-1)).toEqual(['a3', 3, 30]);
  });
});

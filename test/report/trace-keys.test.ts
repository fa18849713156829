/**
 * Run keys across the parts of a trace (src/report/trace-keys.ts): a
 * remembered key followed to the run it turned out to be, the gateway's
 * stand-in crash verdict told apart from a run's own, and each span's key as
 * its nearest run ancestor, else what an earlier part remembered.
 */
import { describe, expect, it } from 'vitest';
import type { ReportSpan } from '../../src/report/report-span.js';
import { reportSpanOf } from '../../src/report/report-span.js';
import { isStandInVerdict, rememberedKey, resolveKeys } from '../../src/report/trace-keys.js';
import { decodedSpan } from '../support/decoded-span.js';

const RUN = { 'gen_ai.operation.name': 'invoke_agent' };
const CHAT = { 'gen_ai.operation.name': 'chat' };
const span = (id: string, parentSpanId: string | undefined, attributes: Record<string, unknown>, flags?: number) =>
  reportSpanOf(decodedSpan('t', id, { parentSpanId, attributes, flags } as never));

describe('rememberedKey', () => {
  it.each([
    ['nothing remembered', undefined, 'a', undefined],
    ['a key remembered as is', new Map([['a', 'r1']]), 'a', 'r1'],
    [
      'a stand-in key later found to be another run',
      new Map([
        ['a', 's'],
        ['s', 'r2'],
      ]),
      'a',
      'r2',
    ],
    ['a key remembered as itself', new Map([['a', 'a']]), 'a', 'a'],
  ])('%s', (_case, runOf, id, key) => {
    expect(rememberedKey(runOf, id)).toBe(key);
  });
});

describe('isStandInVerdict', () => {
  const standIn = span('c', 'missing-run', { ...CHAT, 'incident.missing_facts': ['run_never_ended'] });
  it.each([
    ["the gateway's crash verdict on the topmost span that came", standIn, 'absent', true],
    ['the same under a parent of its own that is no run', standIn, 'other', false],
    ['a run span', span('r', 'p', { ...RUN, 'incident.missing_facts': ['run_never_ended'] }), 'absent', false],
    ['a root span', span('c', undefined, { ...CHAT, 'incident.missing_facts': ['run_never_ended'] }), 'absent', false],
    ['a verdict without run_never_ended', span('c', 'p', { ...CHAT, 'incident.missing_facts': [] }), 'absent', false],
  ] as [string, ReportSpan, 'run' | 'other' | 'absent', boolean][])('%s → %s', (_case, s, parentRole, standsIn) => {
    expect(isStandInVerdict(s, parentRole)).toBe(standsIn);
  });
});

describe('resolveKeys', () => {
  const spans = [span('r', undefined, RUN), span('c', 'r', CHAT), span('t', 'c', {}), span('o', 'gone', {})];
  const byId = new Map(spans.map((s) => [s.view.spanId, s]));
  it.each([
    ['a run span: itself', 'r', 'r'],
    ['a span under a run: the run', 't', 'r'],
    ['a span whose ancestry leaves this part: what was remembered', 'o', 'r0'],
    ['a span never seen: what was remembered, else itself', 'x', 'x'],
  ])('%s', (_case, id, key) => {
    const resolve = resolveKeys(byId, () => false, new Map([['gone', 'r0']]));
    expect(resolve(id)).toBe(key);
  });

  it('stops at a span that is a key here', () => {
    const resolve = resolveKeys(byId, (id) => id === 'c', undefined);
    expect([resolve('t'), resolve('r')]).toEqual(['c', 'r']);
  });
});

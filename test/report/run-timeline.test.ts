/** The timeline of one run (src/report/run-timeline.ts): attempts and tool calls under it in start order, status, cause, side effects, where it broke. */
import { describe, expect, it } from 'vitest';
import type { SpanRole } from '../../src/conventions/span-view.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { reportSpanOf } from '../../src/report/report-span.js';
import type { ReportSpan } from '../../src/report/report-span.js';
import { childrenOf, runTimeline } from '../../src/report/run-timeline.js';
import { dropsAfterBash, lineOf, readsThenAnswers, recordRun } from './otlp-lines.js';

const T0 = 1_000_000;

/** A held span made by hand: `parent`, `role`, start and end in ms after T0 (no end: open), status and attributes. */
function span(
  spanId: string,
  parent: string | undefined,
  role: SpanRole | undefined,
  start: number,
  end: number | undefined,
  extra: { statusCode?: number; attributes?: Record<string, string> } = {},
): ReportSpan {
  return {
    traceId: 't',
    role,
    judged: false,
    view: {
      spanId,
      parentSpanId: parent,
      name: `${role ?? 'other'} ${spanId}`,
      startMillis: T0 + start,
      endMillis: end === undefined ? undefined : T0 + end,
      attributes: extra.attributes ?? {},
      events: [],
      links: [],
      statusCode: extra.statusCode ?? 0,
    },
  };
}

/** [span id, status, cause, broke] of each item. */
function brief(items: ReturnType<typeof runTimeline>): [string, string, string | undefined, boolean][] {
  return items.map((i) => [i.spanId, i.status, i.cause, i.broke]);
}

describe('childrenOf', () => {
  it('indexes spans by parent, skipping those without one, in input order', () => {
    const a = span('a', undefined, 'run', 0, 10);
    const b = span('b', 'a', 'attempt', 1, 2);
    const c = span('c', 'a', 'tool', 3, 4);
    const d = span('d', 'b', undefined, 1, 2);
    const index = childrenOf([a, b, c, d]);
    expect([...index.keys()]).toEqual(['a', 'b']);
    expect(index.get('a')!.map((s) => s.view.spanId)).toEqual(['b', 'c']);
    expect(index.get('b')!.map((s) => s.view.spanId)).toEqual(['d']);
  });
});

describe('runTimeline', () => {
  it('on a recorded run: attempts and tools in start order, offsets from the run start, the failed attempt where it broke', async () => {
    const spans = decodeOtlpJsonSpans(JSON.parse(lineOf(await recordRun(dropsAfterBash)))).map(reportSpanOf);
    const run = spans.find((s) => s.role === 'run')!;
    const items = runTimeline(run.view.spanId, childrenOf(spans), {
      runStartMillis: run.view.startMillis,
      succeeded: false,
    });
    const startOf = (kind: string, n: number) => spans.filter((s) => s.role === kind)[n]!.view.startMillis;
    expect(items.map((i) => [i.kind, i.name, i.status, i.sideEffects, i.cause, i.broke])).toEqual([
      ['attempt', 'chat gpt-test', 'ok', undefined, undefined, false],
      ['tool', 'execute_tool bash', 'ok', 'unsafe', undefined, false],
      ['attempt', 'chat gpt-test', 'error', undefined, 'UND_ERR_SOCKET', true],
    ]);
    expect(items.map((i) => i.startOffsetMillis)).toEqual(
      [startOf('attempt', 0), startOf('tool', 0), startOf('attempt', 1)].map((s) => s - run.view.startMillis),
    );
    expect(items.every((i) => typeof i.durationMillis === 'number' && i.durationMillis >= 0)).toBe(true);
  });

  it('nothing broke in a run that succeeded', async () => {
    const spans = decodeOtlpJsonSpans(JSON.parse(lineOf(await recordRun(readsThenAnswers)))).map(reportSpanOf);
    const run = spans.find((s) => s.role === 'run')!;
    const items = runTimeline(run.view.spanId, childrenOf(spans), {
      runStartMillis: run.view.startMillis,
      succeeded: true,
    });
    expect(items.map((i) => [i.kind, i.status, i.broke])).toEqual([
      ['attempt', 'ok', false],
      ['tool', 'ok', false],
      ['attempt', 'ok', false],
    ]);
  });

  it('reaches attempts under other spans, but not into a nested run', () => {
    const spans = [
      span('run', undefined, 'run', 0, 100),
      span('step', 'run', undefined, 5, 90),
      span('a1', 'step', 'attempt', 10, 20),
      span('sub', 'step', 'run', 30, 60),
      span('a2', 'sub', 'attempt', 35, 40),
      span('t1', 'run', 'tool', 50, 55),
    ];
    const items = runTimeline('run', childrenOf(spans), { runStartMillis: T0, succeeded: true });
    expect(items.map((i) => [i.spanId, i.kind, i.startOffsetMillis, i.durationMillis])).toEqual([
      ['a1', 'attempt', 10, 10],
      ['t1', 'tool', 50, 5],
    ]);
  });

  it('orders by start, ties by span id, and never puts an item before the run', () => {
    const spans = [span('b', 'r', 'attempt', 5, 6), span('a', 'r', 'attempt', 5, 6), span('c', 'r', 'tool', -20, -10)];
    const items = runTimeline('r', childrenOf(spans), { runStartMillis: T0, succeeded: true });
    expect(items.map((i) => [i.spanId, i.startOffsetMillis])).toEqual([
      ['c', 0],
      ['a', 5],
      ['b', 5],
    ]);
  });

  it.each<[string, ReportSpan, string, string | undefined]>([
    ['an open span is open, with no duration', span('x', 'r', 'tool', 1, undefined), 'open', undefined],
    [
      'status 2 is error, caused by error.type',
      span('x', 'r', 'attempt', 1, 2, { statusCode: 2, attributes: { 'error.type': 'Timeout' } }),
      'error',
      'Timeout',
    ],
    [
      'error.type on a span that did not fail is no cause',
      span('x', 'r', 'attempt', 1, 2, { statusCode: 1, attributes: { 'error.type': 'Timeout' } }),
      'ok',
      undefined,
    ],
    [
      'the attempt cause attribute comes before error.type',
      span('x', 'r', 'attempt', 1, 2, {
        statusCode: 2,
        attributes: { 'error.type': 'E', 'incident.attempt.cause': 'rate_limited' },
      }),
      'error',
      'rate_limited',
    ],
    [
      'the fold cause comes before error.type',
      span('fold', 'r', 'attempt', 1, 2, { statusCode: 2, attributes: { 'error.type': 'E' } }),
      'error',
      'provider_api_error',
    ],
  ])('%s', (_, s, status, cause) => {
    const [item] = runTimeline('r', childrenOf([s]), {
      runStartMillis: T0,
      succeeded: false,
      attemptCauses: new Map([['fold', 'provider_api_error']]),
    });
    expect([item!.status, item!.cause, item!.durationMillis === undefined]).toEqual([status, cause, status === 'open']);
  });

  it('marks only the last item that failed, never ended or has a cause as where the run broke', () => {
    const spans = [
      span('a1', 'r', 'attempt', 0, 1, { statusCode: 2 }),
      span('t1', 'r', 'tool', 2, undefined),
      span('a2', 'r', 'attempt', 3, 4, { attributes: { 'incident.attempt.cause': 'c' } }),
      span('a3', 'r', 'attempt', 5, 6),
    ];
    expect(brief(runTimeline('r', childrenOf(spans), { runStartMillis: T0, succeeded: false }))).toEqual([
      ['a1', 'error', undefined, false],
      ['t1', 'open', undefined, false],
      ['a2', 'ok', 'c', true],
      ['a3', 'ok', undefined, false],
    ]);
  });

  it('is empty for a run with no spans under it, and survives a span listed twice', () => {
    expect(runTimeline('r', childrenOf([]), { runStartMillis: T0, succeeded: false })).toEqual([]);
    const a = span('a', 'r', 'attempt', 1, 2);
    expect(runTimeline('r', childrenOf([a, a]), { runStartMillis: T0, succeeded: true }).map((i) => i.spanId)).toEqual([
      'a',
    ]);
  });
});

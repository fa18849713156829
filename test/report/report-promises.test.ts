/**
 * `report`'s promises when a trace's spans come in parts far apart, when the
 * window is full, and when the file holds hostile values: the file's verdicts
 * win, each run is counted once, an early verdict is never success, and
 * nothing from the file reaches the terminal raw. Table-driven over runs
 * recorded by RunRecorder and the recorded AI SDK 6, AI SDK 7 and
 * OpenInference fixtures.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { renderIncidentList, renderReportNotes } from '../../src/report/incident-list.js';
import { OtlpJsonError } from '../../src/report/otlp-json-line.js';
import { readReport } from '../../src/report/read-report.js';
import type { ReportBuilderOptions } from '../../src/report/report-builder.js';
import { ReportBuilder } from '../../src/report/report-builder.js';
import type { IncidentReport } from '../../src/report/report-model.js';
import { renderSummary } from '../../src/report/summary-table.js';
import { dropsAfterBash, gateway, isRunSpan, lineOf, readsThenAnswers, recordRun } from './otlp-lines.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'traces');
type Span = Record<string, unknown> & { spanId: string; parentSpanId?: string; endTimeUnixNano?: string; name: string };
interface Placed {
  resource: unknown;
  scope: unknown;
  span: Span;
}

/** A line of one unrelated span: a pause in a trace, as other traffic makes one. */
const filler = (i: number) =>
  JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [] },
        scopeSpans: [
          {
            scope: { name: 'f' },
            spans: [
              {
                traceId: `f${String(i).padStart(31, '0')}`,
                spanId: '1'.repeat(16),
                name: 'other',
                kind: 1,
                startTimeUnixNano: '1',
                endTimeUnixNano: '2',
                status: {},
              },
            ],
          },
        ],
      },
    ],
  });

/** The spans of a fixture in the order an exporter sends them: as they end (a span never ended last). */
function fixtureSpans(path: string): Placed[] {
  const request = JSON.parse(readFileSync(path, 'utf8')) as {
    resourceSpans: { resource: unknown; scopeSpans: { scope: unknown; spans: Span[] }[] }[];
  };
  const all = request.resourceSpans.flatMap((rs) =>
    rs.scopeSpans.flatMap((ss) => ss.spans.map((span) => ({ resource: rs.resource, scope: ss.scope, span }))),
  );
  const end = (p: Placed) => BigInt(p.span.endTimeUnixNano ?? '99999999999999999999');
  return all.sort((a, b) => (end(a) > end(b) ? 1 : end(a) < end(b) ? -1 : 0));
}
const lineOfPlaced = (spans: readonly Placed[]) =>
  JSON.stringify({
    resourceSpans: spans.map((p) => ({ resource: p.resource, scopeSpans: [{ scope: p.scope, spans: [p.span] }] })),
  });

const FIXTURE_FILES = ['ai-sdk-6', 'ai-sdk-7-otel', 'openinference-openai'].flatMap((dir) =>
  readdirSync(join(FIXTURES, dir))
    .filter((f) => f.endsWith('.otlp.json'))
    .sort()
    .map((f) => `${dir}/${f}`),
);

function build(
  lines: readonly string[],
  options: ReportBuilderOptions = {},
): { report: IncidentReport; rows: string[] } {
  let rows: { key: string; row: string }[] = [];
  const builder = new ReportBuilder({
    ...options,
    onRun: (run) => rows.push({ key: `${run.traceId}/${run.spanId}`, row: `${run.outcome} ${run.cause ?? ''}` }),
    onRunReplaced: (run) => (rows = rows.filter((r) => r.key !== `${run.traceId}/${run.spanId}`)),
  });
  for (const line of lines) builder.addLine(line);
  return { report: builder.finish(), rows: rows.map((r) => r.row).sort() };
}

describe('a verdict in the file always wins over one the report made up', () => {
  const late = async (run: typeof dropsAfterBash, lag: number) => {
    const spans = await recordRun(run, { processor: true });
    return {
      whole: [lineOf(spans)],
      parts: [
        lineOf(spans.filter((s) => !isRunSpan(s))),
        ...Array.from({ length: lag }, (_, i) => filler(i)),
        lineOf(spans.filter(isRunSpan)),
      ],
    };
  };
  it.each([
    ['failed run, run span 20 lines after its children, --idle-lines 5', dropsAfterBash, 20, { idleLines: 5 }],
    ['successful run, run span 20 lines late, --idle-lines 5', readsThenAnswers, 20, { idleLines: 5 }],
    ['failed run, children judged early (window of 2 spans)', dropsAfterBash, 3, { maxSpans: 2 }],
    ['successful run, children judged early (window of 2 spans)', readsThenAnswers, 3, { maxSpans: 2 }],
  ] as const)('%s', async (_name, run, lag, options) => {
    const { whole, parts } = await late(run, lag);
    const expected = build(whole);
    const got = build(parts, options);
    expect(got.report.byOutcome).toEqual(expected.report.byOutcome);
    expect(got.rows).toEqual(expected.rows);
    // The notes count only runs really judged here: none.
    expect(got.report.folded).toBe(0);
    expect(got.report.window).toMatchObject({ runsJudgedEarly: 0, tracesJudgedEarly: 0 });
    expect(renderReportNotes(got.report)).not.toContain('carried no verdict');
    expect(got.report.incidents.map((r) => [r.outcome, r.cause, r.spanId])).toEqual(
      expected.report.incidents.map((r) => [r.outcome, r.cause, r.spanId]),
    );
  });

  it('the gateway crash verdict and the run span it judged again later are one run', async () => {
    const spans: ReadableSpan[] = await recordRun(dropsAfterBash);
    const judge = gateway();
    const lines = [judge(spans.filter((s) => !isRunSpan(s))), filler(1), filler(2), judge(spans.filter(isRunSpan))];
    expect(build(lines, { idleLines: 1 }).report.runs).toBe(1);
    expect(build(lines).report.runs).toBe(1);
  });
});

describe('one run is counted once, whatever parts its trace arrives in', () => {
  it.each(FIXTURE_FILES)('%s, cut anywhere, after a pause or a full window', (name) => {
    const spans = fixtureSpans(join(FIXTURES, name));
    const whole = build([lineOfPlaced(spans)]).report.runs;
    for (let cut = 1; cut < spans.length; cut += 1) {
      const head = lineOfPlaced(spans.slice(0, cut));
      const tail = lineOfPlaced(spans.slice(cut));
      expect(
        build([head, filler(1), filler(2), filler(3), tail], { idleLines: 2 }).report.runs,
        `pause at ${cut}`,
      ).toBe(whole);
      expect(build([head, filler(1), tail], { maxSpans: cut }).report.runs, `window of ${cut}`).toBe(whole);
      // Each span on a line of its own, a pause after the cut.
      const single = spans.map((s) => lineOfPlaced([s]));
      expect(
        build([...single.slice(0, cut), filler(1), filler(2), filler(3), filler(4), ...single.slice(cut)], {
          idleLines: 3,
        }).report.runs,
        `span lines, pause at ${cut}`,
      ).toBe(whole);
    }
  });
});

describe('a run folded while its trace was judged early is never success', () => {
  it.each(FIXTURE_FILES)('%s', (name) => {
    const spans = fixtureSpans(join(FIXTURES, name));
    const roots = spans.filter((s) => s.span.parentSpanId === undefined);
    const children = spans.filter((s) => s.span.parentSpanId !== undefined);
    const splits: [string, Placed[], Placed[]][] = [
      ['roots first', roots, children],
      ['all but the last child first', spans.filter((s) => s !== children.at(-1)), children.slice(-1)],
      ...spans
        .slice(1)
        .map((_, i): [string, Placed[], Placed[]] => [
          `end order cut at ${i + 1}`,
          spans.slice(0, i + 1),
          spans.slice(i + 1),
        ]),
    ];
    for (const [how, first, second] of splits) {
      const { report } = build([lineOfPlaced(first), filler(1), ...(second.length > 0 ? [lineOfPlaced(second)] : [])], {
        maxSpans: first.length,
      });
      if (report.window.runsJudgedEarly === 0) continue;
      expect(
        report.byOutcome.map(([o]) => o),
        how,
      ).not.toContain('success');
      expect(
        report.byOutcome.map(([o]) => o),
        how,
      ).not.toContain('recovered');
    }
  });
});

describe('a judged framework call is a run of its own', () => {
  const T = 'a'.repeat(32);
  const span = (id: string, parent: string | undefined, name: string, attrs: Record<string, string | string[]>) => ({
    traceId: T,
    spanId: id,
    parentSpanId: parent,
    name,
    kind: 1,
    startTimeUnixNano: '1700000000000000000',
    endTimeUnixNano: '1700000001000000000',
    status: { code: 0 },
    attributes: Object.entries(attrs).map(([key, v]) => ({
      key,
      value: Array.isArray(v) ? { arrayValue: { values: v.map((s) => ({ stringValue: s })) } } : { stringValue: v },
    })),
  });
  const line = (spans: unknown[]) =>
    JSON.stringify({
      resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'ai' }, spans }] }],
    });
  const agent = span('1000000000000001', undefined, 'invoke_agent a', {
    'gen_ai.operation.name': 'invoke_agent',
    'incident.outcome': 'success',
  });
  const tool = span('2000000000000001', '1000000000000001', 'execute_tool sub', {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'sub',
  });
  const call = (id: string, parent: string, extra: Record<string, string | string[]> = {}) =>
    span(id, parent, 'ai.generateText', {
      'ai.operationId': 'ai.generateText',
      'incident.outcome': 'failed',
      'incident.cause': 'x',
      ...extra,
    });
  it.each([
    [
      'two judged calls under one tool',
      [agent, tool, call('3000000000000001', '2000000000000001'), call('3000000000000002', '2000000000000001')],
      3,
    ],
    [
      'the same, the calls on a later line',
      [agent, tool],
      3,
      [call('3000000000000001', '2000000000000001'), call('3000000000000002', '2000000000000001')],
    ],
    [
      'a crash verdict on the topmost span of a run whose span never came',
      [call('3000000000000001', '9000000000000001', { 'incident.missing_facts': ['run_never_ended'] })],
      1,
    ],
  ] as const)('%s', (_name, first, runs, later?: readonly unknown[]) => {
    const lines = [line([...first]), ...(later ? [filler(1), filler(2), line([...later])] : [])];
    expect(build(lines, { idleLines: 1 }).report.runs).toBe(runs);
  });
});

describe('a long line costs its length, and one past the cap is refused naming it', () => {
  it.each([
    ['in 1 KiB chunks', 1024],
    ['in 64 KiB chunks', 65536],
  ])('%s', async (_name, size) => {
    const long = `{"resourceSpans":[],"x":"${'a'.repeat(16 * 1024 * 1024)}"}`;
    async function* chunks(text: string) {
      for (let i = 0; i < text.length; i += size) yield Buffer.from(text.slice(i, i + size));
    }
    const started = performance.now();
    const report = await readReport(chunks(`${filler(1)}\n${long}\n${filler(2)}\n`));
    expect(report.input.lines).toBe(3);
    expect(performance.now() - started).toBeLessThan(10_000);
    const refused = await readReport(chunks(`${filler(1)}\n${filler(2)}\n${long}\n`), {
      maxLineChars: 1_000_000,
    }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OtlpJsonError);
    expect((refused as OtlpJsonError).line).toBe(3);
  });
});

describe('values from the file never drive the terminal, and odd times never crash it', () => {
  const hostile = '\u001b]0;pwned\u0007\u001b[2J\u009b31m';
  const run = (start: string, value: string) =>
    JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [] },
          scopeSpans: [
            {
              scope: { name: 's' },
              spans: [
                {
                  traceId: '0123456789abcdef0123456789abcdef',
                  spanId: '0123456789abcdef',
                  name: 'invoke_agent',
                  kind: 1,
                  startTimeUnixNano: start,
                  endTimeUnixNano: start,
                  status: { code: 2 },
                  attributes: [
                    'incident.outcome',
                    'incident.cause',
                    'incident.cause.detail',
                    'incident.phase',
                    'incident.retry_safety',
                  ]
                    .map((key) => ({ key, value: { stringValue: value } }))
                    .concat([{ key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } }]),
                },
              ],
            },
          ],
        },
      ],
    });
  it.each([
    ['control characters in every verdict field', run('1700000000000000000', hostile)],
    ['a start time past the range of a Date', run('99999999999999999999999', 'failed')],
  ])('%s', (_name, line) => {
    const { report } = build([line]);
    const text = [
      renderSummary(report),
      renderIncidentList(report, { jaegerUrl: 'http://j' }),
      renderReportNotes(report),
    ].join('\n');
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(text).toContain('0123456789abcdef0123456789abcdef');
  });
});

/**
 * The incident page (`report --html`) from reports built by hand: the counts
 * and charts, each incident's timeline (order, where it broke, side effects,
 * open spans), the trace link, and that nothing from the input becomes markup.
 */
import { describe, expect, it } from 'vitest';
import { presentIncident } from '../../src/presentation/present-incident.js';
import { renderIncidentPage } from '../../src/report/html-page.js';
import type { IncidentReport, ReportRun } from '../../src/report/report-model.js';
import {
  emptyReport,
  INTERRUPTED_TOOL,
  interruptedToolRun,
  lostFigures,
  NO_LOST,
  timelineItem as item,
  TRACE_ID,
} from './report-fixtures.js';

const TRACE = TRACE_ID;
const AT = new Date('2026-11-26T05:00:00Z');

function run(over: Partial<ReportRun> = {}): ReportRun {
  return interruptedToolRun({
    timeline: [
      item({ spanId: 'a000000000000001', startOffsetMillis: 10, durationMillis: 400 }),
      item({
        spanId: 'a000000000000002',
        kind: 'tool',
        name: 'execute_tool read_file',
        startOffsetMillis: 420,
        durationMillis: 50,
        sideEffects: 'read_only',
      }),
      item({
        spanId: 'a000000000000003',
        kind: 'tool',
        name: 'execute_tool bash',
        startOffsetMillis: 480,
        status: 'open',
        durationMillis: undefined,
        sideEffects: 'unsafe',
        broke: true,
      }),
    ],
    ...over,
  });
}

function report(over: Partial<IncidentReport> = {}): IncidentReport {
  return {
    runs: 10,
    folded: 3,
    byOutcome: [
      ['success', 6],
      ['failed', 3],
      ['recovered', 1],
    ],
    byCause: [
      ['tool_execution_interrupted', 2],
      ['provider_api_error', 1],
      ['', 1],
    ],
    byPhase: [
      ['tool_execution', 2],
      ['text_generation', 2],
    ],
    byRetrySafety: [
      ['ask_user_before_retry', 3],
      ['auto_retry', 1],
    ],
    incidents: [run()],
    byKind: [],
    lost: NO_LOST,
    incidentsOmitted: 0,
    input: { lines: 12, spans: 40, traces: 10 },
    window: { maxSpans: 100_000, idleLines: 1000, tracesJudgedEarly: 0, runsJudgedEarly: 0, tracesSeenAgain: 0 },
    ...over,
  };
}

/** The markup of the element that starts with `open` up to its closing `close` (no nesting of the same tag inside). */
function section(page: string, open: string, close: string): string {
  const start = page.indexOf(open);
  expect(start, `${open} not found`).toBeGreaterThanOrEqual(0);
  return page.slice(start, page.indexOf(close, start) + close.length);
}

/** [value, count, bar width] of each row of a chart. */
function chartRows(page: string, id: string): [string, string, number][] {
  const chart = section(page, `<section class="chart" id="${id}">`, '</section>');
  return [
    ...chart.matchAll(/<tr data-value="([^"]*)">[\s\S]*?style="width:([\d.]+)%"[\s\S]*?<td class="num">([^<]*)<\/td>/g),
  ].map((m) => [m[1]!, m[3]!, Number(m[2])]);
}

/** The timeline items of the first incident: span id, classes and the marks it shows. */
function timelineRows(page: string): string[] {
  const card = section(page, '<article class="incident', '</article>');
  return [...card.matchAll(/<li class="([^"]*)" data-span-id="([^"]*)">([\s\S]*?)<\/li>/g)].map((m) =>
    [
      m[2],
      m[1],
      m[3]!.includes('✕ broke here') && 'BROKE',
      m[3]!.includes('⚠ side effects:') && 'SIDE',
      m[3]!.includes('never ended') && 'OPEN',
    ]
      .filter(Boolean)
      .join(' '),
  );
}

const ALLOWED_ATTRIBUTES = [
  'lang',
  'charset',
  'http-equiv',
  'content',
  'name',
  'class',
  'id',
  'aria-labelledby',
  'aria-label',
  'aria-hidden',
  'aria-live',
  'data-total',
  'data-value',
  'data-cause',
  'data-phase',
  'data-safety',
  'data-span-id',
  'datetime',
  'scope',
  'style',
  'colspan',
  'title',
  'href',
  'rel',
  'hidden',
  'value',
];

describe('renderIncidentPage', () => {
  it('is one self-contained document: inline style, nothing fetched, a CSP that forbids fetching', () => {
    const page = renderIncidentPage(report(), { generatedAt: AT });
    expect(page.startsWith('<!doctype html>')).toBe(true);
    // The CSP as written in the attribute (quotes escaped like every attribute value).
    expect(page).toContain(
      'content="default-src &#39;none&#39;; style-src &#39;unsafe-inline&#39;; script-src &#39;sha256-',
    );
    expect(page).not.toMatch(/<link\b|@import|url\(|\bsrc=/i);
    // The only absolute URLs are none at all without jaegerUrl.
    expect(page).not.toMatch(/https?:\/\//);
    expect(page).toContain('<time datetime="2026-11-26T05:00:00.000Z">2026-11-26 05:00 UTC</time>');
  });

  it('heads the page with the totals and how many runs the report judged', () => {
    const page = renderIncidentPage(report(), { generatedAt: AT });
    expect(page).toContain('<h1>4 incidents in 10 runs</h1>');
    expect(page).toContain('<dd data-total="runs">10</dd>');
    expect(page).toContain('<dd data-total="incidents">4</dd>');
    expect(page).toContain('<dd data-total="folded">3</dd>');
    expect(page).toContain(
      '3 of 10 runs carried no verdict (exported without the processor or the gateway) and were judged by this report from their spans.',
    );
    expect(page).toContain('<dd data-total="listed">1</dd>');
    expect(page).not.toContain('window was full');
    const early = renderIncidentPage(
      report({ window: { maxSpans: 10, idleLines: 10, tracesJudgedEarly: 2, runsJudgedEarly: 2, tracesSeenAgain: 0 } }),
      { generatedAt: AT },
    );
    expect(early).toContain('2 of them were judged before their trace may have been complete');
  });

  it('says under each total what it counts, "Judged by this report" too, in the markup (no script needed)', () => {
    const page = renderIncidentPage(report(), { generatedAt: AT });
    const totals = section(page, '<dl class="totals" id="totals">', '</dl>');
    const tiles = [
      ...totals.matchAll(
        /<div><dt>([^<]*)<\/dt><dd data-total="([^"]*)">[^<]*<\/dd><dd class="explain"[^>]*>([^<]*)<\/dd><\/div>/g,
      ),
    ].map((m) => [m[1], m[2], m[3]]);
    expect(tiles.map(([title, key]) => [title, key])).toEqual([
      ['Runs', 'runs'],
      ['Incidents', 'incidents'],
      ['Judged by this report', 'folded'],
      ['Listed below', 'listed'],
    ]);
    // Escaped like all text: the apostrophes are entities.
    expect(tiles[2]![2]).toBe(
      'runs with no verdict in the file (exported without the agent-incidents processor or gateway), judged here from their spans; the rest kept the processor&#39;s or the gateway&#39;s verdict',
    );
    expect(tiles[1]![2]).toBe('runs that did not simply succeed: recovered, failed, cancelled or incomplete');
  });

  it('says an input with no span has none, naming it, with no charts, totals, incidents or script', () => {
    const empty = emptyReport();
    const page = renderIncidentPage(empty, { generatedAt: AT, inputName: 'export<1>.jsonl' });
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(page).toContain('<title>Incident report · no spans</title>');
    expect(page).toContain('<h1>No spans in export&lt;1&gt;.jsonl</h1>');
    expect(page).toContain('The input is empty: there are no runs to count and no incidents to show.');
    expect(page).toContain('<p class="note" id="no-spans">If you expected spans here');
    expect(page).toContain('<time datetime="2026-11-26T05:00:00.000Z">');
    expect(page).not.toMatch(/class="chart"|id="totals"|<article|<script|<table/);
    const blank = renderIncidentPage({ ...empty, input: { lines: 3, spans: 0, traces: 0 } }, { generatedAt: AT });
    expect(blank).toContain('<h1>No spans in the input</h1>');
    expect(blank).toContain('Read 3 lines, none with a span: there are no runs to count');
  });

  it('draws one bar per value with its count, the longest bar for the most frequent, an absent value as "none"', () => {
    const page = renderIncidentPage(report(), { generatedAt: AT });
    expect(chartRows(page, 'chart-outcome')).toEqual([
      ['success', '6', 100],
      ['failed', '3', 50],
      ['recovered', '1', 16.67],
    ]);
    const causes = chartRows(page, 'chart-cause');
    expect(causes.map(([v, n]) => [v, n])).toEqual([
      ['tool_execution_interrupted', '2'],
      ['provider_api_error', '1'],
      ['', '1'],
    ]);
    expect(section(page, '<tr data-value="">', '</tr>')).toContain('<span class="is-none">none</span>');
    expect(chartRows(page, 'chart-phase')).toHaveLength(2);
    expect(chartRows(page, 'chart-retry-safety').map(([v]) => v)).toEqual(['ask_user_before_retry', 'auto_retry']);
    // Outcome and retry safety bars carry a tone; the label and number say the same in text.
    expect(section(page, '<tr data-value="failed">', '</tr>')).toContain('class="bar c-bad"');
    expect(section(page, '<tr data-value="auto_retry">', '</tr>')).toContain('class="bar c-ok"');
  });

  it('shows what incidents cost after the counts: the tables by cause and retry safety, and each card its run’s loss', () => {
    const figures = lostFigures({
      runs: 1,
      attempts: 2,
      inputTokens: 2700,
      outputTokens: 80,
      lowerBoundRuns: 1,
      lowerBound: true,
    });
    const lost = { attempts: 2, inputTokens: 2700, outputTokens: 80, lowerBound: true };
    const page = renderIncidentPage(
      report({
        lost: {
          total: figures,
          byCause: [{ value: 'tool_execution_interrupted', ...figures }],
          byRetrySafety: [{ value: 'ask_user_before_retry', ...figures }],
        },
        incidents: [run({ lost })],
      }),
      { generatedAt: AT },
    );
    const at = (text: string) => page.indexOf(text);
    expect(at('id="counts-heading"')).toBeLessThan(at('id="lost-heading"'));
    expect(at('id="lost-heading"')).toBeLessThan(at('id="incidents-heading"'));
    expect(section(page, '<section class="lost-table" id="lost-cause">', '</section>')).toContain(
      '<tr data-value="tool_execution_interrupted" data-floor="true">',
    );
    expect(page).toContain('<section class="lost-table" id="lost-retry-safety">');
    expect(page).toContain('<p class="note" id="lost-floor">');
    expect(page).toContain('<div><dt>Lost</dt><dd>2 attempts: at least 2,700 input and 80 output tokens</dd></div>');
    // A report whose runs lost nothing says so.
    expect(renderIncidentPage(report(), { generatedAt: AT })).toContain('id="lost-none"');
  });

  it('tells each incident as presentIncident would, with its closed values as badges', () => {
    const page = renderIncidentPage(report(), { generatedAt: AT });
    const text = presentIncident({
      ...INTERRUPTED_TOOL,
      factsComplete: true,
      missingFacts: [],
      attempts: 1,
      recoveredAttempts: 0,
    });
    const card = section(page, '<article class="incident', '</article>');
    expect(card).toContain(`<article class="incident sev-${text.severity}"`);
    expect(card).toContain(`>${text.title}</h3>`);
    expect(card).toContain(`>${text.message}</p>`);
    expect(card).toContain(`<strong>What to do:</strong> ${text.suggestedAction}</p>`);
    expect(card).toContain('<span class="k">retry</span> ask_<wbr>user_<wbr>before_<wbr>retry');
    expect(card).toContain(`<code class="trace-id">${TRACE}</code>`);
  });

  it('lists the timeline in order, marking where it broke, which tool had side effects and what never ended', () => {
    const page = renderIncidentPage(report(), { generatedAt: AT });
    expect(timelineRows(page)).toEqual([
      'a000000000000001 tl-item tl-attempt is-ok',
      'a000000000000002 tl-item tl-tool is-ok',
      'a000000000000003 tl-item tl-tool is-open is-broke has-side-effects BROKE SIDE OPEN',
    ]);
    const card = section(page, '<article class="incident', '</article>');
    // Bars are placed on the run's own scale (1500 ms): 10 ms in, 400 ms long.
    expect(card).toContain('style="left:0.67%;width:max(3px,26.67%)"');
    // The open tool runs to the end of the scale.
    expect(card).toContain('style="left:32.00%;width:max(3px,68.00%)"');
    expect(card).toContain('⚠ side effects: unsafe');
    expect(card.match(/broke here/g)).toHaveLength(1);
    expect(card).toContain('1 attempt, 2 tool calls, over 1.5 s');
  });

  it('leaves room for an item that never ended in a run that never ended, so its bar shows', () => {
    const timeline = [
      item({ spanId: 'b1', durationMillis: 1000 }),
      item({
        spanId: 'b2',
        kind: 'tool',
        startOffsetMillis: 1000,
        durationMillis: undefined,
        status: 'open',
        broke: true,
      }),
    ];
    const page = renderIncidentPage(report({ incidents: [run({ durationMillis: undefined, timeline })] }), {
      generatedAt: AT,
    });
    const card = section(page, '<article class="incident', '</article>');
    expect(card).toContain('1 attempt, 1 tool call, over at least 1.0 s');
    expect(card).toContain('style="left:90.91%;width:max(3px,9.09%)"');
  });

  it('says when a run has no attempts or tool calls, and when incidents were not listed', () => {
    const page = renderIncidentPage(report({ incidents: [run({ timeline: [] })], incidentsOmitted: 3 }), {
      generatedAt: AT,
    });
    expect(page).toContain('No attempts or tool calls of this run are in the input.');
    expect(page).toContain('3 more incidents are counted above but not listed here');
  });

  it('links the trace only when jaegerUrl is given, without a doubled slash, and only for a well-formed trace id', () => {
    expect(renderIncidentPage(report(), { generatedAt: AT })).not.toContain('trace-link');
    const page = renderIncidentPage(report(), { generatedAt: AT, jaegerUrl: 'http://127.0.0.1:16686/' });
    expect(page).toContain(
      `<a class="trace-link" href="http://127.0.0.1:16686/trace/${TRACE}" rel="noreferrer">Open in Jaeger</a>`,
    );
    const bad = renderIncidentPage(report({ incidents: [run({ traceId: 'not-a-trace' })] }), {
      generatedAt: AT,
      jaegerUrl: 'https://jaeger.example',
    });
    expect(bad).not.toContain('trace-link');
    expect(() => renderIncidentPage(report(), { jaegerUrl: 'javascript:alert(1)' })).toThrow(/http\(s\) URL/);
    expect(() => renderIncidentPage(report(), { jaegerUrl: 'not a url' })).toThrow(TypeError);
  });

  it('writes the incident text in the requested locale and marks its language', () => {
    const page = renderIncidentPage(report(), { generatedAt: AT, locale: 'zh-CN' });
    const text = presentIncident(
      {
        outcome: 'failed',
        cause: 'tool_execution_interrupted',
        sideEffects: 'unsafe',
        factsComplete: true,
        missingFacts: [],
        attempts: 1,
        recoveredAttempts: 0,
      },
      { locale: 'zh-CN' },
    );
    expect(page).toContain(`lang="zh-CN">${text.title}</h3>`);
    expect(page).toContain('<html lang="en">');
  });

  it('is readable without JavaScript: every incident shown, the filters hidden until the script runs', () => {
    const page = renderIncidentPage(report({ incidents: [run(), run({ cause: 'provider_api_error' })] }), {
      generatedAt: AT,
    });
    expect(page.match(/<article class="incident[^>]*>/g)?.every((tag) => !tag.includes('hidden'))).toBe(true);
    expect(page).toContain('<form class="filters" id="filters" hidden');
    expect(page.match(/<script>/g)).toHaveLength(1);
    expect(page).toMatch(/script-src &#39;sha256-[A-Za-z0-9+/]+=*&#39;/);
  });

  describe('escaping', () => {
    const HOSTILE = `X<script>alert(1)</script>"'</style><img src=x onerror=alert(2)>&amp;`;
    const ESCAPED =
      'X&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&lt;/style&gt;&lt;img src=x onerror=alert(2)&gt;&amp;amp;';
    const hostileRun = run({
      outcome: HOSTILE,
      cause: HOSTILE,
      causeDetail: HOSTILE,
      phase: HOSTILE,
      retrySafety: HOSTILE,
      retrySafetyReason: HOSTILE,
      sideEffects: HOSTILE,
      provider: HOSTILE,
      agentName: HOSTILE,
      serviceName: HOSTILE,
      traceId: HOSTILE,
      spanId: HOSTILE,
      startUnixMillis: Number.NaN,
      durationMillis: Number.POSITIVE_INFINITY,
      source: HOSTILE as 'file',
      timeline: [
        item({
          kind: HOSTILE as 'tool',
          name: HOSTILE,
          spanId: HOSTILE,
          status: HOSTILE as 'ok',
          cause: HOSTILE,
          sideEffects: HOSTILE,
          startOffsetMillis: -5,
          durationMillis: Number.NaN,
          broke: true,
        }),
        item({
          kind: 'tool',
          name: HOSTILE,
          spanId: HOSTILE,
          status: 'error',
          cause: HOSTILE,
          sideEffects: HOSTILE,
          startOffsetMillis: Number.NaN,
        }),
      ],
    });
    const hostileCounts = [
      [HOSTILE, 2],
      ['', Number.NaN],
    ] as const;
    const page = renderIncidentPage(
      report({
        runs: Number.NaN,
        byOutcome: hostileCounts,
        byCause: hostileCounts,
        byPhase: hostileCounts,
        byRetrySafety: hostileCounts,
        incidents: [hostileRun],
        incidentsOmitted: -1,
      }),
      { generatedAt: AT, jaegerUrl: `http://127.0.0.1:16686/"><script>alert(3)</script>` },
    );

    it('escapes every string from the input, in text and in attributes', () => {
      const raw = page.split('X').length - 1;
      const escaped = page.split(ESCAPED).length - 1;
      expect(raw).toBeGreaterThan(20);
      // Every occurrence of the value is its escaped form (the causeDetail inside cause(detail) too).
      expect(
        page.match(/X(?!&lt;script&gt;alert\(1\)&lt;\/script&gt;&quot;&#39;&lt;\/style&gt;&lt;img)/g) ?? [],
      ).toEqual([]);
      expect(escaped).toBeGreaterThan(20);
    });

    it('lets no markup through: one style, one script, no img, no event handler attributes', () => {
      expect(page.match(/<style>/g)).toHaveLength(1);
      expect(page.match(/<\/style>/g)).toHaveLength(1);
      expect(page.match(/<script/g)).toHaveLength(1);
      expect(page.match(/<\/script>/g)).toHaveLength(1);
      expect(page).not.toMatch(/<img/);
      // Every tag is one this code wrote: known attribute names, each value double-quoted (and so closed by the first quote).
      const tagStarts = page.match(/<[a-zA-Z/!]/g) ?? [];
      const wellFormed = [...page.matchAll(/<(!doctype html|\/?[a-z][a-z0-9]*)((?: [a-z-]+(?:="[^"<>]*")?)*)>/g)];
      expect(wellFormed.length).toBe(tagStarts.length);
      const attributes = new Set(
        wellFormed.flatMap((m) => [...m[2]!.matchAll(/ ([a-z-]+)(?:="[^"]*")?/g)].map((a) => a[1]!)),
      );
      expect(attributes.size).toBeGreaterThan(0);
      expect([...attributes].filter((name) => /^on/.test(name) || !ALLOWED_ATTRIBUTES.includes(name))).toEqual([]);
      // No tag name outside the page's own vocabulary.
      const tags = new Set([...page.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)/g)].map((m) => m[1]!.toLowerCase()));
      const own = [
        'html',
        'head',
        'meta',
        'title',
        'style',
        'body',
        'main',
        'header',
        'p',
        'dl',
        'div',
        'dt',
        'dd',
        'time',
        'section',
        'h1',
        'h2',
        'h3',
        'h4',
        'table',
        'caption',
        'thead',
        'tbody',
        'tr',
        'th',
        'td',
        'span',
        'wbr',
        'article',
        'ul',
        'li',
        'code',
        'a',
        'ol',
        'strong',
        'form',
        'label',
        'select',
        'option',
        'output',
        'footer',
        'script',
      ];
      expect([...tags].filter((t) => !own.includes(t))).toEqual([]);
    });

    it('derives no class, colour or text from an unknown value, and no bad number reaches a style', () => {
      expect(page).not.toMatch(/class="[^"]*X/);
      expect(page).toContain('class="bar c-neutral"');
      const styles = [...page.matchAll(/ style="([^"]*)"/g)].map((m) => m[1]!);
      expect(styles.length).toBeGreaterThan(0);
      expect(
        styles.filter((style) => !/^(left:\d+\.\d\d%;width:max\(3px,\d+\.\d\d%\)|width:\d+\.\d\d%)$/.test(style)),
      ).toEqual([]);
      expect(page).not.toMatch(/NaN|Infinity/);
      // The unknown outcome reads as a failure with no known cause.
      expect(page).toContain(
        presentIncident({
          outcome: 'failed',
          sideEffects: 'unknown',
          factsComplete: true,
          missingFacts: [],
          attempts: 0,
          recoveredAttempts: 0,
        }).title,
      );
      // The Jaeger URL is escaped too; a trace id that is not 32 hex digits gets no link.
      expect(page).not.toContain('trace-link');
    });

    it('escapes the Jaeger URL in the link', () => {
      const linked = renderIncidentPage(report(), {
        generatedAt: AT,
        jaegerUrl: `http://127.0.0.1:16686/"><script>alert(3)</script>`,
      });
      expect(linked).toContain('href="http://127.0.0.1:16686/&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;/trace/');
      expect(linked.match(/<script/g)).toHaveLength(1);
    });
  });

  it('stays usable with 1000 incidents: a few megabytes, growing linearly with the incidents', () => {
    const incidents = (n: number) =>
      Array.from({ length: n }, (_, i) =>
        run({ traceId: i.toString(16).padStart(32, '0'), spanId: i.toString(16).padStart(16, '0') }),
      );
    const page = renderIncidentPage(report({ runs: 5000, incidents: incidents(1000), incidentsOmitted: 200 }), {
      generatedAt: AT,
      jaegerUrl: 'http://127.0.0.1:16686',
    });
    const tenth = renderIncidentPage(report({ runs: 5000, incidents: incidents(100), incidentsOmitted: 200 }), {
      generatedAt: AT,
      jaegerUrl: 'http://127.0.0.1:16686',
    });
    expect(page.match(/<article /g)).toHaveLength(1000);
    expect(page.match(/class="trace-link"/g)).toHaveLength(1000);
    // About 4 kB per incident; ten times the incidents is about ten times the page (time is measured by
    // benches, not asserted here).
    expect(page.length).toBeLessThan(10_000_000);
    expect(page.length / tenth.length).toBeGreaterThan(8);
    expect(page.length / tenth.length).toBeLessThan(11);
  });
});

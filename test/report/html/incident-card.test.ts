/** One listed incident on the report page (src/report/html/incident-card.ts): presented text, badges, trace link, details and timeline. */
import { describe, expect, it } from 'vitest';
import { presentIncident } from '../../../src/presentation/present-incident.js';
import { incidentCard } from '../../../src/report/html/incident-card.js';
import { escapeHtml } from '../../../src/report/html/markup.js';
import type { ReportRun, TimelineItem } from '../../../src/report/report-model.js';
import { INTERRUPTED_TOOL, interruptedToolRun, timelineItem } from '../report-fixtures.js';

const TRACE = '4BF92F3577B34DA6A3CE929D0E0E4736';

function tool(over: Partial<TimelineItem>): TimelineItem {
  return timelineItem({
    kind: 'tool',
    name: 'execute_tool bash',
    spanId: 'b000000000000001',
    durationMillis: 10,
    ...over,
  });
}

function run(over: Partial<ReportRun> = {}): ReportRun {
  return interruptedToolRun({
    traceId: TRACE,
    startUnixMillis: Date.parse('2026-11-26T04:59:00.250Z'),
    timeline: [
      { ...tool({ kind: 'attempt', name: 'chat m', spanId: 'a1' }) },
      tool({ spanId: 't1', sideEffects: 'unsafe' }),
      tool({ spanId: 't2', sideEffects: 'read_only' }),
    ],
    ...over,
  });
}

/** The [term, definition] pairs of the card's details. */
function meta(card: string): [string, string][] {
  return [...card.matchAll(/<div(?: class="trace")?><dt>([^<]*)<\/dt><dd>(.*?)<\/dd><\/div>/g)].map((m) => [
    m[1]!,
    m[2]!,
  ]);
}

describe('incidentCard', () => {
  it('says what presentIncident says of the run, with its severity, id and filter data', () => {
    const card = incidentCard(run(), 0, undefined, undefined).value;
    const text = presentIncident({
      ...INTERRUPTED_TOOL,
      factsComplete: true,
      missingFacts: [],
      attempts: 1,
      recoveredAttempts: 0,
    });
    expect(
      card.startsWith(
        `<article class="incident sev-${text.severity}" id="incident-1" aria-labelledby="incident-1-title" data-cause="tool_execution_interrupted" data-phase="tool_execution" data-safety="ask_user_before_retry">`,
      ),
    ).toBe(true);
    expect(card).toContain(`<h3 id="incident-1-title" lang="en">${escapeHtml(text.title)}</h3>`);
    expect(card).toContain(`<p class="message" lang="en">${escapeHtml(text.message)}</p>`);
    expect(card).toContain(
      `<p class="action" lang="en"><strong>What to do:</strong> ${escapeHtml(text.suggestedAction)}</p>`,
    );
  });

  it('writes the verdict as badges, the cause with its detail, side effects only when not none', () => {
    const card = incidentCard(run({ causeDetail: 'x_y' }), 0, undefined, undefined).value;
    const badges = [...card.matchAll(/<li class="badge([^"]*)"><span class="k">([^<]*)<\/span> (.*?)<\/li>/g)].map(
      (m) => [m[2], m[1], m[3]],
    );
    expect(badges).toEqual([
      ['outcome', ' c-bad', 'failed'],
      ['cause', '', 'tool_<wbr>execution_<wbr>interrupted(x_<wbr>y)'],
      ['phase', '', 'tool_<wbr>execution'],
      ['retry', ' c-warn', 'ask_<wbr>user_<wbr>before_<wbr>retry'],
      ['because', '', 'unsafe_<wbr>side_<wbr>effect_<wbr>started'],
      ['side effects', ' c-warn', 'unsafe'],
    ]);
    const quiet = incidentCard(run({ sideEffects: 'none', retrySafetyReason: undefined }), 0, undefined, undefined);
    expect(quiet.value).not.toContain('<span class="k">side effects</span>');
    expect(quiet.value).not.toContain('<span class="k">because</span>');
    const readOnly = incidentCard(run({ sideEffects: 'read_only' }), 0, undefined, undefined);
    expect(readOnly.value).toContain('<li class="badge"><span class="k">side effects</span> read_<wbr>only</li>');
  });

  it('lists the details that are known, the start in UTC and the tool calls with side effects', () => {
    expect(meta(incidentCard(run(), 2, undefined, undefined).value)).toEqual([
      ['Trace', `<code class="trace-id">${TRACE}</code>`],
      ['Agent', 'demo-agent'],
      ['Provider', 'openai'],
      ['Service', 'checkout'],
      ['Started', '<time datetime="2026-11-26T04:59:00.250Z">2026-11-26 04:59:00 UTC</time>'],
      ['Duration', '1.5 s'],
      ['Verdict', 'recorded in the file'],
      ['Tool calls with side effects', '1'],
    ]);
  });

  it.each<[string, Partial<ReportRun>, [string, string][]]>([
    [
      'a folded run with no span end, no names and no start',
      {
        source: 'folded',
        durationMillis: undefined,
        agentName: undefined,
        provider: '',
        serviceName: undefined,
        startUnixMillis: undefined,
        timeline: [],
        traceId: '',
      },
      [
        ['Trace', '<code class="trace-id">none</code>'],
        ['Duration', 'never ended'],
        ['Verdict', 'judged by this report from its spans'],
      ],
    ],
    [
      'a start that is not a date',
      { startUnixMillis: 9e15, timeline: [], agentName: undefined, provider: undefined, serviceName: undefined },
      [
        ['Trace', `<code class="trace-id">${TRACE}</code>`],
        ['Duration', '1.5 s'],
        ['Verdict', 'recorded in the file'],
      ],
    ],
    [
      'a run that lost attempts says what they used, a floor as "at least"',
      {
        timeline: [],
        agentName: undefined,
        provider: undefined,
        serviceName: undefined,
        lost: { attempts: 2, inputTokens: 2700, outputTokens: 80, costUsd: 0.004, lowerBound: true },
      },
      [
        ['Trace', `<code class="trace-id">${TRACE}</code>`],
        ['Started', '<time datetime="2026-11-26T04:59:00.250Z">2026-11-26 04:59:00 UTC</time>'],
        ['Duration', '1.5 s'],
        ['Verdict', 'recorded in the file'],
        ['Lost', '2 attempts: at least 2,700 input and 80 output tokens, $0.0040'],
      ],
    ],
  ])('leaves out what is not known: %s', (_, over, pairs) => {
    expect(meta(incidentCard(run(over), 0, undefined, undefined).value)).toEqual(pairs);
  });

  it.each<[string, string | undefined, string, string | undefined]>([
    [
      'links a 32-digit trace id, lower-cased, when a Jaeger URL is given',
      'http://j:16686',
      TRACE,
      `http://j:16686/trace/${TRACE.toLowerCase()}`,
    ],
    ['does not link without a Jaeger URL', undefined, TRACE, undefined],
    ['does not link a trace id that is not 32 hex digits', 'http://j', 'not-a-trace"><script>', undefined],
  ])('%s', (_, jaeger, traceId, href) => {
    const card = incidentCard(run({ traceId }), 0, jaeger, undefined).value;
    const link = /<a class="trace-link" href="([^"]*)" rel="noreferrer">Open in Jaeger<\/a>/.exec(card)?.[1];
    expect(link).toBe(href);
    expect(card).not.toContain('<script>');
  });

  it('reads only closed values: free text in a field is shown escaped but never reaches the presented text', () => {
    const odd = run({ cause: '<b>boom</b>', causeDetail: undefined, outcome: 'weird', retrySafety: 'maybe' });
    const card = incidentCard(odd, 0, undefined, undefined).value;
    const text = presentIncident({
      outcome: 'failed',
      phase: 'tool_execution',
      retrySafetyReason: 'unsafe_side_effect_started',
      sideEffects: 'unsafe',
      factsComplete: true,
      missingFacts: [],
      attempts: 1,
      recoveredAttempts: 0,
    });
    expect(card).toContain(`<h3 id="incident-1-title" lang="en">${escapeHtml(text.title)}</h3>`);
    expect(card).toContain('data-cause="&lt;b&gt;boom&lt;/b&gt;"');
    expect(card).toContain('<span class="k">outcome</span> weird</li>');
    expect(card).not.toContain('<b>');
  });

  it('writes the presented text in the asked locale and marks its language', () => {
    const card = incidentCard(run(), 0, undefined, 'zh-CN').value;
    const zh = presentIncident(
      {
        ...INTERRUPTED_TOOL,
        factsComplete: true,
        missingFacts: [],
        attempts: 1,
        recoveredAttempts: 0,
      },
      { locale: 'zh-CN' },
    );
    expect(card).toContain(`<h3 id="incident-1-title" lang="zh-CN">${escapeHtml(zh.title)}</h3>`);
    expect(card).toContain(`<p class="message" lang="zh-CN">${escapeHtml(zh.message)}</p>`);
  });

  it('ends with the run timeline, headed by an id of its own', () => {
    const card = incidentCard(run(), 4, undefined, undefined).value;
    expect(card).toContain('<h4 id="incident-5-timeline" class="tl-heading">');
    expect(card).toContain('data-span-id="t1"');
    expect(card.endsWith('</div>\n</article>')).toBe(true);
  });
});

/** The run timeline on the report page (src/report/html/timeline.ts): durations as read, the time scale, and each item as bar and text. */
import { describe, expect, it } from 'vitest';
import {
  formatMillis,
  hasSideEffects,
  nonNegative,
  renderTimeline,
  timelineScale,
} from '../../../src/report/html/timeline.js';
import type { ReportRun, TimelineItem } from '../../../src/report/report-model.js';

function item(over: Partial<TimelineItem> = {}): TimelineItem {
  return {
    kind: 'attempt',
    name: 'chat m',
    spanId: 'a000000000000001',
    startOffsetMillis: 0,
    durationMillis: 100,
    status: 'ok',
    broke: false,
    ...over,
  };
}

/** A run of `timeline`; `durationMillis` null: its span never ended. */
function run(timeline: TimelineItem[], durationMillis: number | null = 1000): ReportRun {
  return {
    outcome: 'failed',
    traceId: 't',
    spanId: 's',
    source: 'file',
    durationMillis: durationMillis ?? undefined,
    timeline,
  };
}

describe('nonNegative', () => {
  it.each<[unknown, number]>([
    [5, 5],
    [0.25, 0.25],
    [0, 0],
    [-1, 0],
    [Number.NaN, 0],
    [Number.POSITIVE_INFINITY, 0],
    ['5', 0],
    [null, 0],
  ])('%j → %d', (value, n) => {
    expect(nonNegative(value)).toBe(n);
  });
});

describe('formatMillis', () => {
  it.each([
    [0, '0 ms'],
    [-20, '0 ms'],
    [Number.NaN, '0 ms'],
    [0.4237, '0.42 ms'],
    [9.99, '10 ms'],
    [850, '850 ms'],
    [999.4, '999 ms'],
    [1200, '1.2 s'],
    [9_940, '9.9 s'],
    [12_400, '12 s'],
    [60_000, '1 min'],
    [125_000, '2 min 5 s'],
    [3_600_000, '60 min'],
  ])('%d → %j', (ms, text) => {
    expect(formatMillis(ms)).toBe(text);
  });
});

describe('hasSideEffects', () => {
  it.each<[Partial<TimelineItem>, boolean]>([
    [{ kind: 'tool', sideEffects: 'unsafe' }, true],
    [{ kind: 'tool', sideEffects: 'unknown' }, true],
    [{ kind: 'tool', sideEffects: 'read_only' }, false],
    [{ kind: 'tool' }, false],
    [{ kind: 'attempt', sideEffects: 'unsafe' }, false],
  ])('%j → %s', (over, yes) => {
    expect(hasSideEffects(item(over))).toBe(yes);
  });
});

describe('timelineScale', () => {
  it.each<[string, TimelineItem[], number | null, number]>([
    ['the run duration when items end inside it', [item({ startOffsetMillis: 10, durationMillis: 50 })], 1000, 1000],
    ['the end of the last item past the run', [item({ startOffsetMillis: 900, durationMillis: 300 })], 1000, 1200],
    [
      'an open item late in the run gets room past its start',
      [item({ startOffsetMillis: 950, status: 'open', durationMillis: undefined })],
      1000,
      1045,
    ],
    [
      'an open item early in the run changes nothing',
      [item({ startOffsetMillis: 100, durationMillis: undefined })],
      1000,
      1000,
    ],
    ['an open item at 0 of an endless run is 1', [item({ status: 'open', durationMillis: undefined })], null, 1],
    ['nothing known is never 0', [], null, 1],
    ['bad numbers count as 0', [item({ startOffsetMillis: Number.NaN, durationMillis: -5 })], Number.NaN, 1],
  ])('%s', (_, timeline, duration, scale) => {
    expect(timelineScale(run(timeline, duration))).toBeCloseTo(scale, 9);
  });
});

describe('renderTimeline', () => {
  it('says so when the run has no attempts or tool calls', () => {
    expect(renderTimeline(run([]), 'h').value).toBe(
      '<p class="tl-empty">No attempts or tool calls of this run are in the input.</p>',
    );
  });

  it('heads the list with its counts and span, and places each bar on the run scale', () => {
    const out = renderTimeline(
      run([
        item({ spanId: 'a1', startOffsetMillis: 0, durationMillis: 250 }),
        item({
          spanId: 't1',
          kind: 'tool',
          name: 'execute_tool ls',
          startOffsetMillis: 500,
          durationMillis: 500,
          sideEffects: 'read_only',
        }),
      ]),
      'tl-1',
    ).value;
    expect(out).toContain(
      '<h4 id="tl-1" class="tl-heading">Timeline <span class="muted">· 1 attempt, 1 tool call, over 1.0 s</span></h4>',
    );
    expect(out).toContain('<ol class="tl" aria-labelledby="tl-1">');
    expect(out).toContain('<li class="tl-item tl-attempt is-ok" data-span-id="a1">');
    expect(out).toContain('style="left:0.00%;width:max(3px,25.00%)"');
    expect(out).toContain('<li class="tl-item tl-tool is-ok" data-span-id="t1">');
    expect(out).toContain('style="left:50.00%;width:max(3px,50.00%)"');
    expect(out).toContain('<span class="tl-time">+500 ms · 500 ms</span>');
    expect(out).toContain('<span>0</span><span>500 ms</span><span>1.0 s</span>');
    expect(out).not.toContain('tl-notes');
  });

  it('marks where it broke, side effects, a failure with its cause, and an open span', () => {
    const out = renderTimeline(
      run(
        [
          item({ spanId: 'a1', status: 'error', cause: 'rate_limited', durationMillis: 100 }),
          item({
            spanId: 't1',
            kind: 'tool',
            name: '',
            startOffsetMillis: 200,
            durationMillis: undefined,
            status: 'open',
            sideEffects: 'unsafe',
            broke: true,
          }),
        ],
        null,
      ),
      'h',
    ).value;
    expect(out).toContain('<li class="tl-item tl-attempt is-error" data-span-id="a1">');
    expect(out).toContain('<span class="mark mark-error">failed: <code>rate_limited</code></span>');
    expect(out).toContain('<li class="tl-item tl-tool is-open is-broke has-side-effects" data-span-id="t1">');
    expect(out).toContain('<span class="tl-name" title="span t1">(unnamed)</span>');
    expect(out).toContain('<span class="mark mark-broke">✕ broke here</span>');
    expect(out).toContain('<span class="mark mark-side se-unsafe">⚠ side effects: unsafe</span>');
    expect(out).toContain('<span class="mark mark-open">◌ never ended</span>');
    expect(out).toContain('<span class="tl-time">+200 ms · open</span>');
    expect(out).toContain('· 1 attempt, 1 tool call, over at least 200 ms</span>');
  });

  it('escapes names, causes and side-effect values from the file, and classes an unknown side effect as unknown', () => {
    const out = renderTimeline(
      run([item({ spanId: 'x', kind: 'tool', name: '<img>', status: 'error', cause: '"c"', sideEffects: '<s>' })]),
      'h',
    ).value;
    expect(out).toContain('>&lt;img&gt;</span>');
    expect(out).toContain('failed: <code>&quot;c&quot;</code>');
    expect(out).toContain('<span class="mark mark-side se-unknown">⚠ side effects: &lt;s&gt;</span>');
    expect(out).not.toContain('<img>');
  });
});

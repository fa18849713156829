/**
 * `agent-incidents report --html` in a real browser: the demo's OTLP/JSON
 * through the CLI into a page, opened from file:// in Debian's Chromium
 * (scripts/ci/install-chromium.sh) driven by playwright-core. It checks what a
 * user sees: the counts `report --json` gives, what each total counts, bars, the
 * tokens lost as `--json` sums them, a
 * timeline that says where the run broke, a link to the trace in Jaeger, that
 * the page fetched nothing, and the page of an empty input.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './support.js';

/** Debian's Chromium; $AGENT_INCIDENTS_CHROMIUM overrides it. */
const CHROMIUM = process.env.AGENT_INCIDENTS_CHROMIUM || '/usr/bin/chromium';
const JAEGER_URL = 'http://127.0.0.1:16686';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

type Counts = [string, number][];
interface CliCounts {
  runs: number;
  byOutcome: Counts;
  byCause: Counts;
  byPhase: Counts;
  byRetrySafety: Counts;
}

function cli(...args: string[]): string {
  return execFileSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
}

/** The counts `report --json` gives (the IncidentReport of docs/cli.md). */
function cliCounts(file: string): CliCounts {
  const report = JSON.parse(cli('report', file, '--json')) as CliCounts;
  return {
    runs: report.runs,
    byOutcome: report.byOutcome,
    byCause: report.byCause,
    byPhase: report.byPhase,
    byRetrySafety: report.byRetrySafety,
  };
}

/** The rows of a chart as the user reads them: label text and the number shown. */
async function chartCounts(page: Page, id: string): Promise<Counts> {
  const rows = page.locator(`#${id} tbody tr`);
  const out: Counts = [];
  for (const row of await rows.all()) {
    expect(await row.isVisible()).toBe(true);
    const label = (await row.locator('th').innerText()).trim();
    const count = Number((await row.locator('td.num').innerText()).replace(/,/g, ''));
    out.push([label === 'none' ? '' : label, count]);
  }
  return out;
}

describe('report --html in a browser', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-incidents-html-'));
  const input = join(dir, 'x.jsonl');
  const output = join(dir, 'out.html');
  let context: BrowserContext | undefined;
  let counts: CliCounts;
  const requests: string[] = [];
  const problems: string[] = [];
  let page: Page;
  let started = 0;

  beforeAll(async () => {
    started = performance.now();
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium not found at ${CHROMIUM}: run scripts/ci/install-chromium.sh (apt-get install -y chromium), or set AGENT_INCIDENTS_CHROMIUM.`,
      );
    }
    cli('demo', '--runs', '200', '--out', input);
    const help = cli('report', '--help');
    if (!help.includes('--html') || !help.includes('--json'))
      throw new Error('`agent-incidents report` has no --html or --json option (src/cli/program.ts).');
    cli('report', input, '--html', output, '--jaeger-url', JAEGER_URL);
    counts = cliCounts(input);
    context = await chromium.launchPersistentContext(join(dir, 'user-data'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      viewport: { width: 1280, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(pathToFileURL(output).href);
  });

  afterAll(async () => {
    await context?.close();
    console.log(
      `report-html: page ${statSync(output, { throwIfNoEntry: false })?.size ?? 0} bytes, browser test ${Math.round(performance.now() - started)} ms, screenshots in ${dir}`,
    );
    if (process.env.AGENT_INCIDENTS_KEEP_HTML !== '1') rmSync(dir, { recursive: true, force: true });
  });

  it('shows the totals and the counts report --json gives, in its order', async () => {
    expect(await page.title()).toMatch(/^Incident report/);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toMatch(new RegExp(`in ${counts.runs} runs$`));
    expect(Number(await page.locator('[data-total="runs"]').innerText())).toBe(counts.runs);
    const incidents = counts.byOutcome.filter(([o]) => o !== 'success').reduce((s, [, n]) => s + n, 0);
    expect(Number(await page.locator('[data-total="incidents"]').innerText())).toBe(incidents);
    expect(await chartCounts(page, 'chart-outcome')).toEqual(counts.byOutcome);
    expect(await chartCounts(page, 'chart-cause')).toEqual(counts.byCause);
    expect(await chartCounts(page, 'chart-phase')).toEqual(counts.byPhase);
    expect(await chartCounts(page, 'chart-retry-safety')).toEqual(counts.byRetrySafety);
  });

  it('explains under each total what it counts, "Judged by this report" too', async () => {
    const tile = page.locator('#totals > div', { has: page.locator('dt', { hasText: 'Judged by this report' }) });
    expect(await tile.locator('[data-total="folded"]').isVisible()).toBe(true);
    const caption = tile.locator('dd.explain');
    expect(await caption.isVisible()).toBe(true);
    expect(await caption.innerText()).toBe(
      "runs with no verdict in the file (exported without the agent-incidents processor or gateway), judged here from their spans; the rest kept the processor's or the gateway's verdict",
    );
    // Inside its tile, not spilling out of it.
    const [outer, inner] = await Promise.all([tile.boundingBox(), caption.boundingBox()]);
    expect(inner!.y + inner!.height).toBeLessThanOrEqual(outer!.y + outer!.height);
    expect(await page.locator('#totals dd.explain:visible').count()).toBe(4);
  });

  it('draws the charts as visible bars, the most frequent the longest', async () => {
    const bars = page.locator('#chart-cause .bar');
    expect(await bars.count()).toBe(counts.byCause.length);
    const widths = await bars.evaluateAll((els) => els.map((el) => el.getBoundingClientRect().width));
    expect(widths.every((w) => w > 0)).toBe(true);
    expect(widths[0]).toBe(Math.max(...widths));
    // The table is labelled for a screen reader.
    await expect(page.getByRole('table', { name: /By cause/ }).isVisible()).resolves.toBe(true);
  });

  it('shows the tokens lost by cause and by retry safety as report --json sums them, a floor marked', async () => {
    interface Figures {
      runs: number;
      attempts: number;
      inputTokens: number;
      outputTokens: number;
      lowerBound: boolean;
    }
    type Group = Figures & { value: string };
    const { lost } = JSON.parse(cli('report', input, '--json')) as {
      lost: { total: Figures; byCause: Group[]; byRetrySafety: Group[] };
    };
    expect(lost.total.runs).toBeGreaterThan(0);
    const heading = page.getByRole('heading', { level: 2, name: 'Tokens lost' });
    await heading.scrollIntoViewIfNeeded();
    expect(await heading.isVisible()).toBe(true);
    /** A row as the user reads it: label, runs, attempts, input and output tokens, and whether a figure says ≥. */
    const read = async (row: ReturnType<Page['locator']>) => {
      const label = (await row.locator('th').innerText()).trim();
      const cells = await row.locator('td').allInnerTexts();
      const n = (text: string) => Number(text.replace(/[^\d]/g, ''));
      return [
        label === 'none' ? '' : label,
        n(cells[0]!),
        n(cells[1]!),
        n(cells[2]!),
        n(cells[3]!),
        cells[2]!.startsWith('≥'),
      ];
    };
    const expected = (g: Figures, value: string) => [
      value,
      g.runs,
      g.attempts,
      g.inputTokens,
      g.outputTokens,
      g.lowerBound,
    ];
    for (const [id, groups] of [
      ['lost-cause', lost.byCause],
      ['lost-retry-safety', lost.byRetrySafety],
    ] as const) {
      const table = page.getByRole('table', { name: id === 'lost-cause' ? /^Lost by cause/ : /^Lost by retry safety/ });
      expect(await table.isVisible()).toBe(true);
      const rows = [];
      for (const row of await page.locator(`#${id} tbody tr`).all()) rows.push(await read(row));
      expect(rows).toEqual(groups.map((g) => expected(g, g.value)));
      expect(await read(page.locator(`#${id} tfoot tr`))).toEqual(expected(lost.total, 'Total'));
    }
    // The demo's runs report no usage: every figure is a floor, and the page says why.
    expect(await page.locator('#lost-floor').isVisible()).toBe(lost.total.lowerBound);
    await page.locator('#lost').screenshot({ path: join(dir, 'lost.png') });
  });

  it('shows an incident with its message and a timeline that marks where it broke', async () => {
    const card = page.locator('article.incident:has(.tl-item.is-broke)').first();
    const broke = card.locator('.tl-item.is-broke').first();
    await broke.scrollIntoViewIfNeeded();
    expect(await broke.isVisible()).toBe(true);
    expect(await broke.innerText()).toContain('broke here');
    const bar = await broke.locator('.tl-bar').boundingBox();
    expect(bar?.width ?? 0).toBeGreaterThan(0);
    expect((await card.locator('h3').innerText()).length).toBeGreaterThan(0);
    expect(await card.locator('.action').innerText()).toMatch(/^What to do: \S/);
    expect(await card.getByRole('list', { name: /Timeline/ }).isVisible()).toBe(true);
    await page.screenshot({ path: join(dir, 'incident.png') });
  });

  it('links each trace to Jaeger', async () => {
    const link = page.locator('a.trace-link').first();
    expect(await link.isVisible()).toBe(true);
    expect(await link.innerText()).toBe('Open in Jaeger');
    expect(await link.getAttribute('href')).toMatch(/^http:\/\/127\.0\.0\.1:16686\/trace\/[0-9a-f]{32}$/);
    expect(await page.locator('a.trace-link').count()).toBe(await page.locator('article.incident').count());
  });

  it('filters the list by cause (the page script runs under its own CSP)', async () => {
    const [cause, n] = counts.byCause[0]!;
    const listed = await page.locator(`article.incident[data-cause="${cause}"]`).count();
    expect(listed).toBeGreaterThan(0);
    expect(listed).toBeLessThanOrEqual(n);
    await page.locator('select[name="cause"]').selectOption(cause);
    expect(await page.locator('article.incident:visible').count()).toBe(listed);
    expect(await page.locator('#filter-count').innerText()).toMatch(new RegExp(`^Showing ${listed} of \\d+$`));
    await page.locator('select[name="cause"]').selectOption('*');
  });

  it('made no network request and logged no error', async () => {
    await page.screenshot({ path: join(dir, 'page.png') });
    expect(requests).toEqual([pathToFileURL(output).href]);
    expect(problems).toEqual([]);
  });

  it('reads the same without JavaScript: every incident shown, the filters left out', async () => {
    const plain = await chromium.launchPersistentContext(join(dir, 'user-data-no-js'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      javaScriptEnabled: false,
    });
    try {
      const other = plain.pages()[0] ?? (await plain.newPage());
      await other.goto(pathToFileURL(output).href);
      const all = await other.locator('article.incident').count();
      expect(all).toBeGreaterThan(0);
      expect(await other.locator('article.incident:visible').count()).toBe(all);
      expect(await other.locator('#filters').isVisible()).toBe(false);
      expect(await other.locator('.tl-item.is-broke').first().isVisible()).toBe(true);
      expect(await other.locator('#folded-explained').isVisible()).toBe(true);
    } finally {
      await plain.close();
    }
  });

  it('says an empty input has no spans, naming it, instead of drawing empty charts', async () => {
    const empty = join(dir, 'empty.jsonl');
    const emptyPage = join(dir, 'empty.html');
    writeFileSync(empty, '');
    const run = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'report', empty, '--html', emptyPage], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
      status: 0,
      stdout: `wrote ${emptyPage}\n`,
      stderr: `agent-incidents report: no spans in ${empty} (it is empty)\n`,
    });
    const other = await context!.newPage();
    const fetched: string[] = [];
    other.on('request', (request) => fetched.push(request.url()));
    try {
      await other.goto(pathToFileURL(emptyPage).href);
      expect(await other.title()).toBe('Incident report · no spans');
      expect(await other.getByRole('heading', { level: 1 }).innerText()).toBe(`No spans in ${empty}`);
      expect(await other.locator('.lede').innerText()).toMatch(
        /^The input is empty: there are no runs to count and no incidents to show\./,
      );
      expect(await other.locator('#no-spans').isVisible()).toBe(true);
      expect(await other.locator('table, .chart, #totals, article').count()).toBe(0);
      expect(fetched).toEqual([pathToFileURL(emptyPage).href]);
      await other.screenshot({ path: join(dir, 'empty.png') });
    } finally {
      await other.close();
    }
  });
});

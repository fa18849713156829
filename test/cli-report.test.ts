/**
 * `agent-incidents report` on real files, as users run it: the built
 * dist/cli.js in a child process (run `npm run build` first), reading files,
 * stdin and gzip, with OTLP/JSON exported without the processor, by the
 * processor and by the gateway.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { IncidentReport } from '../src/report/report-model.js';
import {
  dropsAfterBash,
  dropsAfterBashUsing,
  fixtureLines,
  gateway,
  isRunSpan,
  lineOf,
  readsThenAnswers,
  recordRun,
} from './report/otlp-lines.js';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const dir = mkdtempSync(join(tmpdir(), 'ai-report-cli-'));
let files = 0;

/** Writes `content` to a fresh file in the scratch folder. */
function file(content: string | Buffer, name = `in-${(files += 1)}.jsonl`): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** Runs the CLI with `args`, `stdin` piped in (an empty pipe when not given). */
function cli(args: string[], stdin?: string | Buffer): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

async function json(args: string[], stdin?: string | Buffer): Promise<IncidentReport> {
  const result = await cli([...args, '--json'], stdin);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as IncidentReport;
}

/** Lines of other traces (processor-judged successes), to put distance between the parts of one trace. */
async function filler(n: number): Promise<string[]> {
  const line = lineOf(await recordRun(readsThenAnswers, { processor: true }));
  const traceId = (JSON.parse(line) as { resourceSpans: { scopeSpans: { spans: { traceId: string }[] }[] }[] })
    .resourceSpans[0]!.scopeSpans[0]!.spans[0]!.traceId;
  // The same trace under fresh trace ids: n distinct traces.
  return Array.from({ length: n }, (_, i) => line.replaceAll(traceId, `f${(i + 1).toString(16).padStart(31, '0')}`));
}

describe('report folds traces exported without the processor and says how many', () => {
  it('the recorded fixtures (AI SDK 6, AI SDK 7, OpenInference): every run judged here, the count printed', async () => {
    const lines = fixtureLines();
    const path = file(lines.join('\n') + '\n');
    const table = await cli(['report', path]);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(`${lines.length} runs`);
    expect(table.stdout).toContain(
      `${lines.length} of ${lines.length} runs carried no verdict (exported without the processor or the gateway) and were judged here from their spans.`,
    );
    const report = await json(['report', path]);
    expect(report).toMatchObject({
      runs: lines.length,
      folded: lines.length,
      input: { lines: lines.length, traces: lines.length },
    });
    expect(report.incidents.every((r) => r.source === 'folded')).toBe(true);
    expect(report.incidents.map((r) => r.serviceName)).toContain('ai-sdk-7-recorder');
  });

  it('a raw RunRecorder trace gets the verdict the processor would have written', async () => {
    const raw = await json(['report', file(lineOf(await recordRun(dropsAfterBash)))]);
    const judged = await json(['report', file(lineOf(await recordRun(dropsAfterBash, { processor: true })))]);
    expect(raw.folded).toBe(1);
    expect(judged.folded).toBe(0);
    const pick = (r: IncidentReport) => ({
      ...r.incidents[0],
      traceId: undefined,
      spanId: undefined,
      source: undefined,
      startUnixMillis: undefined,
      durationMillis: undefined,
      timeline: undefined,
    });
    expect(pick(raw)).toEqual(pick(judged));
    expect(raw.incidents[0]).toMatchObject({
      outcome: 'failed',
      cause: 'provider_transport_disconnect',
      sideEffects: 'unsafe',
      agentName: 'test-agent',
      serviceName: 'report-test',
    });
  });
});

describe('a crash verdict the gateway wrote on a chat span counts once', () => {
  const cases = [
    { name: 'the run span never came', late: 'none', gap: 0 },
    { name: 'the run span came later and the gateway judged it again (fail-closed)', late: 'gateway', gap: 0 },
    { name: 'the run span came later, judged again, 50 lines apart with a 10-line window', late: 'gateway', gap: 50 },
    { name: 'the run span came later without a verdict', late: 'raw', gap: 0 },
  ] as const;
  it.each(cases)('$name', async ({ late, gap }) => {
    const spans = await recordRun(dropsAfterBash);
    const judge = gateway();
    const first = judge(spans.filter((s) => !isRunSpan(s)));
    const chat = (
      JSON.parse(first) as {
        resourceSpans: { scopeSpans: { spans: { name: string; spanId: string; attributes: { key: string }[] }[] }[] }[];
      }
    ).resourceSpans
      .flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))
      .filter((s) => s.attributes.some((a) => a.key === 'incident.outcome'));
    // How the gateway marks it: `incident.outcome` on the topmost span that came, a chat span here.
    expect(chat.map((s) => s.name)).toEqual(['chat gpt-test']);
    const lines = [first, ...(await filler(gap))];
    if (late === 'gateway') lines.push(judge(spans.filter(isRunSpan)));
    if (late === 'raw') lines.push(lineOf(spans.filter(isRunSpan)));
    const report = await json(['report', file(lines.join('\n')), '--idle-lines', '10']);
    expect(report.runs).toBe(1 + gap);
    const crash = report.incidents.filter((r) => r.outcome !== 'success');
    expect(crash).toHaveLength(1);
    // The run failed before it died: the gateway keeps that cause, judged incomplete (its end never came).
    expect(crash[0]).toMatchObject({
      outcome: 'incomplete',
      cause: 'provider_transport_disconnect',
      source: 'file',
      spanId: chat[0]!.spanId,
    });
    expect(report.folded).toBe(0);
  });
});

describe('report reads files, stdin and gzip', () => {
  const text = () => fixtureLines().slice(0, 6).join('\n') + '\n';
  const cases: { name: string; run: () => Promise<IncidentReport> }[] = [
    { name: 'a file', run: () => json(['report', file(text())]) },
    { name: '`-`: stdin', run: () => json(['report', '-'], text()) },
    { name: 'no file, stdin piped', run: () => json(['report'], text()) },
    {
      name: 'gzip named .jsonl (found by its magic bytes)',
      run: () => json(['report', file(gzipSync(text()), 'not-named-gz.jsonl')]),
    },
    { name: 'gzip named .gz', run: () => json(['report', file(gzipSync(text()), 'export.jsonl.gz')]) },
    { name: 'gzip on stdin', run: () => json(['report', '-'], gzipSync(text())) },
    { name: 'CRLF line ends', run: () => json(['report', file(text().replaceAll('\n', '\r\n'))]) },
  ];
  it.each(cases)('$name gives the same report', async ({ run }) => {
    const report = await run();
    expect(report).toEqual(await json(['report', file(text())]));
    expect(report.runs).toBe(6);
  });
});

describe('a line that is not OTLP/JSON is named, exit code 2', () => {
  const good = () => fixtureLines()[0]!;
  const cases: { name: string; args: () => string[]; stdin?: () => string | Buffer; message: RegExp }[] = [
    { name: 'in a file', args: () => ['report', file(`${good()}\n\nnot json\n`)], message: /: line 3: not valid JSON/ },
    {
      name: 'on stdin',
      args: () => ['report', '-'],
      stdin: () => `${good()}\n{"spans":[]}\n`,
      message: /^agent-incidents: stdin: line 2: not an OTLP ExportTraceServiceRequest/,
    },
    {
      name: 'in gzip',
      args: () => ['report', file(gzipSync(`${good()}\n${good()}\n[1,\n`))],
      message: /: line 3: not valid JSON/,
    },
    {
      name: 'a truncated gzip',
      args: () => ['report', file(gzipSync(`${good()}\n`).subarray(0, 40))],
      message: /not valid gzip/,
    },
  ];
  it.each(cases)('$name', async ({ args, stdin, message }) => {
    const result = await cli(args(), stdin?.());
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });
});

describe('--json', () => {
  it('prints the IncidentReport with stable keys', async () => {
    const path = file([...fixtureLines(), lineOf(await recordRun(dropsAfterBash, { processor: true }))].join('\n'));
    const report = await json(['report', path, '--limit', '5']);
    expect(Object.keys(report)).toEqual([
      'runs',
      'folded',
      'byOutcome',
      'byCause',
      'byPhase',
      'byRetrySafety',
      'byKind',
      'lost',
      'incidents',
      'incidentsOmitted',
      'input',
      'window',
    ]);
    expect(report.incidents).toHaveLength(5);
    const incidents = report.byOutcome.filter(([o]) => o !== 'success').reduce((sum, [, n]) => sum + n, 0);
    expect(report.incidentsOmitted).toBe(incidents - 5);
    expect(report.byKind.reduce((sum, k) => sum + k.runs, 0)).toBe(incidents);
    for (const counts of [report.byOutcome, report.byCause, report.byPhase, report.byRetrySafety]) {
      for (const [value, n] of counts) expect([typeof value, typeof n]).toEqual(['string', 'number']);
    }
    expect(Object.keys(report.window)).toEqual([
      'maxSpans',
      'idleLines',
      'tracesJudgedEarly',
      'runsJudgedEarly',
      'tracesSeenAgain',
    ]);
    const all = await json(['report', path]);
    const run = all.incidents.find((r) => r.source === 'file')!;
    expect(run).toMatchObject({
      outcome: 'failed',
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
      spanId: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    // The timeline: both attempts and the tool, in start order; the second attempt is where it broke.
    expect(run.timeline.map((t) => [t.kind, t.status, t.broke])).toEqual([
      ['attempt', 'ok', false],
      ['tool', 'ok', false],
      ['attempt', 'error', true],
    ]);
    expect(run.timeline[1]).toMatchObject({ name: 'execute_tool bash', sideEffects: 'unsafe' });
    expect(run.timeline[2]).toMatchObject({ cause: 'provider_transport_disconnect' });
    for (let i = 1; i < run.timeline.length; i += 1)
      expect(run.timeline[i]!.startOffsetMillis).toBeGreaterThanOrEqual(run.timeline[i - 1]!.startOffsetMillis);
  });
});

describe('what incidents cost (docs/cli.md#lost-usage)', () => {
  it('sums the lost tokens and cost of runs with and without usage, a floor and a run folded here, by cause and retry safety', async () => {
    const path = file(
      [
        // The processor's verdicts: every attempt reported usage; the dropped attempt reported input only; no usage at all.
        lineOf(await recordRun(dropsAfterBashUsing(true), { processor: true })),
        lineOf(await recordRun(dropsAfterBashUsing(false), { processor: true })),
        lineOf(await recordRun(dropsAfterBash, { processor: true })),
        // No verdict in the file: judged here, from the same usage.
        lineOf(await recordRun(dropsAfterBashUsing(true))),
        // A success lost nothing.
        lineOf(await recordRun(readsThenAnswers, { processor: true })),
      ].join('\n'),
    );
    const report = await json(['report', path]);
    expect([report.runs, report.folded]).toEqual([5, 1]);
    const total = {
      runs: 4,
      attempts: 8,
      inputTokens: 8100,
      outputTokens: 320,
      costUsd: 0.024,
      costRuns: 3,
      lowerBoundRuns: 2,
      lowerBound: true,
    };
    expect(report.lost).toEqual({
      total,
      byCause: [{ value: 'provider_transport_disconnect', ...total }],
      byRetrySafety: [{ value: 'offer_continue', ...total }],
    });
    // Each run's own figures: the same from the file and from the fold.
    const exact = { attempts: 2, inputTokens: 2700, outputTokens: 120, costUsd: 0.01, lowerBound: false };
    expect(report.incidents.filter((r) => r.lost?.lowerBound === false).map((r) => [r.source, r.lost])).toEqual(
      expect.arrayContaining([
        ['file', exact],
        ['folded', exact],
      ]),
    );
    expect(report.incidents.filter((r) => r.lost === undefined)).toEqual([]);

    const table = await cli(['report', path]);
    expect(table.code).toBe(0);
    const lines = table.stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith('tokens lost to incidents'));
    expect(lines.slice(at, at + 8).map((l) => l.replace(/ {2,}/g, ' | '))).toEqual([
      'tokens lost to incidents | runs | attempts | input tokens | output tokens | cost',
      'by cause',
      ' | provider_transport_disconnect | 4 | 8 | ≥ 8,100 | ≥ 320 | ≥ $0.0240',
      'by retry safety',
      ' | offer_continue | 4 | 8 | ≥ 8,100 | ≥ 320 | ≥ $0.0240',
      'total | 4 | 8 | ≥ 8,100 | ≥ 320 | ≥ $0.0240',
      '≥ at least: 2 runs had an attempt that reported no usage (a cut stream often carries none) or facts that may be lost; 3 of 4 runs reported a cost.',
      '',
    ]);
  });

  it('no section when no run lost an attempt', async () => {
    const table = await cli(['report', file(lineOf(await recordRun(readsThenAnswers, { processor: true })))]);
    expect(table.stdout).not.toContain('tokens lost');
  });
});

describe('the table names each incident by trace id', () => {
  it('lists the most recent incidents with trace ids, and Jaeger links with --jaeger-url', async () => {
    const path = file(fixtureLines().join('\n'));
    const report = await json(['report', path]);
    const table = await cli(['report', path, '--show', '5', '--jaeger-url', 'http://127.0.0.1:16686/']);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(`Most recent 5 of ${report.incidents.length} incidents, most recent first`);
    for (const run of report.incidents.slice(0, 5)) {
      expect(table.stdout).toContain(run.traceId);
      expect(table.stdout).toContain(`http://127.0.0.1:16686/trace/${run.traceId}?uiFind=${run.spanId}`);
    }
    expect(table.stdout).not.toContain(report.incidents[5]!.traceId);
  });

  it('--html writes the page beside the table', async () => {
    const out = join(dir, 'report.html');
    const result = await cli(['report', file(fixtureLines().join('\n')), '--html', out]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`wrote ${out}`);
    expect(readFileSync(out, 'utf8')).toMatch(/^<!doctype html>/i);
  });
});

describe('spans of one trace spread over lines', () => {
  it('parts 200 lines apart (within --idle-lines) give one run with the verdict of the whole trace', async () => {
    const spans = await recordRun(dropsAfterBash);
    const whole = await json(['report', file(lineOf(spans))]);
    const parts = [lineOf(spans.filter((s) => !isRunSpan(s))), ...(await filler(200)), lineOf(spans.filter(isRunSpan))];
    const spread = await json(['report', file(parts.join('\n')), '--idle-lines', '500']);
    expect(spread.runs).toBe(201);
    expect(spread.folded).toBe(1);
    const run = spread.incidents.find((r) => r.outcome !== 'success');
    expect({ ...run, startUnixMillis: 0 }).toEqual({ ...whole.incidents[0], startUnixMillis: 0 });
    expect(spread.window).toMatchObject({ tracesJudgedEarly: 0, tracesSeenAgain: 0 });
  });

  it('a full window judges the waiting trace early, cautiously (never success), and says so', async () => {
    const spans = await recordRun(readsThenAnswers);
    // Children end and are exported before their run span: a small window judges the trace before it comes.
    const parts = [lineOf(spans.filter((s) => !isRunSpan(s))), ...(await filler(20)), lineOf(spans.filter(isRunSpan))];
    const path = file(parts.join('\n'));
    const roomy = await json(['report', path]);
    expect(roomy.byOutcome).toEqual([['success', 21]]);
    const tight = await json(['report', path, '--max-spans', '8']);
    expect(tight.runs).toBe(21);
    expect(tight.byOutcome).toEqual([
      ['success', 20],
      ['incomplete', 1],
    ]);
    expect(tight.window).toMatchObject({ maxSpans: 8, tracesJudgedEarly: 1, runsJudgedEarly: 1, tracesSeenAgain: 1 });
    const table = await cli(['report', path, '--max-spans', '8']);
    expect(table.stdout).toContain(
      '1 run in 1 trace was judged before its trace may have been complete (more than 8 spans held at once): judged as incomplete, never success',
    );
  });
});

describe('an input with no span says so (exit code 0: an idle export is empty, not wrong)', () => {
  const NO_SPAN_REQUESTS =
    '{"resourceSpans":[]}\n{"resourceSpans":[{"resource":{},"scopeSpans":[{"scope":{},"spans":[]}]}]}\n';
  const cases: {
    name: string;
    input: () => { args: string[]; stdin?: string | Buffer; named: string };
    says: string;
  }[] = [
    {
      name: 'an empty file',
      input: () => {
        const path = file('');
        return { args: [path], named: path };
      },
      says: 'it is empty',
    },
    {
      name: 'a file of blank lines',
      input: () => {
        const path = file('\n  \n\r\n');
        return { args: [path], named: path };
      },
      says: '3 lines, none with a span',
    },
    { name: 'an empty stdin (`-`)', input: () => ({ args: ['-'], stdin: '', named: 'stdin' }), says: 'it is empty' },
    { name: 'an empty stdin (no file)', input: () => ({ args: [], stdin: '', named: 'stdin' }), says: 'it is empty' },
    {
      name: 'a gzip of nothing',
      input: () => {
        const path = file(gzipSync(''), 'nothing.jsonl.gz');
        return { args: [path], named: path };
      },
      says: 'it is empty',
    },
    {
      name: 'a gzip of nothing on stdin',
      input: () => ({ args: ['-'], stdin: gzipSync(''), named: 'stdin' }),
      says: 'it is empty',
    },
    {
      name: 'OTLP/JSON requests without spans',
      input: () => {
        const path = file(NO_SPAN_REQUESTS);
        return { args: [path], named: path };
      },
      says: '2 lines, none with a span',
    },
  ];
  it.each(cases)(
    '$name: one line on stderr, no table of zeros; --json still its report; --html a page that says so',
    async ({ input, says }) => {
      const { args, stdin, named } = input();
      const line = `agent-incidents report: no spans in ${named} (${says})\n`;
      expect(await cli(['report', ...args], stdin)).toEqual({ code: 0, stdout: '', stderr: line });
      const json = await cli(['report', ...args, '--json'], stdin);
      expect({ code: json.code, stderr: json.stderr }).toEqual({ code: 0, stderr: line });
      const report = JSON.parse(json.stdout) as IncidentReport;
      expect(report).toMatchObject({
        runs: 0,
        folded: 0,
        byOutcome: [],
        incidents: [],
        input: { spans: 0, traces: 0 },
      });
      const out = join(dir, `no-spans-${(files += 1)}.html`);
      expect(await cli(['report', ...args, '--html', out], stdin)).toEqual({
        code: 0,
        stdout: `wrote ${out}\n`,
        stderr: line,
      });
      const page = readFileSync(out, 'utf8');
      expect(page).toContain(`<h1>No spans in ${named}</h1>`);
      expect(page).not.toContain('class="chart"');
    },
  );

  it('a file with one span of no agent run: the count and why there is nothing to judge, in the singular', async () => {
    const span = {
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      name: 'GET /',
      kind: 2,
      startTimeUnixNano: '1',
      endTimeUnixNano: '2',
      attributes: [],
      status: {},
    };
    const path = file(
      `${JSON.stringify({ resourceSpans: [{ resource: {}, scopeSpans: [{ scope: {}, spans: [span] }] }] })}\n`,
    );
    expect(await cli(['report', path])).toEqual({
      code: 0,
      stdout: '0 runs\n\nNo agent run this report recognises in 1 span of 1 trace: nothing to judge.\n',
      stderr: '',
    });
  });

  it('a file of one run: `1 run`, `1 incident`, `1 line`, `1 trace`', async () => {
    const path = file(lineOf(await recordRun(dropsAfterBash)));
    const table = await cli(['report', path]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^1 run {2}failed 1\n/);
    expect(table.stdout).toContain('1 distinct cause, 1 distinct phase across 1 incident');
    expect(table.stdout).toContain(
      '1 of 1 run carried no verdict (exported without the processor or the gateway) and was judged here from its spans.',
    );
    const out = join(dir, 'one-run.html');
    await cli(['report', path, '--html', out]);
    const page = readFileSync(out, 'utf8');
    expect(page).toContain('<h1>1 incident in 1 run</h1>');
    expect(page).toMatch(/Read 1 line: \d+ spans in 1 trace\./);
  });
});

describe('a reader that stops early', () => {
  it('`report --json | head` ends quietly', async () => {
    // 2,000 incidents with their timelines: megabytes of JSON, more than a pipe holds.
    const line = lineOf(await recordRun(dropsAfterBash, { processor: true }));
    const traceId = /"traceId":"([0-9a-f]{32})"/.exec(line)![1]!;
    const path = file(
      Array.from({ length: 2000 }, (_, i) =>
        line.replaceAll(traceId, `e${(i + 1).toString(16).padStart(31, '0')}`),
      ).join('\n'),
    );
    const { stderr } = await new Promise<{ stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, 'report', path, '--json', '--limit', '2000'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      // Like `head -c 10`: read the first chunk, then close the pipe.
      child.stdout.once('data', () => child.stdout.destroy());
      child.on('error', reject);
      child.on('close', () => resolve({ stderr: err }));
    });
    expect(stderr).toBe('');
  });
});

describe('--version', () => {
  it("prints package.json's version", async () => {
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    for (const flag of ['--version', '-V']) {
      const result = await cli([flag]);
      expect(result).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
  });
});

/** `script` (util-linux) runs a command on a pseudo-terminal: stdin, stdout and stderr are a TTY. */
function onTerminal(command: string): string {
  return execFileSync('script', ['-qfec', command, '/dev/null'], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('terminals', () => {
  const hasScript = (() => {
    try {
      execFileSync('script', ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();

  it.runIf(hasScript)('report with no file and stdin on a terminal is a usage error', () => {
    let output = '';
    let code = 0;
    try {
      onTerminal(`${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} report`);
    } catch (error) {
      const e = error as { status: number; stdout: string };
      output = e.stdout;
      code = e.status;
    }
    expect(code).toBe(2);
    expect(output).toContain('agent-incidents: report: give an OTLP/JSON lines file, or pipe one in (`-` reads stdin)');
  });

  it.runIf(hasScript)('demo draws a progress bar on a terminal', () => {
    const out = join(dir, 'tty-demo.jsonl');
    // stdout to a file, so what the terminal shows is stderr alone.
    const shown = onTerminal(
      `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} demo --runs 1000 --out ${JSON.stringify(out)} > ${JSON.stringify(join(dir, 'tty-demo.out'))}`,
    );
    expect(shown).toMatch(/\r\[#*-+\] +\d+% [\d,]+\/1,000 runs/);
    expect(shown).toMatch(/\r\[#+\] 100% 1,000\/1,000 runs/);
    // Erased at the end, so the summary starts on a clean line.
    expect(shown.endsWith('\r\u001b[K')).toBe(true);
    expect(readFileSync(join(dir, 'tty-demo.out'), 'utf8')).toContain('1000 runs');
  });

  it('demo draws no progress when stderr is piped', async () => {
    const result = await cli(['demo', '--runs', '1000', '--out', join(dir, 'piped-demo.jsonl')]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).not.toContain('\r');
  });
});

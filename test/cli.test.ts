/**
 * The `agent-incidents` binary, run as users run it (built dist/cli.js in a
 * child process).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CAUSES, PHASES } from '../src/index.js';
import { runRowsFromOtlpJsonLines } from '../src/report/otlp-json.js';

const CLI = join(import.meta.dirname, '..', 'dist', 'cli.js');

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
    // An empty pipe: `report` with no file reads stdin when it is not a terminal.
    child.stdin?.end();
  });
}

describe('agent-incidents demo', () => {
  it('writes one OTLP ExportTraceServiceRequest per line and reaches at least 9 causes and every phase', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ai-demo-'));
    const out = join(dir, 'incidents.otlp.jsonl');
    const result = await run(['demo', '--out', out]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const text = await readFile(out, 'utf8');
    const lines = text.trim().split('\n');
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty('resourceSpans');
    const rows = runRowsFromOtlpJsonLines(text);
    expect(rows).toHaveLength(200);
    const causes = new Set(rows.map((r) => r.cause).filter(Boolean));
    const phases = new Set(rows.map((r) => r.phase).filter(Boolean));
    expect(causes.size).toBeGreaterThanOrEqual(9);
    expect([...causes].every((c) => (CAUSES as readonly string[]).includes(c!))).toBe(true);
    expect([...phases].sort()).toEqual([...PHASES].sort());
    expect(result.stdout).toContain('200 runs');
    expect(result.stdout).toContain(`to ${out}`);
  });

  it('prints the same table, and what the incidents cost, from the file with `report`', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ai-report-'));
    const out = join(dir, 'fleet.jsonl');
    const demo = await run(['demo', '--runs', '60', '--seed', '7', '--out', out]);
    const report = await run(['report', out]);
    expect(report.code).toBe(0);
    // The summary and what the incidents cost, as the demo printed them; then the most recent incidents by trace id.
    const printed = demo.stdout.split('\n\nwrote')[0]!;
    expect(printed).toContain('\n\ntokens lost to incidents ');
    expect(report.stdout.startsWith(`${printed.trim()}\n\nMost recent 20 of `)).toBe(true);
  });

  it('is reproducible for a seed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ai-seed-'));
    const a = await run(['demo', '--runs', '50', '--seed', '3', '--out', join(dir, 'a.jsonl')]);
    const b = await run(['demo', '--runs', '50', '--seed', '3', '--out', join(dir, 'b.jsonl')]);
    expect(a.stdout.split('\n\nwrote')[0]).toBe(b.stdout.split('\n\nwrote')[0]);
  });
});

describe('usage errors get one line and exit code 2', () => {
  const cases: Array<{ name: string; args: string[]; message: RegExp }> = [
    { name: 'an unknown flag', args: ['demo', '--bogus'], message: /unknown option '--bogus'/ },
    { name: 'a non-numeric --runs', args: ['demo', '--runs', 'many'], message: /--runs must be an integer/ },
    {
      name: 'a malformed --otlp-endpoint',
      args: ['demo', '--otlp-endpoint', 'not a url'],
      message: /expected an http\(s\) URL/,
    },
    { name: 'an unknown command', args: ['frobnicate'], message: /unknown command 'frobnicate'/ },
    {
      name: 'a missing report file',
      args: ['report', '/nonexistent/incidents.jsonl'],
      message: /cannot read \/nonexistent\/incidents.jsonl: ENOENT/,
    },
    {
      name: 'a negative --limit',
      args: ['report', '-', '--limit', '-1'],
      message: /--limit must be an integer from 0/,
    },
    {
      name: 'a malformed --jaeger-url',
      args: ['report', '-', '--jaeger-url', 'jaeger'],
      message: /expected an http\(s\) URL such as http:\/\/127.0.0.1:16686/,
    },
  ];
  it.each(cases)('$name', async ({ args, message }) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });

  it('a file that is not OTLP/JSON names the line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ai-bad-'));
    const file = join(dir, 'bad.jsonl');
    await writeFile(file, '{"resourceSpans":[]}\nnot json\n');
    const result = await run(['report', file]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      `agent-incidents: ${file}: line 2: not valid JSON (expected one OTLP ExportTraceServiceRequest per line)`,
    );
  });
});

describe('--otlp-endpoint', () => {
  it('exports the spans to a real OTLP/HTTP endpoint on loopback', async () => {
    const { createServer } = await import('node:http');
    const bodies: Buffer[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const dir = await mkdtemp(join(tmpdir(), 'ai-otlp-'));
    try {
      const result = await run([
        'demo',
        '--runs',
        '20',
        '--out',
        join(dir, 'x.jsonl'),
        '--otlp-endpoint',
        `http://127.0.0.1:${port}/v1/traces`,
      ]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`exported to http://127.0.0.1:${port}/v1/traces`);
      const received = bodies.map((b) => JSON.parse(b.toString('utf8')) as { resourceSpans: unknown[] });
      const rows = received.flatMap((r) => runRowsFromOtlpJsonLines(JSON.stringify(r)));
      expect(rows).toHaveLength(20);
    } finally {
      server.close();
    }
  });

  it('exits 1 with one line when the endpoint is unreachable, still writing the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ai-down-'));
    const out = join(dir, 'x.jsonl');
    const result = await run(['demo', '--runs', '5', '--out', out, '--otlp-endpoint', 'http://127.0.0.1:9/v1/traces']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/export to http:\/\/127.0.0.1:9\/v1\/traces failed/);
    expect((await readFile(out, 'utf8')).trim().split('\n')).toHaveLength(5);
  });
});

// Over 300 lines: one table per kind of answer of the command line (help, usage errors, report on files, demo,
// gateway and receive start-up failures), as docs/cli.md lists them.
/**
 * The command-line program (src/cli/program.ts), its real `main` run in-process on temp files, stdout and stderr
 * captured: docs/cli.md. Help and the version exit 0; every usage error (an unknown command or option, a bad
 * option value, a missing required option, no command) exits 2 with one line on stderr, before any command runs;
 * `report` reads a file into the table, `--json` or `--html`, says on stderr that an input holds no span (exit 0),
 * and names the file (and the line) it cannot read (exit 2); `demo` writes its file and exits 1 only when the
 * `--otlp-endpoint` export failed (the file still written); `gateway` and `receive` say in one line why they cannot
 * start (exit 2). The commands that run until a signal are run as users run them in test/cli-receive.test.ts and
 * test/gateway/gateway-cli.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diag } from '@opentelemetry/api';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main, packageVersion } from '../../src/cli/program.js';
import type { IncidentReport } from '../../src/report/report-model.js';
import { dropsAfterBash, lineOf, readsThenAnswers, recordRun } from '../report/otlp-lines.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-program-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
/** A fresh path in the scratch folder, written with `content` when given. */
function file(content?: string | Buffer, name = `f${(files += 1)}.jsonl`): string {
  const path = join(dir, name);
  if (content !== undefined) writeFileSync(path, content);
  return path;
}

beforeEach(() => {
  vi.stubEnv('NO_COLOR', '1');
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  // `gateway` sends diag to stderr for the life of the process; a test's process goes on.
  diag.disable();
});

/** Runs `main(args)` in this process; what it writes to stdout and stderr is kept, not shown. */
async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

/** A TCP port taken by a server of this test. */
async function takenPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server };
}

const VERSION = (
  JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

describe('help and version exit 0', () => {
  it('packageVersion reads the package’s own package.json', () => {
    expect(packageVersion()).toBe(VERSION);
  });

  it.each([['--version'], ['-V']])('%s prints the version', async (flag) => {
    expect(await run([flag])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it.each([
    [['--help'], ['Usage: agent-incidents', 'demo', 'report', 'gateway', 'receive']],
    [
      ['report', '--help'],
      ['Usage: agent-incidents report', '--json', '--max-spans <n>', '--idle-lines <n>'],
    ],
    [
      ['help', 'gateway'],
      ['Usage: agent-incidents gateway', '--config <file>'],
    ],
  ])('%j prints the help on stdout', async (args, names) => {
    const result = await run(args);
    expect([result.code, result.stderr]).toEqual([0, '']);
    for (const name of names) expect(result.stdout).toContain(name);
  });
});

describe('usage errors exit 2 with one line on stderr, before any command runs', () => {
  it.each([
    [['frobnicate'], "unknown command 'frobnicate'"],
    [['demo', '--bogus'], "unknown option '--bogus'"],
    [
      ['demo', '--runs', '0'],
      "option '--runs <n>' argument '0' is invalid. --runs must be an integer from 1 to 100000.",
    ],
    [['demo', '--runs', '1.5'], '--runs must be an integer from 1 to 100000.'],
    [['demo', '--runs', '100001'], '--runs must be an integer from 1 to 100000.'],
    [['demo', '--seed', 'x'], '--seed must be an integer from 1 to 2147483647.'],
    [
      ['demo', '--otlp-endpoint', 'ftp://h/v1/traces'],
      'expected an http(s) URL such as http://127.0.0.1:4318/v1/traces.',
    ],
    [['report', '-', '--limit', '-1'], '--limit must be an integer from 0 to 1000000.'],
    [['report', '-', '--show', 'all'], '--show must be an integer from 0 to 1000000.'],
    [['report', '-', '--max-spans', '0'], '--max-spans must be an integer from 1 to 100000000.'],
    [['report', '-', '--idle-lines', '100000001'], '--idle-lines must be an integer from 1 to 100000000.'],
    [['report', '-', '--jaeger-url', 'jaeger'], 'expected an http(s) URL such as http://127.0.0.1:16686.'],
    [['receive', '--port', '65536'], '--port must be an integer from 0 to 65535.'],
    [['gateway'], "required option '--config <file>' not specified"],
  ])('%j', async (args, message) => {
    const result = await run(args);
    expect([result.code, result.stdout]).toEqual([2, '']);
    expect(result.stderr.endsWith(`${message}\n`)).toBe(true);
    expect(result.stderr.startsWith('agent-incidents: ')).toBe(true);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('no command prints the help on stderr and exits 2', async () => {
    const result = await run([]);
    expect([result.code, result.stdout]).toEqual([2, '']);
    expect(result.stderr).toContain('Usage: agent-incidents [options] [command]');
  });
});

describe('report', () => {
  async function failedRunLine(): Promise<string> {
    return lineOf(await recordRun(dropsAfterBash, { processor: true }));
  }

  it('prints the summary table of a file, and --json the report itself', async () => {
    const input = file(`${await failedRunLine()}\n${lineOf(await recordRun(readsThenAnswers, { processor: true }))}\n`);
    const table = await run(['report', input]);
    expect([table.code, table.stderr]).toEqual([0, '']);
    expect(table.stdout).toContain('2 runs');
    expect(table.stdout).toContain('provider_transport_disconnect');
    const json = await run(['report', input, '--json']);
    const report = JSON.parse(json.stdout) as IncidentReport;
    expect([json.code, report.runs, report.byOutcome]).toEqual([
      0,
      2,
      [
        ['failed', 1],
        ['success', 1],
      ],
    ]);
    expect(report.input).toMatchObject({ lines: 2, traces: 2 });
  });

  it('--html writes the page and says so after the table', async () => {
    const html = file(undefined, 'report.html');
    const result = await run(['report', file(`${await failedRunLine()}\n`), '--html', html]);
    expect(result.code).toBe(0);
    expect(result.stdout.endsWith(`\n\nwrote ${html}\n`)).toBe(true);
    expect(readFileSync(html, 'utf8')).toMatch(/^<!doctype html>/i);
  });

  it.each([
    ['it is empty', '', '(it is empty)'],
    ['blank lines and requests without spans', '\n{"resourceSpans":[]}\n\n', '(3 lines, none with a span)'],
  ])('an input with no span (%s) is not an error: said on stderr, no table', async (_case, content, why) => {
    const input = file(content);
    expect(await run(['report', input])).toEqual({
      code: 0,
      stdout: '',
      stderr: `agent-incidents report: no spans in ${input} ${why}\n`,
    });
    const json = await run(['report', input, '--json']);
    expect([json.code, (JSON.parse(json.stdout) as IncidentReport).input.spans]).toEqual([0, 0]);
  });

  it.each<[string, () => string, (path: string) => string]>([
    [
      'a line that is not JSON names the line',
      () => file('{"resourceSpans":[]}\nnot json\n'),
      (path) => `${path}: line 2: not valid JSON (expected one OTLP ExportTraceServiceRequest per line)`,
    ],
    ['a missing file', () => join(dir, 'missing.jsonl'), (path) => `cannot read ${path}: ENOENT`],
    ['a directory', () => dir, (path) => `cannot read ${path}: EISDIR`],
    [
      'a file that starts like gzip and is not',
      () => file(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x01, 0x02, 0x03])),
      (path) => `${path}: not valid gzip: unexpected end of file`,
    ],
  ])('%s: exit 2, one line naming it', async (_case, input, message) => {
    const path = input();
    expect(await run(['report', path])).toEqual({ code: 2, stdout: '', stderr: `agent-incidents: ${message(path)}\n` });
  });

  it('--html into a folder that does not exist: exit 2 naming the page', async () => {
    const html = join(dir, 'no-such-folder', 'report.html');
    const result = await run(['report', file(`${await failedRunLine()}\n`), '--html', html]);
    expect([result.code, result.stderr]).toEqual([2, `agent-incidents: cannot write ${html}: ENOENT\n`]);
  });

  it('no file while stdin is a terminal is a usage error, not a wait for input', async () => {
    const stdin = Object.getOwnPropertyDescriptor(process.stdin, 'isTTY');
    Object.defineProperty(process.stdin, 'isTTY', { value: true, configurable: true });
    try {
      expect(await run(['report'])).toEqual({
        code: 2,
        stdout: '',
        stderr: 'agent-incidents: report: give an OTLP/JSON lines file, or pipe one in (`-` reads stdin)\n',
      });
    } finally {
      if (stdin) Object.defineProperty(process.stdin, 'isTTY', stdin);
      else delete (process.stdin as { isTTY?: boolean }).isTTY;
    }
  });
});

describe('demo', () => {
  it('writes one line per trace and prints the table of what it wrote', async () => {
    const out = file();
    const result = await run(['demo', '--runs', '3', '--seed', '5', '--out', out]);
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(result.stdout).toContain('3 runs');
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(result.stdout).toContain(`in ${lines.length} trace`);
    expect(result.stdout.endsWith(` to ${out} (OTLP/JSON, one ExportTraceServiceRequest per line)\n`)).toBe(true);
  });

  it('a file it cannot write: exit 2 naming it', async () => {
    const out = join(dir, 'no-such-folder', 'demo.jsonl');
    const result = await run(['demo', '--runs', '1', '--out', out]);
    expect(result.code).toBe(2);
    expect(result.stderr.startsWith(`agent-incidents: cannot write ${out}: ENOENT`)).toBe(true);
  });

  it('an --otlp-endpoint export that fails: exit 1, the file still written', async () => {
    const out = file();
    const endpoint = 'http://127.0.0.1:1/v1/traces';
    const result = await run(['demo', '--runs', '2', '--out', out, '--otlp-endpoint', endpoint]);
    expect(result.code).toBe(1);
    expect(result.stderr.startsWith(`agent-incidents: export to ${endpoint} failed: `)).toBe(true);
    expect(result.stdout).toContain(`to ${out}`);
    expect(readFileSync(out, 'utf8').trim().split('\n').length).toBeGreaterThan(0);
  });
});

describe('gateway and receive say in one line why they cannot start: exit 2', () => {
  it.each<[string, () => Promise<{ args: string[]; message: RegExp; close?: () => void }>]>([
    [
      'gateway: a configuration file that does not exist',
      async () => {
        const config = join(dir, 'missing.yaml');
        return {
          args: ['gateway', '--config', config],
          message: /^cannot read gateway config .*missing\.yaml: ENOENT/,
        };
      },
    ],
    [
      'gateway: a configuration without upstream.endpoint names the key',
      async () => ({
        args: ['gateway', '--config', file('listen:\n  port: 0\n', 'no-upstream.yaml')],
        message: /upstream/,
      }),
    ],
    [
      'gateway: a port that is taken',
      async () => {
        const { port, server } = await takenPort();
        const config = file(
          `listen:\n  port: ${port}\nupstream:\n  endpoint: http://127.0.0.1:1/v1/traces\n`,
          'taken.yaml',
        );
        return {
          args: ['gateway', '--config', config],
          message: /^cannot listen: .*EADDRINUSE/,
          close: () => server.close(),
        };
      },
    ],
    [
      'receive: a port that is taken',
      async () => {
        const { port, server } = await takenPort();
        return {
          args: ['receive', '--port', String(port), '--out', file()],
          message: new RegExp(`^cannot listen on 127\\.0\\.0\\.1:${port}: the port is taken`),
          close: () => server.close(),
        };
      },
    ],
    [
      'receive: a file it cannot write',
      async () => ({
        args: ['receive', '--port', '0', '--out', join(dir, 'no-such-folder', 'traces.jsonl')],
        message: /^cannot receive into .*traces\.jsonl: ENOENT$/,
      }),
    ],
  ])('%s', async (_case, setup) => {
    const { args, message, close } = await setup();
    try {
      const result = await run(args);
      expect([result.code, result.stdout]).toEqual([2, '']);
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]!.startsWith('agent-incidents: ')).toBe(true);
      expect(lines[0]!.slice('agent-incidents: '.length)).toMatch(message);
    } finally {
      close?.();
    }
  });
});

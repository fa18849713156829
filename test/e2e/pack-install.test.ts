/**
 * The README's "Use it" path works from a clone today, on both OpenTelemetry
 * JS lines (docs/compatibility.md): the package is packed with `npm pack`,
 * installed into an EMPTY folder with ONLY the README's own `npm install` line
 * for the line under test (the tarball path is the one thing substituted),
 * every TypeScript block of the README for that line (and the blocks that
 * import no SDK) type-checks there with `tsc` (strict, nodenext, the
 * libraries' declarations checked too), and the line's program, compiled and
 * run with `node`, delivers a run span carrying its verdict and the snippet's
 * service.name to a real OTLP/HTTP receiver. Then the README's no-collector
 * path as written: the installed `agent-incidents receive`, the program sent
 * to it, and `report … --html` finding the incident. And the CLI with no SDK
 * installed at all: `--help`, `report`, `receive` and `gateway` load.
 *
 * The line: OTEL_LINE=3 (API 1.10, sdk-trace 3, sdk-node 0.301; Node >= 22.15)
 * or OTEL_LINE=2 (API 1.9, sdk-trace-base 2; Node 20); by default the newest
 * line the running Node can run. `.ci/run` runs both.
 *
 * Needs the npm registry (the README's installs); npm's cache keeps reruns fast.
 */
import { execFile as execFileCallback, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { decodeExportTraceRequest, encodeExportTraceResponse } from '../../src/otlp/otlp-protobuf.js';
import { ROOT } from './support.js';

const execFile = promisify(execFileCallback);
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  devDependencies: Record<string, string>;
};

/** The tarball path the README's install line names; the test puts the real one in its place. */
const TARBALL_PLACEHOLDER = `/path/to/agent-incidents-${manifest.version}.tgz`;

/**
 * Errors tsc reports inside the AI SDK's own declarations when they are
 * checked (skipLibCheck false) in a Node project: they use DOM types
 * (`HeadersInit`, `RequestCredentials`, `FileList`, `MediaStream`) and import
 * `json-schema`, whose types the SDK does not depend on. They are the SDK's,
 * not ours, and every other error still fails the test, including one in
 * agent-incidents' declarations against the installed `ai`.
 */
function isAiSdkOwnDeclarationError(line: string): boolean {
  const inAiSdk = /^node_modules\/(?:@ai-sdk\/[^/]+\/node_modules\/)?(?:ai|@ai-sdk\/[^/]+)\/dist\/[^(]+\.d\.ts\(/.test(
    line,
  );
  return (
    inAiSdk &&
    (/error TS2304: Cannot find name '(HeadersInit|RequestCredentials|FileList|MediaStream)'/.test(line) ||
      /error TS7016: Could not find a declaration file for module 'json-schema'/.test(line))
  );
}

/** The fenced blocks of a language, in order. */
function blocks(markdown: string, language: string): string[] {
  return [...markdown.matchAll(new RegExp('^```' + language + '\\n([\\s\\S]*?)^```$', 'gm'))].map(
    (match) => match[1] as string,
  );
}

/** The README's `npm install` commands, backslash-continued lines joined. */
function installLines(markdown: string): string[] {
  return blocks(markdown, 'sh')
    .flatMap((block) => block.replace(/\\\n\s*/g, '').split('\n'))
    .map((line) => line.trim())
    .filter((line) => line.startsWith('npm install '));
}

const [nodeMajor = 0, nodeMinor = 0] = process.versions.node.split('.').map(Number);
/** The OpenTelemetry JS line under test. */
const LINE = process.env.OTEL_LINE ?? (nodeMajor > 22 || (nodeMajor === 22 && nodeMinor >= 15) ? '3' : '2');
/** What marks the line's README parts: its API in the install line, its setup package in the program. */
const LINES: Record<string, { api: string; setup: string }> = {
  '3': { api: '@opentelemetry/api@1.10', setup: "'@opentelemetry/sdk-node'" },
  '2': { api: '@opentelemetry/api@1.9', setup: "'@opentelemetry/sdk-trace-node'" },
};
const line = LINES[LINE];
if (!line) throw new Error(`OTEL_LINE must be 2 or 3, not ${LINE}`);

/** Whether a README block belongs to another line: it imports an SDK package, and not this line's setup. */
function isOtherLine(code: string): boolean {
  return /from '@opentelemetry\/sdk-/.test(code) && !code.includes(`from ${line!.setup}`);
}

/** Seconds each step took, printed at the end: the test runs against the registry, so slowness needs a culprit. */
const timings: string[] = [];

async function run(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<string> {
  const started = performance.now();
  try {
    const { stdout } = await execFile(command, args, {
      cwd,
      env: { ...process.env, ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    timings.push(
      `${((performance.now() - started) / 1000).toFixed(1)} s  ${command === 'sh' ? (args[1] ?? '') : [basename(command), ...args].join(' ')}`,
    );
    return stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${command} ${args.join(' ')} failed in ${cwd}:\n${failed.stdout ?? ''}\n${failed.stderr ?? failed.message}`,
    );
  }
}

/** The README's `npx agent-incidents <command>` lines, comments stripped. */
function cliLines(markdown: string, command: string): string[] {
  return blocks(markdown, 'sh')
    .flatMap((block) => block.split('\n'))
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line.startsWith(`npx agent-incidents ${command}`));
}

const tsBlocks = blocks(readme, 'ts').filter((code) => !isOtherLine(code));
/** The line's program: the block that sets the SDK up. */
const program = tsBlocks.find((code) => code.includes(`from ${line.setup}`));
/** The tarball line of this OpenTelemetry line, then every install line that is not a tarball line (the compiler's). */
const installs = installLines(readme).filter((command) =>
  command.includes(TARBALL_PLACEHOLDER) ? command.includes(`${line.api} `) : true,
);
let work: string;
let app: string;
/** An app with the tarball and the API only: no SDK package. */
let noSdk: string;
let typeErrors: string[];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'agent-incidents-pack-install-'));
  app = join(work, 'app');
  mkdirSync(app);
  noSdk = join(work, 'no-sdk');
  mkdirSync(noSdk);
  // dist/ was built by the globalSetup: `prepare` need not build it again.
  const [packed] = JSON.parse(
    await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT),
  ) as [{ filename: string }];
  expect(packed.filename).toBe(basename(TARBALL_PLACEHOLDER));
  const tarball = join(work, packed.filename);

  // An empty folder, as the README says: no package.json, no "type": "module" (the program is an .mts file).
  for (const command of installs) {
    // Flags that change how npm works, not what it installs: the cache first, no audit or funding calls.
    await run(
      'sh',
      ['-c', `${command.replaceAll(TARBALL_PLACEHOLDER, tarball)} --prefer-offline --no-audit --no-fund`],
      app,
    );
  }
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, line.api], noSdk);
  // Test tools, not README lines: the compiler and Node's types, the versions this repository uses.
  await run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '-D',
      `typescript@${manifest.devDependencies.typescript}`,
      `@types/node@${manifest.devDependencies['@types/node']}`,
    ],
    app,
  );

  mkdirSync(join(app, 'snippets'));
  // .mts, as the README names the program: ES modules (top-level await) in a folder whose package.json says nothing.
  tsBlocks.forEach((code, i) => writeFileSync(join(app, 'snippets', `readme-${i + 1}.mts`), code));
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2023'],
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        skipLibCheck: false,
        types: ['node'],
        rootDir: 'snippets',
        outDir: 'out',
      },
      include: ['snippets'],
    }),
  );
  // tsc exits non-zero on any error but still emits: the errors are judged below, the first block is run either way.
  const tscStarted = performance.now();
  const tsc = await execFile(
    process.execPath,
    [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.', '--pretty', 'false'],
    {
      cwd: app,
    },
  ).catch((error: { stdout: string }) => error);
  typeErrors = tsc.stdout.split('\n').filter((line) => / error TS\d+:/.test(line));
  timings.push(`${((performance.now() - tscStarted) / 1000).toFixed(1)} s  tsc (${tsBlocks.length} README blocks)`);
}, 300_000);

afterAll(() => {
  console.info(`pack-install steps:\n${timings.join('\n')}`);
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('README install from a clone (npm pack, then the README install lines)', () => {
  it('gives an install line for the packed tarball, by the name npm pack writes', () => {
    expect(installs.some((line) => line.includes(TARBALL_PLACEHOLDER))).toBe(true);
    expect(tsBlocks.length).toBeGreaterThanOrEqual(2);
    expect(program, `a README program for OpenTelemetry JS ${LINE}.x (imports ${line.setup})`).toBeDefined();
  });

  it('type-checks every TypeScript block of the README in an app set up with only those lines', () => {
    expect(typeErrors.filter((line) => !isAiSdkOwnDeclarationError(line))).toEqual([]);
  });

  it('runs the first block: exit 0, the verdict it prints, and a run span with the verdict and its service.name at an OTLP receiver', async () => {
    const first = program as string;
    const serviceName = /ATTR_SERVICE_NAME\]: '([^']+)'/.exec(first)?.[1];
    expect(serviceName, 'the first block sets service.name').toBeDefined();
    const printed = /\/\/ → (.+)$/m.exec(first)?.[1];

    const requests: unknown[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.writeHead(404).end();
          return;
        }
        requests.push(decodeExportTraceRequest(new Uint8Array(Buffer.concat(chunks))));
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(encodeExportTraceResponse());
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
      // run() throws, with the output, on a non-zero exit.
      const stdout = await run(process.execPath, [join('out', `readme-${tsBlocks.indexOf(first) + 1}.mjs`)], app, {
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      });
      if (printed) expect(stdout.trim()).toBe(printed);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }

    const spans = requests.flatMap(decodeOtlpJsonSpans);
    const runSpan = spans.find((span) => span.attributes['incident.outcome'] !== undefined);
    expect(runSpan, `a run span among ${spans.map((span) => span.name).join(', ')}`).toBeDefined();
    expect(runSpan?.name).toBe('invoke_agent coder');
    expect(runSpan?.attributes).toMatchObject({
      'incident.outcome': 'failed',
      'incident.cause': 'provider_transport_disconnect',
    });
    expect(runSpan?.resource['service.name']).toBe(serviceName);
  });

  it("follows the README's no-collector path: receive, the first block, report --html finds the incident", async () => {
    const [receiveLine] = cliLines(readme, 'receive');
    const [reportLine] = cliLines(readme, 'report traces.otlp.jsonl --html');
    const compileLine = blocks(readme, 'sh')
      .flatMap((block) => block.split('\n'))
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .find((line) => line.startsWith('npx tsc ') && line.endsWith(' app.mts'));
    expect(compileLine, 'the README says how to compile app.mts').toBeDefined();
    expect(readme).toContain('node app.mjs');
    expect(receiveLine, 'the README starts the receiver').toBeDefined();
    expect(reportLine, 'the README reports what it received as a page').toBeDefined();
    // Two changes: any free port instead of 4318, which a collector on this machine may hold; and the
    // binary npx resolves to, run directly, so the test's SIGINT (Ctrl-C) reaches it, not npm's wrapper.
    const command = (receiveLine as string).replace(/^npx agent-incidents /, './node_modules/.bin/agent-incidents ');
    const receiver = spawn('sh', ['-c', `exec ${command} --port 0`], { cwd: app });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => receiver.on('close', resolve));
    const endpoint = await new Promise<string>((resolve, reject) => {
      receiver.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const url = /listening on (http:\/\/\S+)\/v1\/traces/.exec(stderr)?.[1];
        if (url) resolve(url);
      });
      void exited.then((code) => reject(new Error(`receive exited ${code}: ${stderr}`)));
    });
    try {
      // The README's own compile and run lines, on the line's program saved as app.mts.
      writeFileSync(join(app, 'app.mts'), program as string);
      await run('sh', ['-c', compileLine as string], app);
      await run('sh', ['-c', 'node app.mjs'], app, { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
      receiver.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      if (receiver.exitCode === null && receiver.signalCode === null) receiver.kill('SIGKILL');
    }
    expect(stderr).toMatch(/wrote \d+ spans? in 1 request to traces\.otlp\.jsonl/);

    await run('sh', ['-c', reportLine as string], app);
    const page = join(app, 'incidents.html');
    expect(existsSync(page)).toBe(true);
    const report = JSON.parse(await run('sh', ['-c', 'npx agent-incidents report traces.otlp.jsonl --json'], app)) as {
      runs: number;
      incidents: { cause?: string; serviceName?: string; traceId: string }[];
    };
    expect(report.runs).toBe(1);
    expect(report.incidents[0]).toMatchObject({ cause: 'provider_transport_disconnect', serviceName: 'my-agent' });
    expect(readFileSync(page, 'utf8')).toContain(report.incidents[0]?.traceId);
  });

  it('runs every command but the demo with no SDK package installed (tarball and API only); the demo says what to install', async () => {
    const cli = join(noSdk, 'node_modules', '.bin', 'agent-incidents');
    const installed = readFileSync(join(noSdk, 'package.json'), 'utf8');
    expect(installed).not.toMatch(/@opentelemetry\/(sdk|exporter|resources|core)/);
    expect(existsSync(join(noSdk, 'node_modules', '@opentelemetry', 'sdk-trace-base'))).toBe(false);
    expect(existsSync(join(noSdk, 'node_modules', '@opentelemetry', 'sdk-trace'))).toBe(false);
    expect(await run(cli, ['--help'], noSdk)).toContain('Usage: agent-incidents');
    // report: the traces the no-collector test received, read by the SDK-less install.
    writeFileSync(join(noSdk, 'one.otlp.jsonl'), readFileSync(join(app, 'traces.otlp.jsonl')));
    expect(await run(cli, ['report', 'one.otlp.jsonl'], noSdk)).toMatch(/^1 run\b/);
    // gateway and receive load their modules when they run: a missing config and a taken port are their own errors, not a missing package.
    const gateway = await execFile(cli, ['gateway', '--config', 'missing.yaml'], { cwd: noSdk }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(gateway.stderr).toMatch(/missing\.yaml/);
    expect(gateway.stderr).not.toMatch(/Cannot find (package|module)/);
    const receive = await execFile(cli, ['receive', '--host', '256.0.0.1', '--port', '0'], { cwd: noSdk }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(receive.stderr).toMatch(/cannot (listen|receive)/);
    expect(receive.stderr).not.toMatch(/Cannot find (package|module)/);
    const demo = await execFile(cli, ['demo', '--runs', '1'], { cwd: noSdk }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(demo.code).toBe(2);
    expect(demo.stderr.trim()).toMatch(
      /^agent-incidents: the demo needs an OpenTelemetry tracing SDK: `npm install @opentelemetry\/sdk-trace@3`/,
    );
  });
});

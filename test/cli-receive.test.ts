/**
 * `agent-incidents receive`, run as users run it (built dist/cli.js in a
 * child process): it says where it listens, writes what it is sent, stops on
 * Ctrl-C (SIGINT) with a count and the next command, and a taken port is a
 * usage error naming the way out.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CLI = join(import.meta.dirname, '..', 'dist', 'cli.js');
const dir = mkdtempSync(join(tmpdir(), 'ai-cli-receive-'));

/** Starts `receive` and resolves once it printed its address. */
function start(
  args: string[],
): Promise<{ child: ChildProcessWithoutNullStreams; url: string; stderr: () => string; exit: Promise<number> }> {
  const child = spawn(process.execPath, [CLI, 'receive', ...args], { env: { ...process.env, NO_COLOR: '1' } });
  let stderr = '';
  const exit = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /listening on (http:\/\/\S+)\/v1\/traces/.exec(stderr)?.[1];
      if (url) resolve({ child, url, stderr: () => stderr, exit });
    });
    void exit.then((code) => reject(new Error(`receive exited ${code} before listening: ${stderr}`)));
  });
}

describe('agent-incidents receive', () => {
  it('writes each request as a line and, on Ctrl-C, says what it wrote and what to run next', async () => {
    const out = join(dir, 'mine.otlp.jsonl');
    const receiver = await start(['--port', '0', '--out', out]);
    expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const body = JSON.stringify({ resourceSpans: [] });
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${receiver.url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(response.status).toBe(200);
    }
    receiver.child.kill('SIGINT');
    expect(await receiver.exit).toBe(0);
    expect(receiver.stderr()).toContain(`wrote 0 spans in 3 requests to ${out}; next: agent-incidents report ${out}`);
    expect(readFileSync(out, 'utf8')).toBe(`${body}\n`.repeat(3));
  });

  it('exits 2 on a taken port and says how to choose another', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const child = spawn(process.execPath, [
        CLI,
        'receive',
        '--port',
        String(port),
        '--out',
        join(dir, 'never.jsonl'),
      ]);
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
      expect(code).toBe(2);
      expect(stderr).toMatch(/port is taken .*--port/);
    } finally {
      taken.close();
    }
  });
});

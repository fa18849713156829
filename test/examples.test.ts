/**
 * The examples run as a user runs them: `node examples/<name>/main.mjs` from
 * the repository root, importing the built package by name, with no provider
 * key and no collector, so they play their runs against the fake provider.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Variables that would send an example to a real provider or a collector. */
const ONLINE_VARIABLES = new Set(['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'OTEL_EXPORTER_OTLP_ENDPOINT']);

interface ExampleResult {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runExample(path: string): Promise<ExampleResult> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !ONLINE_VARIABLES.has(name)));
  return new Promise((resolve) => {
    execFile(process.execPath, [path], { cwd: ROOT, env, timeout: 10_000 }, (error, stdout, stderr) => {
      // A non-zero exit gives its code; a kill (the timeout) gives none.
      const exitCode = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ exitCode, stdout, stderr });
    });
  });
}

/** The `verdict:` line of each run, without its prefix. */
function verdicts(stdout: string): string[] {
  return stdout
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('verdict: '))
    .map((line) => line.slice('verdict: '.length));
}

describe('examples', () => {
  it('vercel-ai: a drop after text, a 503 then 200, and a stop while run_shell runs', async () => {
    const { exitCode, stdout, stderr } = await runExample('examples/vercel-ai/main.mjs');
    expect(exitCode, stderr).toBe(0);
    expect(verdicts(stdout)).toEqual([
      expect.stringMatching(
        /^failed: provider_transport_disconnect \(socket_closed\), phase text_generation, .*retry safety offer_continue → offer the user to continue$/,
      ),
      expect.stringMatching(/^recovered: provider_api_error \(server_overload\), .*retry safety auto_retry → done/),
      expect.stringMatching(
        /^cancelled: user_cancel \(user_stop\), phase tool_execution, side effects unsafe, retry safety do_not_retry → stop$/,
      ),
    ]);
    // The agent retried the 503 because the verdict said auto_retry, and nothing else.
    expect(stdout.match(/→ retrying now/g)).toHaveLength(1);
    expect(stdout).toContain('retry safety auto_retry → retrying now');
  });

  it('openinference-openai: a drop after text, then a read-only tool and its answer', async () => {
    const { exitCode, stdout, stderr } = await runExample('examples/openinference-openai/main.mjs');
    expect(exitCode, stderr).toBe(0);
    expect(verdicts(stdout)).toEqual([
      expect.stringMatching(
        /^failed: provider_transport_disconnect \(socket_closed\), phase text_generation, .*retry safety offer_continue → offer the user to continue$/,
      ),
      'success, side effects read_only → done',
    ]);
    expect(stdout).not.toContain('retrying now');
  });

  it('custom-runtime: safeRetry retries a connect timeout, offers to continue after text, asks after a tool ran', async () => {
    const { exitCode, stdout, stderr } = await runExample('examples/custom-runtime/main.mjs');
    expect(exitCode, stderr).toBe(0);
    expect(verdicts(stdout)).toEqual([
      'recovered · watchdog_timeout(connect) · before_first_provider_progress · auto_retry',
      'failed · provider_transport_disconnect(socket_closed) · text_generation · offer_continue',
      'failed · provider_transport_disconnect(socket_closed) · after_tool_result · ask_user_before_retry',
    ]);
    const actions = stdout
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.startsWith('action: '));
    expect(actions).toEqual([
      'action: retry (auto_retry_allowed)',
      'action: offer_continue (not_auto_retryable)',
      'action: ask_user (not_auto_retryable)',
    ]);
    // Only the connect timeout was retried, and the tool ran once.
    expect(stdout.match(/safeRetry: retry after/g)).toHaveLength(1);
    expect(stdout.match(/tool: write_file/g)).toHaveLength(1);
    expect(stdout).toContain(
      'incident.retry_safety.reason=unsafe_side_effect_started incident.recovery.action=ask_user',
    );
  });
});

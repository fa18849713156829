/**
 * examples/vercel-ai-7 runs as a user runs it: `node main.mjs` in its folder
 * (its own node_modules: `ai` 7, `@ai-sdk/otel`, the packed agent-incidents),
 * on this Node 22, with no provider key and no collector, so it plays its
 * runs against the fake provider. Its verdicts are the AI SDK 6 example's.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const EXAMPLE = fileURLToPath(new URL('../../examples/vercel-ai-7/', import.meta.url));
/** Variables that would send the example to a real provider or a collector. */
const ONLINE_VARIABLES = new Set(['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'OTEL_EXPORTER_OTLP_ENDPOINT']);

function runExample() {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !ONLINE_VARIABLES.has(name)));
  return new Promise((resolve) => {
    execFile(process.execPath, ['main.mjs'], { cwd: EXAMPLE, env, timeout: 10_000 }, (error, stdout, stderr) => {
      const exitCode = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ exitCode, stdout, stderr });
    });
  });
}

it("vercel-ai-7: a drop after text, a 503 then 200, and a stop while run_shell runs, with the AI SDK 6 example's verdicts", async () => {
  const { exitCode, stdout, stderr } = await runExample();
  expect(exitCode, stderr).toBe(0);
  const verdicts = stdout
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('verdict: '))
    .map((line) => line.slice('verdict: '.length));
  expect(verdicts).toEqual([
    expect.stringMatching(
      /^failed: provider_transport_disconnect \(socket_closed\), phase text_generation, .*retry safety offer_continue → offer the user to continue$/,
    ),
    expect.stringMatching(/^recovered: provider_api_error \(server_overload\), .*retry safety auto_retry → done/),
    expect.stringMatching(
      /^cancelled: user_cancel \(user_stop\), phase tool_execution, side effects unsafe, retry safety do_not_retry → stop$/,
    ),
  ]);
  // One judged span per run: the SDK's own `invoke_agent` root is part of the run, not a second run.
  expect(stdout.match(/exported span "/g)).toHaveLength(3);
  expect(stdout.match(/→ retrying now/g)).toHaveLength(1);
});

/**
 * agent-incidents/ai-sdk is a module without top-level `await`: `require()`
 * of it (Node's require of ES modules) works, and a bundler sees a plain
 * module graph. With `ai` 6 (this suite) it loads nothing of `@ai-sdk/otel`.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ENTRY = fileURLToPath(new URL('../../dist/ai-sdk/index.js', import.meta.url));

it('can be require()d: the built entry point and everything it imports have no top-level await', async () => {
  // Node >= 20.19 requires ES modules unflagged; older 20.x need the flag (the built dist/ is from test/support/build-once.ts).
  const flags =
    (process.features as { require_module?: boolean }).require_module === true ? [] : ['--experimental-require-module'];
  const script = `const m = require(${JSON.stringify(ENTRY)}); process.stdout.write(JSON.stringify([typeof m.withAgentRun, typeof m.startAgentRun]));`;
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
    (resolve) => {
      execFile(
        process.execPath,
        [...flags, '--input-type=commonjs', '-e', script],
        { timeout: 20_000 },
        (error, out, err) => {
          resolve({
            code: error === null ? 0 : typeof error.code === 'number' ? error.code : null,
            stdout: out,
            stderr: err,
          });
        },
      );
    },
  );
  expect(stderr).not.toContain('ERR_REQUIRE_ASYNC_MODULE');
  expect(code, stderr).toBe(0);
  expect(JSON.parse(stdout)).toEqual(['function', 'function']);
});

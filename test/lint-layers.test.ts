/**
 * The layers of src/ are enforced by lint: an import that points the wrong
 * way (an edge into the core's callers, the gateway into the SDK processor)
 * fails `npm run lint`, while the imports each layer may make pass.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: new URL('..', import.meta.url).pathname });

/** Lints `code` as if it were the file `path` of the repo; returns the no-restricted-imports messages. */
async function layerErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layer rules', () => {
  const wrongWay: [string, string][] = [
    ['src/gateway/judge-trace.ts', '../sdk/incident-span-processor.js'],
    ['src/gateway/judge-trace.ts', '../runtime/run-recorder.js'],
    ['src/fold/run-folder.ts', '../sdk/options.js'],
    ['src/fold/run-folder.ts', '../gateway/gateway.js'],
    ['src/derive/timeline.ts', '../fold/run-folder.js'],
    ['src/model/facts.ts', '../derive/timeline.js'],
    ['src/conventions/gen-ai.ts', '../fold/fold-trace.js'],
    ['src/sdk/span-view-of.ts', '../runtime/run-recorder.js'],
    ['src/runtime/run-recorder.ts', '../sdk/incident-span-processor.js'],
    ['src/report/otlp-json.ts', '../cli/program.js'],
    ['src/fold/run-folder.ts', '../index.js'],
  ];
  it.each(wrongWay)('%s may not import %s', async (path, target) => {
    const errors = await layerErrors(path, `import '${target}';\n`);
    expect(errors.length, `no lint error for ${path} → ${target}`).toBe(1);
    expect(errors[0]).toMatch(/may import only|entry points/);
  });

  const rightWay: [string, string][] = [
    ['src/gateway/judge-trace.ts', '../fold/fold-trace.js'],
    ['src/sdk/incident-span-processor.ts', '../fold/run-folder.js'],
    ['src/fold/run-folder.ts', '../conventions/index.js'],
    ['src/runtime/run-recorder.ts', '../fold/run-folder.js'],
    ['src/cli/program.ts', '../gateway/gateway.js'],
  ];
  it.each(rightWay)('%s may import %s', async (path, target) => {
    expect(await layerErrors(path, `import '${target}';\n`)).toEqual([]);
  });
});

/**
 * The layers of src/ are enforced by lint: an import that points the wrong
 * way (an edge into the core's callers, the gateway into the SDK processor)
 * fails `npm run lint`, while the imports each layer may make pass. The order
 * (eslint.config.js LAYERS, CONTRIBUTING.md):
 *
 *   model ← derive ← conventions / sanitize ← fold
 *         ← sdk, runtime, gateway, recovery, presentation ← cli, demo, report
 *
 * with otlp beside fold (above conventions), ai-sdk above runtime, and testing
 * on its own.
 */
import { readdirSync } from 'node:fs';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url);
const eslint = new ESLint({ cwd: root.pathname });

/** Lints `code` as if it were the file `path` of the repo; returns the no-restricted-imports messages. */
async function layerErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

async function expectFails(path: string, target: string): Promise<void> {
  const errors = await layerErrors(path, `import '${target}';\n`);
  expect(errors.length, `no lint error for ${path} → ${target}`).toBe(1);
  expect(errors[0]).toMatch(/may import only|entry points/);
}

async function expectPasses(path: string, target: string): Promise<void> {
  expect(await layerErrors(path, `import '${target}';\n`), `${path} → ${target}`).toEqual([]);
}

describe('layer rules', () => {
  /** One row per boundary: [boundary, [file, wrong-way import], [file, right-way import]]. */
  const boundaries: [string, [string, string], [string, string]][] = [
    // model ← derive
    [
      'model ← derive',
      ['src/model/facts.ts', '../derive/timeline.js'],
      ['src/derive/timeline.ts', '../model/facts.js'],
    ],
    // derive ← conventions / sanitize
    [
      'derive ← conventions',
      ['src/derive/timeline.ts', '../conventions/index.js'],
      ['src/conventions/gen-ai.ts', '../derive/timeline.js'],
    ],
    [
      'derive ← sanitize',
      ['src/derive/timeline.ts', '../sanitize/sanitizer.js'],
      ['src/sanitize/rules.ts', '../model/enums.js'],
    ],
    // one tier: conventions and sanitize do not see each other
    [
      'conventions ↮ sanitize',
      ['src/conventions/gen-ai.ts', '../sanitize/sanitizer.js'],
      ['src/conventions/gen-ai.ts', '../model/facts.js'],
    ],
    [
      'sanitize ↮ conventions',
      ['src/sanitize/sanitizer.ts', '../conventions/index.js'],
      ['src/sanitize/sanitizer.ts', '../model/attributes.js'],
    ],
    // sanitize is stricter than its tier: model only (the code complies)
    [
      'sanitize sees model only',
      ['src/sanitize/sanitizer.ts', '../derive/timeline.js'],
      ['src/sanitize/sanitizer.ts', '../model/enums.js'],
    ],
    // conventions / sanitize ← fold
    [
      'conventions ← fold',
      ['src/conventions/gen-ai.ts', '../fold/fold-trace.js'],
      ['src/fold/run-folder.ts', '../conventions/index.js'],
    ],
    [
      'sanitize ← fold',
      ['src/sanitize/sanitizer.ts', '../fold/run-folder.js'],
      ['src/fold/run-folder.ts', '../sanitize/sanitizer.js'],
    ],
    // fold ← sdk, runtime, gateway, recovery, presentation
    [
      'fold ← sdk',
      ['src/fold/run-folder.ts', '../sdk/options.js'],
      ['src/sdk/incident-span-processor.ts', '../fold/run-folder.js'],
    ],
    [
      'fold ← runtime',
      ['src/fold/run-folder.ts', '../runtime/run-recorder.js'],
      ['src/runtime/run-recorder.ts', '../fold/run-folder.js'],
    ],
    [
      'fold ← gateway',
      ['src/fold/run-folder.ts', '../gateway/gateway.js'],
      ['src/gateway/judge-trace.ts', '../fold/fold-trace.js'],
    ],
    [
      'fold ← recovery',
      ['src/fold/run-folder.ts', '../recovery/safe-retry.js'],
      ['src/recovery/safe-retry.ts', '../fold/run-folder.js'],
    ],
    [
      'fold ← presentation',
      ['src/fold/run-folder.ts', '../presentation/present-incident.js'],
      ['src/fold/run-folder.ts', '../derive/timeline.js'],
    ],
    // presentation is stricter than its tier: model and derive only (the code complies)
    [
      'presentation sees model and derive only',
      ['src/presentation/present-incident.ts', '../fold/run-folder.js'],
      ['src/presentation/present-incident.ts', '../derive/timeline.js'],
    ],
    // one tier: the edges do not see each other
    [
      'sdk ↮ runtime',
      ['src/sdk/span-view-of.ts', '../runtime/run-recorder.js'],
      ['src/sdk/span-view-of.ts', '../conventions/index.js'],
    ],
    [
      'runtime ↮ sdk',
      ['src/runtime/run-recorder.ts', '../sdk/incident-span-processor.js'],
      ['src/runtime/run-recorder.ts', '../sanitize/sanitizer.js'],
    ],
    [
      'gateway ↮ sdk',
      ['src/gateway/judge-trace.ts', '../sdk/incident-span-processor.js'],
      ['src/gateway/judge-trace.ts', '../sanitize/sanitizer.js'],
    ],
    [
      'gateway ↮ runtime',
      ['src/gateway/judge-trace.ts', '../runtime/run-recorder.js'],
      ['src/gateway/judge-trace.ts', '../derive/timeline.js'],
    ],
    [
      'recovery ↮ sdk',
      ['src/recovery/safe-retry.ts', '../sdk/options.js'],
      ['src/recovery/safe-retry.ts', '../derive/retry-safety.js'],
    ],
    [
      'sdk ↮ recovery',
      ['src/sdk/options.ts', '../recovery/safe-retry.js'],
      ['src/sdk/options.ts', '../model/enums.js'],
    ],
    [
      'runtime ↮ presentation',
      ['src/runtime/run-recorder.ts', '../presentation/present-incident.js'],
      ['src/runtime/run-recorder.ts', '../derive/timeline.js'],
    ],
    [
      'presentation ↮ gateway',
      ['src/presentation/present-incident.ts', '../gateway/gateway.js'],
      ['src/presentation/present-incident.ts', '../model/enums.js'],
    ],
    // sdk, runtime, gateway, recovery, presentation ← cli, demo, report
    [
      'sdk ← demo',
      ['src/sdk/options.ts', '../demo/run-demo.js'],
      ['src/demo/run-demo.ts', '../sdk/incident-span-processor.js'],
    ],
    [
      'runtime ← demo',
      ['src/runtime/run-recorder.ts', '../demo/run-demo.js'],
      ['src/demo/run-demo.ts', '../runtime/run-recorder.js'],
    ],
    ['gateway ← cli', ['src/gateway/gateway.ts', '../cli/program.js'], ['src/cli/program.ts', '../gateway/gateway.js']],
    [
      'presentation ← report',
      ['src/presentation/present-incident.ts', '../report/html-page.js'],
      ['src/report/html-page.ts', '../presentation/present-incident.js'],
    ],
    [
      'recovery ← demo',
      ['src/recovery/safe-retry.ts', '../demo/run-demo.js'],
      ['src/demo/run-demo.ts', '../recovery/index.js'],
    ],
    // report is stricter than its tier: no edge but presentation (the code complies)
    [
      'report sees no edge but presentation',
      ['src/report/otlp-json.ts', '../gateway/gateway.js'],
      ['src/report/otlp-json.ts', '../otlp/otlp-json-spans.js'],
    ],
    [
      'report ↮ cli',
      ['src/report/otlp-json.ts', '../cli/program.js'],
      ['src/report/html/markup.ts', '../../model/enums.js'],
    ],
    // the entry points import the layers, never the other way round
    [
      'layers ← src/index.ts',
      ['src/fold/run-folder.ts', '../index.js'],
      ['src/fold/run-folder.ts', '../model/enums.js'],
    ],
    [
      'cli/ ← src/index.ts, src/cli.ts',
      ['src/cli/program.ts', '../index.js'],
      ['src/cli/program.ts', '../report/read-report.js'],
    ],
    // folders beyond the order: otlp beside fold, ai-sdk above runtime, testing alone
    [
      'otlp above conventions',
      ['src/conventions/gen-ai.ts', '../otlp/otlp-json-spans.js'],
      ['src/otlp/otlp-json-spans.ts', '../conventions/index.js'],
    ],
    [
      'otlp beside fold',
      ['src/otlp/otlp-json-spans.ts', '../fold/fold-trace.js'],
      ['src/gateway/decode-body.ts', '../otlp/otlp-protobuf.js'],
    ],
    [
      'runtime ← ai-sdk',
      ['src/runtime/run-recorder.ts', '../ai-sdk/agent-run.js'],
      ['src/ai-sdk/agent-run.ts', '../runtime/run-recorder.js'],
    ],
    [
      'ai-sdk ↮ sdk',
      ['src/ai-sdk/agent-run.ts', '../sdk/options.js'],
      ['src/ai-sdk/agent-run.ts', '../conventions/index.js'],
    ],
    [
      'testing alone',
      ['src/testing/fake-provider/server.ts', '../../model/enums.js'],
      ['src/testing/fake-provider/server.ts', './script.js'],
    ],
    [
      'nothing imports testing',
      ['src/cli/program.ts', '../testing/index.js'],
      ['src/cli/program.ts', '../demo/run-demo.js'],
    ],
    ['cli ↮ ai-sdk', ['src/cli/program.ts', '../ai-sdk/index.js'], ['src/cli/program.ts', '../sdk/options.js']],
  ];
  it.each(boundaries)(
    '%s: wrong way fails, right way passes',
    async (_boundary, [wrongFile, wrong], [rightFile, right]) => {
      await expectFails(wrongFile, wrong);
      await expectPasses(rightFile, right);
    },
  );

  it('puts every folder of src/ in a layer, and names no folder that is gone', async () => {
    const { LAYERS } = (await import(new URL('eslint.config.js', root).href)) as { LAYERS: Record<string, string[]> };
    const folders = readdirSync(new URL('src', root), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(Object.keys(LAYERS).sort()).toEqual(folders);
    for (const [layer, allowed] of Object.entries(LAYERS)) {
      for (const folder of allowed) expect(folders, `${layer} may import ${folder}`).toContain(folder);
    }
  });
});

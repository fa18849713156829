/**
 * How agent-incidents/ai-sdk finds `@ai-sdk/otel` on AI SDK 7, with no
 * top-level `await` in the module: `require()` of the packed entry point
 * works on this Node 22 (Node's require of ES modules), and a run loads
 * `@ai-sdk/otel` itself when a call needs it, or takes it as the
 * `aiSdkOtel` option (what a bundled application passes).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createOpenAI } from '@ai-sdk/openai';
import * as aiSdkOtel from '@ai-sdk/otel';
import { startAgentRun } from 'agent-incidents/ai-sdk';
import { expect, it } from 'vitest';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const ENTRY = fileURLToPath(new URL('./node_modules/agent-incidents/dist/ai-sdk/index.js', import.meta.url));
const model = createOpenAI({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'test' }).chat('gpt-4o-mini');

function node(args) {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: HERE, timeout: 20_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
    });
  });
}

/** The constructor names of the integrations `callOptions` gives a call. */
function integrationsOf(options) {
  return options.telemetry.integrations.map((integration) => integration.constructor.name);
}

it('can be require()d from CommonJS, and then loads @ai-sdk/otel for a call', async () => {
  // The packed package exports `import` only; its file is what an application's require() or bundler reaches.
  const script = `
    const { startAgentRun } = require(${JSON.stringify(ENTRY)});
    const { createOpenAI } = require('@ai-sdk/openai');
    const run = startAgentRun();
    const options = run.callOptions({ model: createOpenAI({ apiKey: 'test' }).chat('gpt-4o-mini'), prompt: 'Hi' });
    run.end();
    process.stdout.write(JSON.stringify(options.telemetry.integrations.map((i) => i.constructor.name)));`;
  const { code, stdout, stderr } = await node(['--input-type=commonjs', '-e', script]);
  expect(stderr).not.toContain('ERR_REQUIRE_ASYNC_MODULE');
  expect(code, stderr).toBe(0);
  expect(JSON.parse(stdout)).toEqual(['Object', 'OpenTelemetry']);
});

it('loads @ai-sdk/otel itself when not given it (the same module the application imports)', () => {
  const run = startAgentRun();
  const options = run.callOptions({ model, prompt: 'Hi', telemetry: { integrations: [] } });
  run.end();
  expect(options.telemetry.integrations[1]).toBeInstanceOf(aiSdkOtel.OpenTelemetry);
});

it('uses the @ai-sdk/otel given as the aiSdkOtel option', () => {
  const made = [];
  class CountedOpenTelemetry extends aiSdkOtel.OpenTelemetry {
    constructor(options) {
      super(options);
      made.push(options?.tracer !== undefined);
    }
  }
  const run = startAgentRun({
    aiSdkOtel: { OpenTelemetry: CountedOpenTelemetry, LegacyOpenTelemetry: aiSdkOtel.LegacyOpenTelemetry },
  });
  const options = run.callOptions({ model, prompt: 'Hi', telemetry: { integrations: [] } });
  run.end();
  // Made once, on the run's tracer.
  expect(made).toEqual([true]);
  expect(integrationsOf(options)).toEqual(['Object', 'CountedOpenTelemetry']);
});

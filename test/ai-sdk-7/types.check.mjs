// @ts-check
/**
 * A user of AI SDK 7 calling agent-incidents/ai-sdk, type-checked by `tsc`
 * (tsconfig.json: checkJs, strict, skipLibCheck off) against the packed
 * declarations and `ai` 7's: `run.callOptions` must accept 7's options
 * (`telemetry`, `timeout.firstChunkMs`, `toolMs`, per-tool timeouts) and
 * give back what `streamText` / `generateText` accept. Never run.
 */
import { createOpenAI } from '@ai-sdk/openai';
import * as aiSdkOtel from '@ai-sdk/otel';
import { OpenTelemetry } from '@ai-sdk/otel';
import { startAgentRun, withAgentRun } from 'agent-incidents/ai-sdk';
import { generateText, registerTelemetry, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';

registerTelemetry(new OpenTelemetry());
const model = createOpenAI({ apiKey: 'test' })('gpt-4o-mini');
const tools = {
  read_file: tool({
    description: 'Reads a file',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => path,
  }),
};

export async function streaming() {
  const { ok, incident } = await withAgentRun(
    { agentName: 'coder', toolSideEffects: { read_file: 'read_only' } },
    async (run) => {
      const result = streamText(
        run.callOptions({
          model,
          tools,
          prompt: 'Hi',
          stopWhen: stepCountIs(3),
          timeout: { firstChunkMs: 10_000, chunkMs: 30_000, toolMs: 60_000, tools: { read_fileMs: 5_000 } },
          telemetry: { functionId: 'coder', recordOutputs: false },
        }),
      );
      /** @type {string} */
      let text = '';
      for await (const part of result.fullStream) if (part.type === 'text-delta') text += part.text;
      return text;
    },
  );
  /** @type {boolean} */
  const done = ok;
  /** @type {import('agent-incidents').Incident['retrySafety']} */
  const retrySafety = incident.retrySafety;
  return { done, retrySafety };
}

export async function generating() {
  // `@ai-sdk/otel` handed over as the module (what a bundled application does).
  const run = startAgentRun({ agentName: 'coder', aiSdkOtel });
  try {
    // `experimental_telemetry` still works on 7 (deprecated); the model as a gateway id string too.
    const result = await run.with(() =>
      generateText(
        run.callOptions({ model: 'openai/gpt-4o-mini', prompt: 'Hi', experimental_telemetry: { isEnabled: true } }),
      ),
    );
    /** @type {string} */
    const text = result.text;
    return text;
  } catch (error) {
    run.fail(error);
    return undefined;
  } finally {
    run.end();
  }
}

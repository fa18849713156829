/**
 * The demo's simulated usage (src/demo/conversation.ts), recorded through
 * RunRecorder and the real IncidentSpanProcessor. The promises: a cost is the
 * price table's, to a millionth of a dollar; each provider reports usage when
 * the real one does (Anthropic's input at `message_start`, everything else
 * with the finish), so a stream cut off mid-answer shows Anthropic's input and
 * no output, and OpenAI's nothing; a later request of the run sends more and
 * reads the earlier prefix from the prompt cache; only OpenAI reports
 * reasoning tokens apart; a sequence reproduces the same figures.
 */
import { describe, expect, it } from 'vitest';
import type { DemoModel } from '../../src/demo/conversation.js';
import { Conversation, costOf, DEMO_MODELS, PRICES } from '../../src/demo/conversation.js';
import { seededRandom } from '../../src/demo/fleet.js';
import { createPipeline } from '../support/harness.js';

const [OPENAI, ANTHROPIC] = DEMO_MODELS as [DemoModel, DemoModel];
const boundary = { tools: [] };

/** The usage attributes of each exported attempt span, in order. */
function attemptUsage(pipeline: ReturnType<typeof createPipeline>) {
  return pipeline
    .spans()
    .filter((s) => s.attributes['gen_ai.operation.name'] === 'chat')
    .map((s) =>
      Object.fromEntries(
        Object.entries(s.attributes).filter(([key]) => key.startsWith('gen_ai.usage.') || key.includes('cost_usd')),
      ),
    );
}

describe('costOf', () => {
  it.each([
    ['uncached input at the input price', { input: 1_000_000, cached: 0, output: 0 }, 'gpt-5-mini', 0.25],
    ['cached input at the cached price', { input: 1_000_000, cached: 1_000_000, output: 0 }, 'gpt-5-mini', 0.025],
    ['output at the output price', { input: 0, cached: 0, output: 1_000 }, 'claude-sonnet-4-5', 0.015],
    ['rounded to a millionth of a dollar', { input: 3, cached: 0, output: 0 }, 'gpt-5-mini', 0.000001],
  ] as const)('prices %s', (_name, usage, model, usd) => {
    expect(costOf(PRICES[model], usage)).toBe(usd);
  });
});

describe('Conversation', () => {
  it.each([
    [OPENAI, { input: false, cached: false, cost: false }],
    [ANTHROPIC, { input: true, cached: true, cost: true }],
  ])('a stream cut off mid-answer shows what %o reported by then', async (model, shows) => {
    const pipeline = createPipeline();
    const run = pipeline.startRun();
    const talk = new Conversation(model, seededRandom(4));
    const a = run.startAttempt({ boundary });
    talk.streamed(a);
    a.textOutput();
    a.fail(Object.assign(new TypeError('terminated'), { cause: { code: 'UND_ERR_SOCKET' } }));
    const incident = run.end();
    await pipeline.provider.forceFlush();
    const [usage] = attemptUsage(pipeline);
    expect('gen_ai.usage.input_tokens' in usage!).toBe(shows.input);
    expect('gen_ai.usage.cache_read.input_tokens' in usage!).toBe(shows.cached);
    expect('agent_incidents.usage.cost_usd' in usage!).toBe(shows.cost);
    expect(usage!['gen_ai.usage.output_tokens']).toBeUndefined();
    // Never a silent zero: the figures are a floor.
    expect(incident.lost).toMatchObject({ attempts: 1, outputTokens: 0, lowerBound: true });
    expect(incident.lost!.inputTokens > 0).toBe(shows.input);
  });

  it.each([OPENAI, ANTHROPIC])(
    'a finished attempt of %o reports its whole usage, priced; a later one sends more and reads the earlier prompt from the cache',
    async (model) => {
      const pipeline = createPipeline();
      const run = pipeline.startRun();
      const talk = new Conversation(model, seededRandom(9));
      const a = run.startAttempt({ boundary });
      talk.streamed(a);
      a.toolCallMaterialized({ name: 'read', sideEffects: 'read_only' });
      talk.finish(a, ['tool-calls'], 'tool_call');
      talk.toolResult();
      const b = run.startAttempt({ boundary });
      talk.finish(b, ['stop']);
      run.end();
      await pipeline.provider.forceFlush();
      const [first, second] = attemptUsage(pipeline) as [Record<string, number>, Record<string, number>];
      for (const usage of [first, second]) {
        // A system prompt and history: thousands of tokens in, tens to hundreds (plus reasoning) out.
        expect(usage['gen_ai.usage.input_tokens']).toBeGreaterThan(2_400);
        expect(usage['gen_ai.usage.output_tokens']).toBeGreaterThanOrEqual(20);
        const reasoning = usage['gen_ai.usage.reasoning.output_tokens'];
        expect(reasoning !== undefined).toBe(model.providerName === 'openai');
        const input = usage['gen_ai.usage.input_tokens']!;
        const cached = usage['gen_ai.usage.cache_read.input_tokens']!;
        const output = usage['gen_ai.usage.output_tokens']!;
        expect(usage['agent_incidents.usage.cost_usd']).toBe(costOf(PRICES[model.model], { input, cached, output }));
      }
      expect(second['gen_ai.usage.input_tokens']).toBeGreaterThan(first['gen_ai.usage.input_tokens']!);
      expect(second['gen_ai.usage.cache_read.input_tokens']).toBe(first['gen_ai.usage.input_tokens']);
    },
  );

  it('reproduces its figures for a sequence, and gives others for another', async () => {
    const figures = async (seed: number) => {
      const pipeline = createPipeline();
      const run = pipeline.startRun();
      const talk = new Conversation(ANTHROPIC, seededRandom(seed));
      talk.finish(run.startAttempt({ boundary }), ['stop'], 'reasoning');
      run.end();
      await pipeline.provider.forceFlush();
      return attemptUsage(pipeline);
    };
    expect(await figures(5)).toEqual(await figures(5));
    expect(await figures(5)).not.toEqual(await figures(6));
  });
});

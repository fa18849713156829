/**
 * recordChatCompletionStream: OpenAI Chat Completions chunks become facts on
 * an attempt, and the stream reaches the caller unchanged.
 */
import { describe, expect, it } from 'vitest';
import { incidentAttributes, recordChatCompletionStream } from '../../src/index.js';
import type { ChatCompletionChunkLike, Incident } from '../../src/index.js';
import { createPipeline, errors } from '../support/harness.js';
import { hrTimeToMillis } from '../../src/model/hr-time.js';

const text = (content: string): ChatCompletionChunkLike => ({ choices: [{ delta: { content } }] });
const toolStart = (index: number, name: string): ChatCompletionChunkLike => ({
  choices: [{ delta: { tool_calls: [{ index, id: `call_${index}`, function: { name, arguments: '' } }] } }],
});
const toolArgs = (index: number, args: string): ChatCompletionChunkLike => ({
  choices: [{ delta: { tool_calls: [{ index, function: { arguments: args } }] } }],
});
const finish = (reason: string): ChatCompletionChunkLike => ({ choices: [{ delta: {}, finish_reason: reason }] });

async function* chunks(
  list: readonly ChatCompletionChunkLike[],
  error?: Error,
): AsyncGenerator<ChatCompletionChunkLike> {
  for (const chunk of list) yield chunk;
  if (error) throw error;
}

async function record(
  list: readonly ChatCompletionChunkLike[],
  error?: Error,
): Promise<{ incident: Incident; seen: number; thrown: unknown }> {
  const pipeline = createPipeline();
  const run = pipeline.startRun();
  const attempt = run.startAttempt({
    boundary: {
      tools: [
        { name: 'read_file', sideEffects: 'read_only' },
        { name: 'run_shell', sideEffects: 'unsafe' },
      ],
    },
  });
  let seen = 0;
  let thrown: unknown;
  try {
    for await (const chunk of recordChatCompletionStream(attempt, chunks(list, error), {
      toolSideEffects: { read_file: 'read_only', run_shell: 'unsafe' },
    })) {
      if (chunk) seen += 1;
    }
  } catch (caught) {
    thrown = caught;
  }
  const incident = run.end();
  // The runtime's verdict is the exported one.
  const exported = pipeline.runSpans()[0]?.attributes ?? {};
  const own = incidentAttributes(incident);
  expect(Object.fromEntries(Object.keys(own).map((key) => [key, exported[key]]))).toEqual(own);
  return { incident, seen, thrown };
}

describe('recordChatCompletionStream', () => {
  it('passes every chunk through and rethrows the stream error after recording it', async () => {
    const drop = errors.socketDrop();
    const { incident, seen, thrown } = await record([text('Hel'), text('lo')], drop);
    expect(seen).toBe(2);
    expect(thrown).toBe(drop);
    expect(incident).toMatchObject({
      cause: 'provider_transport_disconnect',
      phase: 'text_generation',
      retrySafety: 'offer_continue',
      errorCode: 'UND_ERR_SOCKET',
    });
  });

  it('records a tool call streaming its input as partial tool input', async () => {
    const { incident } = await record([toolStart(0, 'run_shell'), toolArgs(0, '{"comm')], errors.socketDrop());
    expect(incident).toMatchObject({
      phase: 'tool_input_generation',
      retrySafety: 'offer_continue',
      retrySafetyReason: 'partial_tool_input_without_execution',
    });
  });

  it('materializes each tool call once it is complete — when the next starts, or at the finish — each with its class, once', async () => {
    const pipeline = createPipeline();
    const run = pipeline.startRun();
    const attempt = run.startAttempt({ boundary: { tools: [] } });
    const stream = chunks([toolStart(0, 'read_file'), toolStart(1, 'run_shell'), finish('tool_calls')]);
    for await (const chunk of recordChatCompletionStream(attempt, stream, {
      toolSideEffects: { read_file: 'read_only', run_shell: 'unsafe' },
    }))
      void chunk;
    expect(run.end().outcome).toBe('success');
    const events = pipeline.spans().find((s) => s.name.startsWith('chat'))?.events ?? [];
    const calls = events
      .filter((e) => e.name === 'agent_incidents.tool_call_materialized')
      .map((e) => [e.attributes?.['gen_ai.tool.name'], e.attributes?.['agent_incidents.tool.side_effects']]);
    expect(calls).toEqual([
      ['read_file', 'read_only'],
      ['run_shell', 'unsafe'],
    ]);
    expect(events.at(-1)?.name).toBe('agent_incidents.attempt_finished');
  });

  it('has the first call materialized before the chunk that starts the second reaches the runtime', async () => {
    const pipeline = createPipeline();
    const run = pipeline.startRun();
    const attempt = run.startAttempt({ boundary: { tools: [{ name: 'run_shell', sideEffects: 'unsafe' }] } });
    const stream = chunks(
      [toolStart(0, 'run_shell'), toolArgs(0, '{}'), toolStart(1, 'run_shell')],
      errors.socketDrop(),
    );
    try {
      for await (const chunk of recordChatCompletionStream(attempt, stream, {
        toolSideEffects: { run_shell: 'unsafe' },
      })) {
        // The runtime runs call 0 as soon as call 1 starts.
        if (chunk.choices?.[0]?.delta?.tool_calls?.[0]?.index === 1) {
          run.startTool({ name: 'run_shell', sideEffects: 'unsafe', attempt }).complete();
        }
      }
    } catch {
      // the drop
    }
    expect(run.end()).toMatchObject({
      retrySafety: 'ask_user_before_retry',
      retrySafetyReason: 'unsafe_side_effect_started',
    });
    const spans = pipeline.spans();
    const materialized = spans
      .find((s) => s.name.startsWith('chat'))!
      .events.filter((e) => e.name === 'agent_incidents.tool_call_materialized');
    const tool = spans.find((s) => s.name.startsWith('execute_tool'))!;
    // Call 0 only: call 1 never completed. Recorded before the tool started.
    expect(materialized).toHaveLength(1);
    expect(hrTimeToMillis(materialized[0]!.time)).toBeLessThan(hrTimeToMillis(tool.startTime));
  });

  it('finishes with the token use of the trailing usage chunk, also when the caller stops at the finish chunk', async () => {
    const usage: ChatCompletionChunkLike = { choices: [], usage: { prompt_tokens: 28, completion_tokens: 5 } };
    for (const stopEarly of [false, true]) {
      const pipeline = createPipeline();
      const run = pipeline.startRun();
      const attempt = run.startAttempt({ boundary: { tools: [] } });
      for await (const chunk of recordChatCompletionStream(attempt, chunks([text('Hi'), finish('stop'), usage]))) {
        if (stopEarly && chunk.choices?.[0]?.finish_reason) break;
      }
      expect(attempt.ended).toBe(true);
      // Stopped before the usage chunk, the run claims no token counts at all.
      const { turns, inputTokens, outputTokens } = run.snapshot();
      expect({ turns, inputTokens, outputTokens }).toEqual({
        turns: 1,
        inputTokens: stopEarly ? undefined : 28,
        outputTokens: stopEarly ? undefined : 5,
      });
      expect(run.end().outcome).toBe('success');
      const span = pipeline.spans().find((s) => s.name.startsWith('chat'))!;
      expect(span.attributes['gen_ai.usage.input_tokens']).toBe(stopEarly ? undefined : 28);
    }
  });

  it('records the usage chunk when it comes, with cached and reasoning tokens, so a drop after it still counts it', async () => {
    const usage: ChatCompletionChunkLike = {
      choices: [],
      usage: {
        prompt_tokens: 1200,
        completion_tokens: 85,
        prompt_tokens_details: { cached_tokens: 1024 },
        completion_tokens_details: { reasoning_tokens: 40 },
      },
    };
    // A provider that sends usage before its finish chunk, then the socket drops.
    const { incident } = await record([text('Hi'), usage], errors.socketDrop());
    expect(incident.lost).toEqual({
      attempts: 1,
      inputTokens: 1200,
      outputTokens: 85,
      cachedInputTokens: 1024,
      reasoningTokens: 40,
      lowerBound: false,
    });
  });

  it('a transport error after the finish chunk does not fail a complete answer', async () => {
    const { incident, thrown } = await record([text('Hi'), finish('stop')], errors.socketDrop());
    expect(thrown).toBeDefined();
    expect(incident.outcome).toBe('success');
  });

  it('leaves an attempt whose stream ended without a finish reason open, so its run is judged cut off', async () => {
    const { incident } = await record([text('Hel')]);
    expect(incident).toMatchObject({ outcome: 'failed', cause: 'unknown_interruption', phase: 'text_generation' });
    expect(incident.missingFacts).toContain('terminal_event_missing');
  });
});

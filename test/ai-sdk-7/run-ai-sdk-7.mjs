/**
 * Drives one AI SDK 7 `streamText` / `generateText` call through the real
 * provider packages (@ai-sdk/openai 4, @ai-sdk/anthropic 4) against the fake
 * provider, with or without `withAgentRun`, into a real tracer provider with
 * the IncidentSpanProcessor. The AI SDK 7 twin of test/ai-sdk/run-ai-sdk.ts:
 * same tools, same prompt, same stop rules (not the same settle rule: see `settled`); what differs is how
 * telemetry is wired (`@ai-sdk/otel`'s `OpenTelemetry` integration instead of
 * `experimental_telemetry.tracer`). Everything from agent-incidents comes
 * from the packed package, as a user gets it.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { OpenTelemetry } from '@ai-sdk/otel';
import { BasicTracerProvider, SimpleSpanProcessor } from './otel-sdk.mjs';
import { IncidentSpanProcessor } from 'agent-incidents';
import { withAgentRun } from 'agent-incidents/ai-sdk';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';

/** The tools every scenario exposes, with the classes the integration is told (as in the AI SDK 6 suite). */
export const TOOL_CLASSES = { read_file: 'read_only', run_shell: 'unsafe' };

function tools(onShellStarted) {
  return {
    read_file: tool({
      description: 'Reads a file',
      inputSchema: z.object({ path: z.string() }),
      execute: async () => 'file contents',
    }),
    run_shell: tool({
      description: 'Runs a shell command',
      inputSchema: z.object({ command: z.string() }),
      // Takes 1.5 s (longer than any row's timeout), and stops, throwing the
      // abort reason, when the call is aborted, as a well-behaved tool does.
      execute: async (_input, { abortSignal }) => {
        onShellStarted();
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, 1500);
          abortSignal?.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(abortSignal.reason);
          });
        });
        return 'done';
      },
    }),
  };
}

function modelOf(fake, dialect) {
  if (dialect === 'anthropic') return createAnthropic({ baseURL: fake.baseURL, apiKey: 'test' })('claude-sonnet-4-5');
  const openai = createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' });
  return dialect === 'openai.chat' ? openai.chat('gpt-4o-mini') : openai('gpt-4o-mini');
}

/** Keeps every exported span, even those a processor finalizes at shutdown. */
class KeepingExporter {
  spans = [];
  export(spans, done) {
    this.spans.push(...spans);
    done({ code: 0 });
  }
  shutdown() {
    return Promise.resolve();
  }
  forceFlush() {
    return Promise.resolve();
  }
}

/** Counts spans as they start and end, to prove every one is exported and to know when they all ended. */
class StartedSpans {
  count = 0;
  ended = 0;
  /** Spans started and not ended yet, for the message when one never ends. */
  open = new Set();
  #waiters = [];
  onStart(span) {
    this.count += 1;
    this.open.add(span);
  }
  onEnd(span) {
    this.ended += 1;
    this.open.delete(span);
    if (this.ended === this.count) for (const resolve of this.#waiters.splice(0)) resolve();
  }
  /** Resolves when every span started so far has ended. */
  allEnded() {
    return this.ended === this.count ? Promise.resolve() : new Promise((resolve) => this.#waiters.push(resolve));
  }
  forceFlush() {
    return Promise.resolve();
  }
  shutdown() {
    return Promise.resolve();
  }
}

/**
 * Resolves once every span that started has ended. Called when the call's
 * promise has settled (with the helper, after `run.end()`): the SDK starts no
 * span after that, so what is left is spans already started ending later (a
 * tool that stops on the abort, an SDK span ended in a later callback); when
 * none is open, nothing more can end. On AI SDK 7 every span ends (unlike 6,
 * whose `ai.streamText` can stay open on a broken stream): a span still open
 * after 5 s fails the row, naming it, instead of being judged as cut off.
 */
async function settled(spans) {
  let timer;
  const stuck = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`spans never ended: ${[...spans.open].map((s) => s.name).join(', ')}`)),
      5000,
    );
  });
  try {
    await Promise.race([spans.allEnded(), stuck]);
  } finally {
    clearTimeout(timer);
  }
}

async function consume(result, stopSoon, plan) {
  let armed = false;
  for await (const part of result.fullStream) {
    if (!armed && part.type === plan.stopAfter?.part) {
      armed = true;
      stopSoon();
    }
  }
}

/**
 * Runs one call; `helper` chooses between `withAgentRun` and plain
 * `@ai-sdk/otel` spans. Returns the in-process verdict (with the helper), the
 * exported run span, every exported span and how many spans started.
 */
export async function runCall(fake, plan, helper) {
  const started = new StartedSpans();
  const exporter = new KeepingExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new IncidentSpanProcessor({ sweepIntervalMillis: 0 }), new SimpleSpanProcessor(exporter), started],
  });
  const stop = plan.stopAfter ? new AbortController() : undefined;
  const stopSoon = () => {
    setTimeout(() => stop?.abort(), plan.stopAfter?.delayMs ?? 0);
  };
  const base = {
    model: modelOf(fake, plan.dialect),
    tools: tools(() => {
      if (plan.stopAfter?.part === 'tool-started') stopSoon();
    }),
    prompt: 'Look at the repository.',
    maxRetries: plan.maxRetries ?? 0,
    stopWhen: stepCountIs(4),
    timeout: plan.timeout,
    onError: () => undefined,
  };
  const call = async (options) => {
    if (plan.call === 'generateText') await generateText(options);
    else await consume(streamText(options), stopSoon, plan);
  };
  let inProcess;
  if (helper) {
    // The run's tracer is where the helper's OpenTelemetry integration sends the SDK's spans.
    const result = await withAgentRun(
      {
        agentName: 'coder',
        tracer: provider.getTracer('test'),
        toolSideEffects: TOOL_CLASSES,
        abortSignal: stop?.signal,
      },
      async (run) => call(run.callOptions(base)),
    );
    inProcess = result.incident;
  } else {
    try {
      // As a user wires @ai-sdk/otel: `new OpenTelemetry()` uses the tracer `gen_ai`, here of this provider.
      const telemetry = { integrations: [new OpenTelemetry({ tracer: provider.getTracer('gen_ai') })] };
      await call({ ...base, abortSignal: stop?.signal, telemetry });
    } catch {
      // The app saw the error; the spans are what is judged.
    }
  }
  await settled(started);
  await provider.forceFlush();
  const spans = [...exporter.spans];
  await provider.shutdown();
  const run = spans.find((s) => s.attributes['incident.outcome'] !== undefined && s.parentSpanContext === undefined);
  return { inProcess, run, spans, started: started.count };
}

/**
 * Drives one AI SDK 6 `streamText` call through the real provider packages
 * against the fake provider, with or without the agent-incidents integration,
 * into a real tracer provider with the IncidentSpanProcessor.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import type { LanguageModel } from 'ai';
import { z } from 'zod';
import type { TimeoutSetting } from '../../src/ai-sdk/index.js';
import { withAgentRun } from '../../src/ai-sdk/index.js';
import type { Incident } from '../../src/index.js';
import type { FakeProvider } from '../../src/testing/fake-provider.js';
import { createPipeline } from '../support/harness.js';

/** Which provider package and API talks to the fake server. */
export type Dialect = 'openai.chat' | 'openai.responses' | 'anthropic';

/** One scenario's call. */
export interface CallPlan {
  readonly dialect: Dialect;
  /** The SDK call. @default 'streamText' */
  readonly call?: 'streamText' | 'generateText';
  /** @default 0 */
  readonly maxRetries?: number;
  readonly timeout?: TimeoutSetting;
  /**
   * The user presses stop `delayMs` after the first stream part of this type,
   * or after `run_shell` started running (`'tool-started'`). @default never
   */
  readonly stopAfter?: { readonly part: string; readonly delayMs?: number };
}

/** The tools every scenario exposes, with the classes the integration is told. */
export const TOOL_CLASSES = { read_file: 'read_only', run_shell: 'unsafe' } as const;

function tools(onShellStarted: () => void) {
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
            reject(abortSignal.reason as Error);
          });
        });
        return 'done';
      },
    }),
  };
}

function modelOf(fake: FakeProvider, dialect: Dialect): LanguageModel {
  if (dialect === 'anthropic') return createAnthropic({ baseURL: fake.baseURL, apiKey: 'test' })('claude-sonnet-4-5');
  const openai = createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' });
  return dialect === 'openai.chat' ? openai.chat('gpt-4o-mini') : openai('gpt-4o-mini');
}

/** Counts spans as they start and end, to prove every one is exported and to know when they settled. */
class StartedSpans implements SpanProcessor {
  count = 0;
  ended = 0;
  onStart(_span: Span): void {
    this.count += 1;
  }
  onEnd(_span: ReadableSpan): void {
    this.ended += 1;
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** Resolves once no span has ended for 40 ms (at most 2 s): the SDK's late ends are in. */
async function settled(spans: StartedSpans): Promise<void> {
  for (let waited = 0, last = -1; waited < 2000 && spans.ended !== last; waited += 40) {
    last = spans.ended;
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
}

/** What one driven call produced. */
export interface CallOutcome {
  /** The verdict the integration gave in-process (absent without it). */
  readonly inProcess?: Incident;
  /** The run span as exported. */
  readonly run: ReadableSpan | undefined;
  readonly spans: readonly ReadableSpan[];
  readonly started: number;
}

async function consume(
  result: { readonly fullStream: AsyncIterable<{ readonly type: string }> },
  stopSoon: () => void,
  plan: CallPlan,
): Promise<void> {
  let armed = false;
  for await (const part of result.fullStream) {
    if (!armed && part.type === plan.stopAfter?.part) {
      armed = true;
      stopSoon();
    }
  }
}

/** Runs one call; `helper` chooses between the integration and plain `experimental_telemetry`. */
export async function runCall(fake: FakeProvider, plan: CallPlan, helper: boolean): Promise<CallOutcome> {
  const started = new StartedSpans();
  const pipeline = createPipeline({}, [started]);
  const { provider } = pipeline;
  const stop = plan.stopAfter ? new AbortController() : undefined;
  const stopSoon = (): void => {
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
  // The same call either way; only how it is wired differs.
  const call = async (options: typeof base): Promise<void> => {
    if (plan.call === 'generateText') await generateText(options);
    else await consume(streamText(options), stopSoon, plan);
  };
  let inProcess: Incident | undefined;
  if (helper) {
    const result = await withAgentRun(
      { agentName: 'coder', tracer: pipeline.tracer, toolSideEffects: TOOL_CLASSES, abortSignal: stop?.signal },
      async (run) => call(run.callOptions(base)),
    );
    inProcess = result.incident;
  } else {
    try {
      await call({
        ...base,
        abortSignal: stop?.signal,
        experimental_telemetry: { isEnabled: true, tracer: pipeline.tracer },
      } as typeof base);
    } catch {
      // The app saw the error; the spans are what is judged.
    }
  }
  // Let tool executions and late span ends settle (no span ended for 40 ms), then finalize what never ended.
  await settled(started);
  await provider.forceFlush();
  const spans = [...pipeline.spans()];
  await provider.shutdown();
  const run = spans.find((s) => s.attributes['incident.outcome'] !== undefined && s.parentSpanContext === undefined);
  return { inProcess, run, spans, started: started.count };
}

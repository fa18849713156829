/**
 * A small coding agent on the Vercel AI SDK (`streamText` with a read-only
 * `read_file` and an unsafe `run_shell`), with agent-incidents explaining how
 * each run ended and the agent gating its own retries on that verdict.
 *
 *   node examples/vercel-ai/main.mjs
 *
 * Without OPENAI_API_KEY or ANTHROPIC_API_KEY it plays three runs against the
 * fake provider of agent-incidents/testing (real HTTP on 127.0.0.1): a socket
 * drop after text, a 503 then a success, and a user stop while run_shell
 * runs. With a key it runs one task against the real model. With
 * OTEL_EXPORTER_OTLP_ENDPOINT set, spans go to that collector instead of the
 * console.
 */
import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { anthropic } from '@ai-sdk/anthropic';
import { createOpenAI, openai } from '@ai-sdk/openai';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { stepCountIs, streamText, tool } from 'ai';
import { IncidentSpanProcessor } from 'agent-incidents';
import { withAgentRun } from 'agent-incidents/ai-sdk';
import { reply, startFakeProvider } from 'agent-incidents/testing';
import { z } from 'zod';

/** Model steps (requests) of one `streamText` call. */
const MAX_STEPS = 5;
/** How long the simulated run_shell takes. */
const SHELL_MILLIS = 2000;

/** What each tool may do to the world: the verdict needs it to tell whether a retry is safe. */
const TOOL_SIDE_EFFECTS = { read_file: 'read_only', run_shell: 'unsafe' };

const tools = {
  read_file: tool({
    description: 'Reads a text file of the current directory.',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => {
      const file = resolve(path);
      if (relative(process.cwd(), file).startsWith('..')) throw new Error(`${path} is outside the current directory`);
      return (await readFile(file, 'utf8')).slice(0, 4000);
    },
  }),
  run_shell: tool({
    description: 'Runs a shell command in the current directory.',
    inputSchema: z.object({ command: z.string() }),
    // This example never runs what a model asks for: it pretends to, and stops
    // when the run is aborted, as a real command must (kill it on abort).
    execute: async ({ command }, { abortSignal }) => {
      await sleep(SHELL_MILLIS, undefined, { signal: abortSignal });
      return `$ ${command}\n(simulated) exit code 0`;
    },
  }),
};

/** What a runtime does next, by retry safety. */
const NEXT_STEP = {
  auto_retry: 'retry now',
  offer_continue: 'offer the user to continue',
  ask_user_before_retry: 'ask the user before retrying',
  do_not_retry: 'stop',
  unknown: 'ask the user before retrying',
};

/** Prints one line per exported run span with its incident attributes. */
class ConsoleRunExporter {
  export(spans, done) {
    for (const span of spans) {
      if (span.attributes['incident.outcome'] === undefined) continue;
      const incident = Object.entries(span.attributes).filter(([key]) => key.startsWith('incident.'));
      console.log(`  exported span "${span.name}": ${incident.map(([key, value]) => `${key}=${value}`).join(' ')}`);
    }
    done({ code: ExportResultCode.SUCCESS });
  }

  shutdown() {
    return Promise.resolve();
  }
}

function spanProcessor() {
  // OTLPTraceExporter reads OTEL_EXPORTER_OTLP_ENDPOINT itself and posts to its /v1/traces.
  if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
    console.log(`Spans go to ${process.env.OTEL_EXPORTER_OTLP_ENDPOINT} over OTLP/HTTP.`);
    return new BatchSpanProcessor(new OTLPTraceExporter());
  }
  return new SimpleSpanProcessor(new ConsoleRunExporter());
}

// The incident processor goes first: at shutdown it ends runs that never ended, while the exporter still runs.
const provider = new BasicTracerProvider({
  // The service name to pick in Jaeger's search.
  resource: resourceFromAttributes({ 'service.name': 'coding-agent-vercel-ai' }),
  spanProcessors: [new IncidentSpanProcessor(), spanProcessor()],
});
const tracer = provider.getTracer('coding-agent');
// The run span must stay active across awaits for the SDK's spans to nest in it.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

/**
 * One `streamText` call from `conversation`; prints its tool calls and text.
 * Returns the error that ended it, if any. `onStepFinish` keeps `conversation` up to date
 * step by step, so a retry resumes after the last finished step instead of
 * running its tools again.
 */
async function streamOnce(run, model, conversation, onToolCall) {
  const initial = [...conversation];
  const result = streamText(
    run.callOptions({
      model,
      tools,
      messages: initial,
      stopWhen: stepCountIs(MAX_STEPS),
      // The agent owns retries (gated on the verdict), so the SDK must not retry behind its back.
      maxRetries: 0,
      onStepFinish: (step) => conversation.splice(0, conversation.length, ...initial, ...step.response.messages),
      // Errors are read from fullStream below; the default handler would log them again.
      onError: () => undefined,
    }),
  );
  let text = '';
  let failure;
  try {
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') text += part.text;
      // A request that fails before its stream starts (an HTTP 503) arrives as an error part…
      if (part.type === 'error') failure = part.error;
      if (part.type === 'tool-call') {
        console.log(`  tool: ${part.toolName} ${JSON.stringify(part.input)}`);
        onToolCall(run);
      }
    }
  } catch (error) {
    // …and a stream that breaks (a dropped socket) throws.
    failure = error;
  }
  if (text) console.log(`  assistant: ${text}`);
  return failure;
}

/**
 * One agent run. `onToolCall(run)` lets the demo play a user who presses
 * stop (`run.cancel()`) while a tool runs.
 */
async function agentRun({ model, providerName, task, onToolCall = () => undefined }) {
  const conversation = [{ role: 'user', content: task }];
  const { incident } = await withAgentRun(
    { tracer, agentName: 'coder', providerName, toolSideEffects: TOOL_SIDE_EFFECTS },
    async (run) => {
      for (;;) {
        const failure = await streamOnce(run, model, conversation, onToolCall);
        if (failure === undefined) return;
        // The agent gates its own retry on the verdict: only a request that showed
        // nothing and ran nothing is replayed, within the policy's retry budget
        // (maxAutoRetries, 1 by default), which the verdict already counts.
        const verdict = run.incident();
        const retry = verdict.retrySafety === 'auto_retry';
        console.log(
          `  request failed, ${causeOf(verdict)}: retry safety ${verdict.retrySafety} → ${retry ? 'retrying now' : 'not retrying'}`,
        );
        if (!retry) throw failure;
      }
    },
  );
  return incident;
}

function causeOf(incident) {
  return incident.causeDetail ? `${incident.cause} (${incident.causeDetail})` : incident.cause;
}

/** One human line: how the run ended, where, what it may have changed, and what to do next. */
function describe(incident) {
  if (incident.outcome === 'success') return `success, side effects ${incident.sideEffects} → done`;
  const next = incident.outcome === 'recovered' ? 'done, the retry worked' : NEXT_STEP[incident.retrySafety];
  return `${incident.outcome}: ${causeOf(incident)}, phase ${incident.phase}, side effects ${incident.sideEffects}, retry safety ${incident.retrySafety} → ${next}`;
}

async function play(title, plan) {
  console.log(`\n${title}\n  user: ${plan.task}`);
  const incident = await agentRun(plan);
  console.log(`  verdict: ${describe(incident)}`);
}

function realModel() {
  if (process.env.OPENAI_API_KEY) return { model: openai('gpt-4o-mini'), providerName: 'openai' };
  if (process.env.ANTHROPIC_API_KEY) return { model: anthropic('claude-haiku-4-5'), providerName: 'anthropic' };
  return undefined;
}

const real = realModel();
if (real) {
  await play(`A real run on ${real.providerName}`, {
    ...real,
    task: process.argv[2] ?? 'Read package.json and tell me the package name and version.',
  });
} else {
  const fake = await startFakeProvider();
  console.log(`Fake provider on ${fake.url} (set OPENAI_API_KEY or ANTHROPIC_API_KEY to use a real model).`);
  const fakeModel = {
    model: createOpenAI({ baseURL: fake.baseURL, apiKey: 'fake-key' })('gpt-4o-mini'),
    providerName: 'openai',
  };
  try {
    fake.enqueue(
      reply.script({ type: 'text', text: ['The README', ' explains'] }, { type: 'delay', ms: 20 }, { type: 'destroy' }),
    );
    await play('(a) the socket drops while the answer streams', { ...fakeModel, task: 'Summarize README.md.' });

    fake.enqueue(reply.status(503), reply.text('The package is agent-incidents.'));
    await play('(b) the provider answers 503, then 200', { ...fakeModel, task: 'What is this package called?' });

    fake.enqueue(reply.toolCall('run_shell', { command: 'npm test' }));
    await play('(c) the user presses stop while run_shell runs', {
      ...fakeModel,
      task: 'Run the tests.',
      onToolCall: (run) =>
        setTimeout(() => {
          console.log('  user: [presses stop]');
          run.cancel('user_stop');
        }, 200),
    });
  } finally {
    await fake.close();
  }
}
await provider.shutdown();

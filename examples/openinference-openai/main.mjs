/**
 * A small coding agent on the `openai` SDK, traced by the OpenInference
 * instrumentation, with agent-incidents explaining how each run ended.
 *
 * The instrumentation records one LLM span per request but nothing while a
 * stream runs, so the agent records the facts itself: a RunRecorder for the
 * run, one attempt per request (the instrumentation's span nests inside it),
 * the stream's text and tool calls through recordChatCompletionStream, and
 * each tool it runs. It then asks the recorder for the verdict, and the
 * IncidentSpanProcessor writes the same verdict on the exported run span.
 *
 *   node examples/openinference-openai/main.mjs
 *
 * Without OPENAI_API_KEY it plays two runs against the fake provider of
 * agent-incidents/testing (real HTTP on 127.0.0.1). With OPENAI_API_KEY it
 * runs one task against OpenAI. With OTEL_EXPORTER_OTLP_ENDPOINT set, spans go
 * to that collector instead of the console.
 */
import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import OpenAI from 'openai';
import * as OpenAIModule from 'openai';
import { IncidentSpanProcessor, recordChatCompletionStream, RunRecorder } from 'agent-incidents';
import { reply, startFakeProvider } from 'agent-incidents/testing';

const MODEL = 'gpt-4o-mini';
/** Requests one run may make (tool round trips and retries included). */
const MAX_REQUESTS = 6;

/** What each tool may do to the world: the verdict needs it to tell whether a retry is safe. */
const TOOL_SIDE_EFFECTS = { read_file: 'read_only' };
const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Reads a text file of the current directory.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
];
/** The side-effect boundary of every request: the tools the model may call. */
const BOUNDARY = { tools: Object.entries(TOOL_SIDE_EFFECTS).map(([name, sideEffects]) => ({ name, sideEffects })) };

/** What a runtime does next, by retry safety. */
const NEXT_STEP = {
  auto_retry: 'retry now',
  offer_continue: 'offer the user to continue',
  ask_user_before_retry: 'ask the user before retrying',
  do_not_retry: 'stop',
  unknown: 'ask the user before retrying',
};

// A known bug of the instrumentation (4.2.7): it reads its copy of each stream
// in a promise nobody handles (`void consumeChatCompletionStreamChunks(...)`).
// When the stream breaks (a dropped socket), that promise rejects with the very
// error the agent already caught and recorded, and Node exits with code 1 on
// the unhandled rejection. Those errors are set aside here; any other
// unhandled rejection is rethrown, which crashes the process as by default.
const handledStreamErrors = new WeakSet();
process.on('unhandledRejection', (reason) => {
  if (handledStreamErrors.has(reason)) return;
  throw reason;
});

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
  resource: resourceFromAttributes({ 'service.name': 'coding-agent-openai' }),
  spanProcessors: [new IncidentSpanProcessor(), spanProcessor()],
});
const tracer = provider.getTracer('coding-agent');
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const instrumentation = new OpenAIInstrumentation({ tracerProvider: provider });
// Without a loader hook nothing patches an ES module import: hand the module to the instrumentation.
instrumentation.manuallyInstrument(OpenAIModule);

/** read_file: a file under the current directory, never outside it. */
async function readFileTool({ path }) {
  const file = resolve(path);
  if (relative(process.cwd(), file).startsWith('..')) throw new Error(`${path} is outside the current directory`);
  return (await readFile(file, 'utf8')).slice(0, 4000);
}

/**
 * Streams one answer into `answer` (text and tool calls). The instrumentation's
 * LLM span starts inside the attempt span, so it nests under it in the trace.
 */
async function streamAnswer(client, attempt, messages, answer) {
  await context.with(trace.setSpan(context.active(), attempt.span), async () => {
    const stream = await client.chat.completions.create({ model: MODEL, messages, tools: TOOLS, stream: true });
    for await (const chunk of recordChatCompletionStream(attempt, stream, { toolSideEffects: TOOL_SIDE_EFFECTS })) {
      const delta = chunk.choices[0]?.delta;
      if (delta?.content) answer.text += delta.content;
      for (const part of delta?.tool_calls ?? []) {
        // A tool call arrives in pieces: its id and name first, then its arguments.
        const call = (answer.toolCalls[part.index] ??= { id: '', name: '', arguments: '' });
        call.id ||= part.id ?? '';
        call.name ||= part.function?.name ?? '';
        call.arguments += part.function?.arguments ?? '';
      }
    }
  });
}

/** Runs the tools the model called and appends their results to the conversation. */
async function runTools(run, attempt, answer, messages) {
  messages.push({
    role: 'assistant',
    content: answer.text || null,
    tool_calls: answer.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    })),
  });
  for (const call of answer.toolCalls) {
    console.log(`  tool: ${call.name} ${call.arguments}`);
    const tool = run.startTool({
      name: call.name,
      callId: call.id,
      sideEffects: TOOL_SIDE_EFFECTS[call.name],
      attempt,
    });
    let content;
    try {
      if (call.name !== 'read_file') throw new Error(`unknown tool ${call.name}`);
      content = await readFileTool(JSON.parse(call.arguments));
      tool.complete();
    } catch (error) {
      tool.fail(error);
      content = `Error: ${error.message}`;
    }
    messages.push({ role: 'tool', tool_call_id: call.id, content });
  }
}

/** One agent run: requests and tool calls until the model answers, or the verdict says stop. */
async function agentRun(client, task) {
  const run = RunRecorder.start({ tracer, agentName: 'coder', providerName: 'openai', model: MODEL });
  const messages = [{ role: 'user', content: task }];
  await context.with(run.context, async () => {
    for (let request = 0; request < MAX_REQUESTS; request += 1) {
      const attempt = run.startAttempt({ boundary: BOUNDARY });
      const answer = { text: '', toolCalls: [] };
      let failure;
      try {
        await streamAnswer(client, attempt, messages, answer);
      } catch (error) {
        failure = error;
        // recordChatCompletionStream recorded a stream that broke; this records an
        // error before the stream (an HTTP 503), and is a no-op after the first.
        attempt.fail(error);
        handledStreamErrors.add(error);
      }
      if (answer.text) console.log(`  assistant: ${answer.text}`);
      if (failure !== undefined) {
        // The agent gates its own retry on the verdict: only a request that showed
        // nothing and ran nothing is replayed, within the policy's retry budget
        // (maxAutoRetries, 1 by default), which the verdict already counts.
        const verdict = run.incident();
        const retry = verdict.retrySafety === 'auto_retry';
        console.log(
          `  request failed, ${causeOf(verdict)}: retry safety ${verdict.retrySafety} → ${retry ? 'retrying now' : 'not retrying'}`,
        );
        if (!retry) return;
        run.retryIssued(attempt);
      } else if (answer.toolCalls.length > 0) {
        await runTools(run, attempt, answer, messages);
      } else {
        return;
      }
    }
  });
  return run.end();
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

async function play(title, client, task) {
  console.log(`\n${title}\n  user: ${task}`);
  const incident = await agentRun(client, task);
  console.log(`  verdict: ${describe(incident)}`);
}

if (process.env.OPENAI_API_KEY) {
  // The agent owns retries (gated on the verdict), so the SDK must not retry behind its back.
  await play(
    'A real run on OpenAI',
    new OpenAI({ maxRetries: 0 }),
    process.argv[2] ?? 'Read package.json and tell me the package name and version.',
  );
} else {
  const fake = await startFakeProvider();
  const client = new OpenAI({ baseURL: fake.baseURL, apiKey: 'fake-key', maxRetries: 0 });
  console.log(`Fake provider on ${fake.url} (set OPENAI_API_KEY to use OpenAI).`);
  try {
    fake.enqueue(
      reply.script({ type: 'text', text: ['The README', ' explains'] }, { type: 'delay', ms: 20 }, { type: 'destroy' }),
    );
    await play('(a) the socket drops while the answer streams', client, 'Summarize README.md.');
    fake.enqueue(
      reply.toolCall('read_file', { path: 'package.json' }),
      reply.text(['The package is ', 'agent-incidents.']),
    );
    await play('(b) a read-only tool runs, then the answer streams', client, 'What is this package called?');
  } finally {
    await fake.close();
  }
}
await provider.shutdown();

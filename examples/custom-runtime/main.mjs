// Over 300 lines: one runnable walk-through of a runtime, meant to be read from top to bottom.
/**
 * A custom agent runtime — no AI SDK, no instrumentation — on the `openai`
 * SDK, that records its own facts with agent-incidents and gates its retries
 * on the verdict through the safeRetry recovery strategy.
 *
 * The loop, for each user turn: start a run; for each request start an
 * attempt with the tool boundary, arm a connect watchdog, stream the answer
 * through recordChatCompletionStream, run each tool call as soon as it is
 * complete, and send the tool results back. When a request fails, safeRetry
 * reads the verdict: it retries (after its backoff) only a request that showed
 * nothing and ran nothing, and otherwise answers offer_continue, ask_user or
 * stop. The user then sees presentIncident's words for the verdict.
 *
 *   npm run build && npm run example:custom-runtime
 *
 * Without OPENAI_API_KEY it plays three turns against the fake provider of
 * agent-incidents/testing (real HTTP on 127.0.0.1). With OPENAI_API_KEY it
 * runs one turn against OpenAI. With OTEL_EXPORTER_OTLP_ENDPOINT set, spans go
 * to that collector instead of the console.
 */
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import OpenAI from 'openai';
import { IncidentSpanProcessor, presentIncident, recordChatCompletionStream, RunRecorder } from 'agent-incidents';
import { createTask, moveTask, recoveryContext, safeRetry } from 'agent-incidents/recovery';
import { reply, startFakeProvider } from 'agent-incidents/testing';

const MODEL = process.env.OPENAI_MODEL ?? 'gpt-4o-mini';
/**
 * No first chunk within this budget: the connect watchdog fires and the request
 * is aborted. Short for the local fake provider; a real model needs seconds.
 */
const CONNECT_BUDGET_MS = process.env.OPENAI_API_KEY ? 30_000 : 1000;
/** Requests one turn may make (tool round trips and retries included). */
const MAX_REQUESTS = 6;

// The tools work on an in-memory workspace, so nothing (not even a real model) touches your disk.
const workspace = new Map([['README.md', 'agent-incidents explains interrupted AI-agent runs.']]);
const TOOLS = {
  read_file: {
    sideEffects: 'read_only',
    description: 'Reads a file of the workspace.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    run: ({ path }) => workspace.get(path) ?? `Error: no file ${path}`,
  },
  write_file: {
    sideEffects: 'unsafe',
    description: 'Writes a file of the workspace.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
    },
    run: ({ path, content }) => (workspace.set(path, content), `wrote ${path}`),
  },
};
/** What each tool may do to the world: the verdict needs it to tell whether a retry is safe. */
const TOOL_SIDE_EFFECTS = Object.fromEntries(Object.entries(TOOLS).map(([name, tool]) => [name, tool.sideEffects]));
/** The side-effect boundary of every request: the tools the model may call. */
const BOUNDARY = { tools: Object.entries(TOOL_SIDE_EFFECTS).map(([name, sideEffects]) => ({ name, sideEffects })) };
const TOOL_SCHEMAS = Object.entries(TOOLS).map(([name, { description, parameters }]) => ({
  type: 'function',
  function: { name, description, parameters },
}));

/** The attributes the processor wrote on the run span that the console exporter prints. */
const EXPORTED_KEYS = [
  'incident.outcome',
  'incident.retry_safety',
  'incident.retry_safety.reason',
  'incident.recovery.action',
];

/** Prints some incident attributes of each exported run span. */
class ConsoleRunExporter {
  export(spans, done) {
    for (const span of spans) {
      if (span.attributes['incident.outcome'] === undefined) continue;
      const shown = EXPORTED_KEYS.filter((key) => span.attributes[key] !== undefined).map(
        (key) => `${key}=${span.attributes[key]}`,
      );
      say(`  exported "${span.name}": ${shown.join(' ')}`);
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
const tracerProvider = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'custom-runtime' }),
  spanProcessors: [new IncidentSpanProcessor(), spanProcessor()],
});
const tracer = tracerProvider.getTracer('custom-runtime');

/** One recovery strategy for the whole runtime: its retry budget is kept per task. */
const strategy = safeRetry({ maxAutoRetries: 1, baseDelayMillis: 100 });

/** Console output: streamed text stays on one `assistant:` line until something else is said. */
let textOpen = false;
function say(line) {
  if (textOpen) process.stdout.write('\n');
  textOpen = false;
  console.log(line);
}
function showText(delta) {
  if (!textOpen) process.stdout.write('  assistant: ');
  textOpen = true;
  process.stdout.write(delta);
}

/** Runs one complete tool call, recorded as a tool execution of `attempt`, and returns its result message. */
function runTool(run, attempt, call) {
  const tool = run.startTool({ name: call.name, callId: call.id, sideEffects: TOOL_SIDE_EFFECTS[call.name], attempt });
  let content;
  try {
    const definition = TOOLS[call.name];
    if (!definition) throw new Error(`unknown tool ${call.name}`);
    content = definition.run(JSON.parse(call.arguments));
    tool.complete();
  } catch (error) {
    tool.fail(error);
    content = `Error: ${error.message}`;
  }
  say(`  tool: ${call.name}(${call.arguments}) → ${content}`);
  return { role: 'tool', tool_call_id: call.id, content };
}

/**
 * One request: streams the answer, prints its text and runs its tool calls.
 * Chat Completions has no "tool call done" event: a call is complete when the
 * next one starts or the stream finishes. recordChatCompletionStream records
 * it as materialized at that moment, before the chunk reaches this loop, and
 * this runtime runs each call as soon as it is complete.
 */
async function request(client, run, attempt, messages) {
  const abort = new AbortController();
  const watchdog = setTimeout(() => {
    say(`  connect watchdog: no first chunk in ${CONNECT_BUDGET_MS} ms, aborting the request`);
    attempt.watchdogFired({ phase: 'connect', budgetMillis: CONNECT_BUDGET_MS });
    abort.abort();
  }, CONNECT_BUDGET_MS);
  const calls = [];
  const results = [];
  let text = '';
  let finishReason;
  /** Runs the complete calls not run yet. */
  const runCompleted = () => {
    for (const call of calls.filter((c) => !c.ran)) {
      call.ran = true;
      results.push(runTool(run, attempt, call));
    }
  };
  try {
    const stream = await client.chat.completions.create(
      // include_usage: the token use lands on the attempt span and in recovery snapshots.
      { model: MODEL, messages, tools: TOOL_SCHEMAS, stream: true, stream_options: { include_usage: true } },
      { signal: abort.signal },
    );
    for await (const chunk of recordChatCompletionStream(attempt, stream, { toolSideEffects: TOOL_SIDE_EFFECTS })) {
      clearTimeout(watchdog);
      const choice = chunk.choices[0];
      if (choice?.delta?.content) {
        text += choice.delta.content;
        showText(choice.delta.content);
      }
      for (const part of choice?.delta?.tool_calls ?? []) {
        if (!calls[part.index]) {
          // A new call starts, so the ones before it are complete: run them now.
          runCompleted();
          calls[part.index] = { id: part.id, name: part.function?.name ?? '', arguments: '', ran: false };
        }
        calls[part.index].arguments += part.function?.arguments ?? '';
      }
      finishReason = choice?.finish_reason ?? finishReason;
    }
    // The openai SDK ends an aborted stream silently: that is no answer.
    if (abort.signal.aborted || !finishReason) throw new Error('the stream ended without a finish reason');
    runCompleted();
    const assistant = { role: 'assistant', content: text || null };
    if (calls.length > 0) {
      assistant.tool_calls = calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.arguments },
      }));
    }
    return { messages: [assistant, ...results], done: calls.length === 0 };
  } finally {
    clearTimeout(watchdog);
  }
}

/** One user turn: a run, and requests until the model answers or the strategy stops the loop. */
async function turn(client, taskId, userText) {
  say(`  user: ${userText}`);
  const run = RunRecorder.start({ tracer, agentName: 'custom-agent', providerName: 'openai', model: MODEL });
  let task = moveTask(createTask(taskId, 'ASSIGNED'), 'IN_PROGRESS');
  const messages = [{ role: 'user', content: userText }];
  let action;
  for (let n = 1; n <= MAX_REQUESTS; n += 1) {
    const attempt = run.startAttempt({ boundary: BOUNDARY });
    try {
      const answer = await request(client, run, attempt, messages);
      messages.push(...answer.messages);
      if (answer.done) {
        task = moveTask(task, 'COMPLETED');
        await strategy.finalize(task);
        break;
      }
    } catch (error) {
      // recordChatCompletionStream and the watchdog already ended the attempt;
      // this records an error before the stream (an HTTP 503) and is a no-op otherwise.
      attempt.fail(error);
      say(`  request ${n} failed: ${error.message}`);
      // safeRetry retries only when the verdict says auto_retry (nothing shown, nothing run,
      // a retryable error) within its budget; it waits the backoff and records retry_issued.
      action = await strategy.recover(recoveryContext(run, task));
      task = action.task;
      if (action.kind === 'retry') {
        say(`  safeRetry: retry after ${action.delayMillis} ms`);
        continue;
      }
      break;
    }
  }
  if (task.state === 'IN_PROGRESS') say(`  stopped: still no answer after ${MAX_REQUESTS} requests`);
  const incident = run.end();
  const detail = incident.causeDetail ? `(${incident.causeDetail})` : '';
  say(
    `  verdict: ${incident.outcome} · ${incident.cause ?? '-'}${detail} · ${incident.phase ?? '-'} · ${incident.retrySafety ?? '-'}`,
  );
  say(`  action: ${action ? `${action.kind} (${action.reason})` : 'none'}`);
  const shown = presentIncident(incident, { locale: 'en' });
  say(`  user sees [${shown.severity}] ${shown.title}\n    ${shown.message}\n    → ${shown.suggestedAction}`);
}

if (process.env.OPENAI_API_KEY) {
  // The runtime owns retries (through safeRetry), so the SDK must not retry behind its back.
  say('A real turn on OpenAI');
  await turn(
    new OpenAI({ maxRetries: 0 }),
    'real-1',
    process.argv[2] ?? 'Read README.md and write a one-line summary of it to notes.md.',
  );
} else {
  const fake = await startFakeProvider();
  const client = new OpenAI({ baseURL: fake.baseURL, apiKey: 'fake-key', maxRetries: 0 });
  say(`Fake provider on ${fake.url} (set OPENAI_API_KEY to use OpenAI).`);
  try {
    say('\n1. The first request stalls before any byte');
    fake.enqueue(reply.stall(), reply.text(['It explains ', 'interrupted agent runs.']));
    await turn(client, 'task-1', 'What does this project do?');

    say('\n2. Text streams, then the socket drops');
    fake.enqueue(
      reply.script(
        { type: 'text', text: ['The README ', 'says that'] },
        { type: 'delay', ms: 20 },
        { type: 'destroy' },
      ),
    );
    await turn(client, 'task-2', 'Summarize README.md.');

    say('\n3. write_file runs, then the socket drops while the next call streams');
    fake.enqueue(
      reply.script(
        {
          type: 'tool-call',
          name: 'write_file',
          arguments: JSON.stringify({ path: 'notes.md', content: 'Explains agent runs.' }),
        },
        {
          type: 'partial-tool-call',
          name: 'write_file',
          arguments: JSON.stringify({ path: 'CHANGELOG.md', content: '- notes' }),
        },
        { type: 'delay', ms: 20 },
        { type: 'destroy' },
      ),
    );
    await turn(client, 'task-3', 'Write a summary to notes.md and note it in CHANGELOG.md.');
  } finally {
    await fake.close();
  }
}
// Flushes the spans; a collector that cannot be reached is reported, not thrown.
await tracerProvider.shutdown().catch((error) => {
  console.error(`Could not export the spans: ${error.message}`);
  process.exitCode = 1;
});

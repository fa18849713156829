// The agent workloads of processor-overhead.mjs and processor-breakdown.mjs,
// recorded through RunRecorder (dist/, so run `npm run build` first).
//
//   standardRun  the standard failing run: 6 spans, 7 span events
//   mixRun       the realistic mix, by run index: 9 in 10 one successful attempt
//                (every third of those also runs one read-only tool), the 10th standardRun

import { RunRecorder } from '../dist/index.js';

export const TOOLS = [
  { name: 'read', sideEffects: 'read_only' },
  { name: 'grep', sideEffects: 'read_only' },
  { name: 'bash', sideEffects: 'unsafe' },
];
export const BOUNDARY = { tools: TOOLS };

/** Spans per run of the standard workload: run + 2 attempts + 3 tools (the most any workload here has). */
export const SPANS_PER_RUN = 6;

// A realistic prompt as GenAI instrumentations record it (opt-in content): ~450 chars of JSON.
export const INPUT_MESSAGES = JSON.stringify([
  {
    role: 'system',
    parts: [
      {
        type: 'text',
        content:
          'You are a coding agent. Use the tools to inspect the repository before editing files. Keep answers short.',
      },
    ],
  },
  {
    role: 'user',
    parts: [
      {
        type: 'text',
        content:
          'The build fails on CI with "Cannot find module ./config.js" but passes locally. Find out why and fix it; run the tests afterwards and summarise what changed.',
      },
    ],
  },
]);

function socketDrop() {
  return new TypeError('terminated', {
    cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
  });
}

let runCounter = 0;

/** A run span as the workloads start it: agent, model, conversation, the prompt and request attributes. */
function startRun(tracer) {
  runCounter += 1;
  const run = RunRecorder.start({
    tracer,
    agentName: 'coder',
    providerName: 'openai',
    model: 'gpt-4.1',
    conversationId: `conv_${runCounter}`,
  });
  run.span.setAttribute('gen_ai.input.messages', INPUT_MESSAGES);
  run.span.setAttribute('gen_ai.request.max_tokens', 4096);
  run.span.setAttribute('gen_ai.request.temperature', 0.2);
  return run;
}

/**
 * One run of the standard workload: 6 spans (invoke_agent, 2 × chat,
 * 3 × execute_tool). Attempt 1 streams text and drops its socket; the retry
 * calls 3 tools that run and complete, and finishes.
 */
export function standardRun(tracer) {
  const run = startRun(tracer);

  // The standard workload of the issue: 2 attempts, 3 tool calls, 6 fact events.
  const a1 = run.startAttempt({ boundary: BOUNDARY }); // fact 1: side_effect_boundary
  a1.textOutput(); // fact 2: text_output_started (implies progress)
  a1.textOutput(); // recorded once: no fact
  a1.fail(socketDrop()); // fact 3: provider_error (+ the OTel `exception` event)
  run.retryIssued(a1, { delayMillis: 500 }); // fact 4: retry_issued

  const a2 = run.startAttempt({ boundary: BOUNDARY }); // fact 5: side_effect_boundary
  a2.span.setAttribute('gen_ai.response.id', `chatcmpl_${runCounter}`);
  const tools = [];
  for (let i = 0; i < TOOLS.length; i += 1) {
    const tool = TOOLS[i];
    // Three tool calls: execute_tool spans, linked to the attempt that asked for them.
    tools.push(
      run.startTool({ name: tool.name, callId: `call_${runCounter}_${i}`, sideEffects: tool.sideEffects, attempt: a2 }),
    );
  }
  for (const tool of tools) tool.complete();
  a2.span.setAttribute('gen_ai.usage.input_tokens', 1834);
  a2.span.setAttribute('gen_ai.usage.output_tokens', 412);
  a2.finish({ finishReasons: ['tool-calls'] }); // fact 6: attempt_finished
  return run.end();
}

/**
 * Run `index` of the realistic mix. Runs 9, 19, 29, … are the standard failing
 * run; the others are one successful `chat` attempt (a boundary, text output, a
 * finish), and every third of them (index divisible by 3) also runs one
 * read-only tool that completes. Any 2,000 consecutive indexes from 0 give
 * exactly 200 standard runs and 600 of 1,800 successful runs with a tool.
 */
export function mixRun(tracer, index) {
  if (index % 10 === 9) return standardRun(tracer);
  const run = startRun(tracer);
  const attempt = run.startAttempt({ boundary: BOUNDARY }); // side_effect_boundary
  attempt.textOutput(); // text_output_started
  attempt.textOutput();
  attempt.span.setAttribute('gen_ai.response.id', `chatcmpl_${runCounter}`);
  if (index % 3 === 0) {
    run.startTool({ name: 'read', callId: `call_${runCounter}_0`, sideEffects: 'read_only', attempt }).complete();
  }
  attempt.span.setAttribute('gen_ai.usage.input_tokens', 812);
  attempt.span.setAttribute('gen_ai.usage.output_tokens', 96);
  attempt.finish({ finishReasons: ['stop'] }); // attempt_finished
  return run.end();
}

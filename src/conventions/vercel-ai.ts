/**
 * Vercel AI SDK 6 spans (`ai.*`, from `experimental_telemetry`), with or
 * without the native fact events the AI SDK integration adds to them.
 *
 * What the SDK's own spans show, and what they hide (docs/conventions.md):
 * every provider attempt is an `ai.streamText.doStream` / `ai.generateText.doGenerate`
 * span, retries included; tool executions are `ai.toolCall` spans. Output is
 * known only when an attempt ends normally (`ai.response.text`, `.reasoning`,
 * `.toolCalls`, output tokens). `ai.stream.firstChunk` fires on any chunk
 * but `stream-start`, metadata included, so it proves a response, not
 * output. A stream cut off or aborted leaves its spans open, and user stop,
 * chunk timeout and total timeout look the same.
 */
import { checkExhaustive } from '../model/exhaustive.js';
import type { ErrorFact, Fact, FactDraft } from '../model/facts.js';
import { TERMINAL_FACT_KINDS } from '../model/facts.js';
import type { ConventionAdapter, ExtractContext, Extraction } from './adapter.js';
import { finishOf } from './finish-reasons.js';
import {
  boundaryFromDefinitions,
  classifyDescribed,
  describeSpanError,
  earlierTriesOf,
  finishFact,
  finishReasonsOf,
  lastTryEvents,
  nativeAttemptExtraction,
  nativeFacts,
  parseJsonArray,
  parseJsonObject,
  recordedNatively,
  runSpanExtraction,
  STATUS_ERROR,
  statedTriesOf,
  toolSpanFacts,
  trustedClass,
} from './span-facts.js';
import type { EventView, SpanRole, SpanView } from './span-view.js';
import { numberAttr, stringAttr } from './span-view.js';

/** Attribute keys of the AI SDK 6 telemetry this adapter reads. */
export const AI_SDK = {
  OPERATION_ID: 'ai.operationId',
  FINISH_REASON: 'ai.response.finishReason',
  RESPONSE_TEXT: 'ai.response.text',
  RESPONSE_REASONING: 'ai.response.reasoning',
  RESPONSE_TOOL_CALLS: 'ai.response.toolCalls',
  MS_TO_FIRST_CHUNK: 'ai.response.msToFirstChunk',
  OUTPUT_TOKENS: 'ai.usage.outputTokens',
  REASONING_TOKENS: 'ai.usage.reasoningTokens',
  PROMPT_MESSAGES: 'ai.prompt.messages',
  PROMPT_TOOLS: 'ai.prompt.tools',
  TOOL_CALL_NAME: 'ai.toolCall.name',
  FIRST_CHUNK_EVENT: 'ai.stream.firstChunk',
} as const;

const CALLS = new Set(['ai.streamText', 'ai.generateText', 'ai.streamObject', 'ai.generateObject']);
const ATTEMPTS = new Set([
  'ai.streamText.doStream',
  'ai.generateText.doGenerate',
  'ai.streamObject.doStream',
  'ai.generateObject.doGenerate',
]);

function roleOf(operationId: string): SpanRole | undefined {
  if (CALLS.has(operationId)) return 'call';
  if (ATTEMPTS.has(operationId)) return 'attempt';
  if (operationId === 'ai.toolCall') return 'tool';
  return operationId.startsWith('ai.') ? 'other' : undefined;
}

/**
 * The side-effect boundary from `ai.prompt.tools` (one JSON tool definition per
 * entry). The attribute is input-gated: without `ai.prompt.messages` beside it
 * inputs were not recorded and the boundary is unknown (undefined). So is a
 * value that is no list, or a list with an entry that cannot be read: every
 * entry is a tool the request exposed, so none is skipped.
 */
function boundaryOf(view: SpanView, context: ExtractContext): FactDraft | undefined {
  const inputsRecorded = view.attributes[AI_SDK.PROMPT_MESSAGES] !== undefined;
  const value = view.attributes[AI_SDK.PROMPT_TOOLS];
  if (value === undefined) return inputsRecorded ? boundaryFromDefinitions([], view, context) : undefined;
  const definitions = parseJsonArray(value);
  return definitions ? boundaryFromDefinitions(definitions, view, context) : undefined;
}

/** Output an attempt that ended normally reports: text, reasoning, tool calls, output tokens. */
function outputFacts(view: SpanView, context: ExtractContext, at: number): FactDraft[] {
  const drafts: FactDraft[] = [];
  const attempt = context.attempt;
  const reasoning = stringAttr(view.attributes, AI_SDK.RESPONSE_REASONING);
  if (reasoning) drafts.push({ kind: 'reasoning_output_started', timeMillis: at, attempt });
  const text = stringAttr(view.attributes, AI_SDK.RESPONSE_TEXT);
  if (text) drafts.push({ kind: 'text_output_started', timeMillis: at, attempt });
  const calls = parseJsonArray(view.attributes[AI_SDK.RESPONSE_TOOL_CALLS]);
  if (calls) {
    for (const call of calls.slice(0, 256)) {
      const fields = parseJsonObject(call);
      const tool = typeof fields?.toolName === 'string' ? fields.toolName : undefined;
      const providerExecuted = fields?.providerExecuted === true;
      drafts.push({
        kind: 'tool_call_materialized',
        tool,
        sideEffects: trustedClass(tool, context),
        providerExecuted,
        timeMillis: at,
        attempt,
      });
    }
  }
  if (drafts.length === 0 && (numberAttr(view.attributes, AI_SDK.OUTPUT_TOKENS) ?? 0) > 0) {
    // Output tokens are recorded even when outputs are not: progress, of an unknown kind.
    drafts.push({ kind: 'provider_progress', timeMillis: at, attempt });
  }
  return drafts;
}

/**
 * The AI SDK's errors, read from a span: its exception names say which layer
 * failed. `events`: the exception events of the span's last try.
 */
export function classifyAiSdkSpanError(view: SpanView, events: readonly EventView[] = view.events): ErrorFact {
  return classifyDescribed(describeSpanError(view, events));
}

function attemptFacts(view: SpanView, context: ExtractContext, native: FactDraft[]): Extraction {
  // The integration records every fact of the attempt natively; the span's own data adds nothing but how it finished.
  if (recordedNatively(view, native))
    return nativeAttemptExtraction(view, native, context, finishReasonsOf(view, AI_SDK.FINISH_REASON));
  const drafts: FactDraft[] = [];
  const boundary = boundaryOf(view, context);
  if (boundary) drafts.push(boundary);
  const end = view.endMillis ?? view.startMillis;
  const failed = view.statusCode === STATUS_ERROR;
  const finish = finishOf(finishReasonsOf(view, AI_SDK.FINISH_REASON));
  const lastFinished = !failed && !context.truncated && (finish === 'finished' || finish === 'limit');
  // A span that covers its call's retries shows the tries before its last (docs/conventions.md#retries-inside-one-span).
  const earlierTries = earlierTriesOf(
    view,
    lastFinished ? 'finished' : context.truncated && !failed ? 'open' : 'ended',
  );
  const tries = { earlierTries, statedTries: statedTriesOf(view) };
  const firstChunk = view.events.find((e) => e.name === AI_SDK.FIRST_CHUNK_EVENT);
  const msToFirstChunk = numberAttr(view.attributes, AI_SDK.MS_TO_FIRST_CHUNK);
  const firstOutputAt =
    firstChunk?.timeMillis ?? (msToFirstChunk !== undefined ? view.startMillis + msToFirstChunk : end);
  if (context.truncated) {
    // Cut off mid-stream: nothing at the end was recorded. A chunk arrived, but
    // whether it was output (or only metadata) the span cannot say.
    return { facts: drafts as Fact[], progressUnknown: firstChunk !== undefined, ...tries };
  }
  const output = outputFacts(view, context, firstOutputAt);
  drafts.push(...output);
  if (failed) {
    drafts.push({
      kind: 'provider_error',
      error: classifyAiSdkSpanError(view, lastTryEvents(view, earlierTries)),
      timeMillis: end,
      attempt: context.attempt,
    });
  } else if (lastFinished) {
    drafts.push({ kind: 'attempt_finished', timeMillis: end, attempt: context.attempt });
  } else if (finish === 'error' || finish === 'refused') {
    // A provider `error` chunk or a refusal: the span ends UNSET and keeps no trace of the error itself.
    drafts.push(finishFact(finish, end, context.attempt));
  } else {
    // No finish reason, or one that shows no finish (`other`, `interrupted`), and no error: stopped, not finished.
    return {
      facts: drafts as Fact[],
      progressUnknown: firstChunk !== undefined && output.length === 0,
      unfinished: true,
      ...tries,
    };
  }
  // Outputs may not be recorded (`recordOutputs: false`): then a failure after a chunk has unknown progress.
  const outputsKnown =
    view.attributes[AI_SDK.RESPONSE_TEXT] !== undefined || view.attributes[AI_SDK.RESPONSE_TOOL_CALLS] !== undefined;
  const ended = drafts.some((d) => TERMINAL_FACT_KINDS.has(d.kind));
  return { facts: drafts as Fact[], progressUnknown: ended && !outputsKnown && firstChunk !== undefined, ...tries };
}

/** The Vercel AI SDK 6 convention (`ai.*` spans), including native fact events on them. */
export const vercelAiAdapter: ConventionAdapter = {
  name: 'vercel_ai',
  role(view) {
    const operationId =
      stringAttr(view.attributes, AI_SDK.OPERATION_ID) ?? (typeof view.name === 'string' ? view.name : '');
    return roleOf(operationId);
  },
  extract(view, role, context): Extraction {
    const native = nativeFacts(view, role, context);
    switch (role) {
      case 'attempt':
        return attemptFacts(view, context, native);
      case 'tool':
        return {
          facts: toolSpanFacts(view, stringAttr(view.attributes, AI_SDK.TOOL_CALL_NAME), context, native) as Fact[],
        };
      case 'run':
      case 'call':
        return runSpanExtraction(view, native, (v) => classifyAiSdkSpanError(v));
      case 'other':
        return { facts: native as Fact[] };
      default:
        // extract is total (adapter.ts): a role outside the type, from a
        // custom reader in JavaScript, reads as 'other', as before.
        checkExhaustive(role);
        return { facts: native as Fact[] };
    }
  },
};

/**
 * OpenTelemetry GenAI spans (`invoke_agent` and `invoke_workflow`, `chat`,
 * `execute_tool`; `plan` is a step), with or without the native fact events.
 * Without them it still reads what the structure shows: attempts, tool
 * executions, errors from status and `exception` events, and progress from
 * `gen_ai.response.time_to_first_chunk`.
 */
import { checkExhaustive } from '../model/exhaustive.js';
import type { ErrorFact, Fact, FactDraft } from '../model/facts.js';
import { TERMINAL_FACT_KINDS } from '../model/facts.js';
import { isOneOf } from '../model/enums.js';
import { GEN_AI, NATIVE_ATTR, OPERATION } from '../model/native-convention.js';
import { classifyError } from '../derive/classify-error.js';
import type { ConventionAdapter, ExtractContext, Extraction } from './adapter.js';
import { finishOf } from './finish-reasons.js';
import {
  boundaryFromDefinitions,
  describeSpanError,
  earlierTriesOf,
  finishFact,
  finishReasonsOf,
  lastTryEvents,
  nativeAttemptExtraction,
  nativeFacts,
  parseJsonArray,
  recordedNatively,
  runSpanExtraction,
  STATUS_ERROR,
  statedTriesOf,
  toolSpanFacts,
} from './span-facts.js';
import type { EventView, SpanRole, SpanView } from './span-view.js';
import { numberAttr, stringAttr } from './span-view.js';

type Draft = FactDraft;

/**
 * Set (true) by `agent-incidents/ai-sdk` on the root span AI SDK 7's
 * `@ai-sdk/otel` starts for each `streamText` / `generateText`
 * (`invoke_agent {model}`): that span is the SDK's call, not an agent of its
 * own, so it is read like AI SDK 6's `ai.streamText`: part of the run it sits
 * in, or a run of its own when nothing encloses it.
 */
export const FRAMEWORK_CALL = NATIVE_ATTR.FRAMEWORK_CALL;

/** Attributes a run span keeps of its call's response: without any, the call never got one. */
const RESPONSE_KEYS = [
  GEN_AI.FINISH_REASONS,
  'gen_ai.response.id',
  'gen_ai.response.model',
  'gen_ai.usage.output_tokens',
];

/**
 * Instrumentations known to write the finish reason on every attempt that
 * ends with a response (AI SDK 7's `@ai-sdk/otel` uses the tracer `gen_ai`):
 * an attempt of theirs without one was stopped. Other instrumentations may
 * record none, so for them only a declared stream counts.
 */
const RECORDS_EVERY_FINISH = new Set(['gen_ai']);

const HTTP_STATUS_CODE = 'http.response.status_code';

/**
 * A run span of an instrumentation that records every finish (AI SDK 7's
 * root `invoke_agent`) that ended with no error and no finish reason: the call
 * was stopped (AI SDK 7 ends its spans UNSET on an abort or a timeout, a
 * running tool's included), and nothing says why. Read as an error of unknown
 * kind, so the run is never judged a success. Not for a root the AI SDK
 * integration marked ({@link FRAMEWORK_CALL}): its run records why natively.
 */
function stoppedRun(view: SpanView): ErrorFact | undefined {
  if (view.statusCode === STATUS_ERROR || view.endMillis === undefined || view.attributes[FRAMEWORK_CALL] === true)
    return undefined;
  if (view.scopeName === undefined || !RECORDS_EVERY_FINISH.has(view.scopeName)) return undefined;
  return RESPONSE_KEYS.some((key) => view.attributes[key] !== undefined) ? undefined : { kind: 'unknown' };
}

/** True when the span would show a finish reason, so its absence means it was stopped. */
function expectsResponse(view: SpanView): boolean {
  return (
    view.attributes[GEN_AI.REQUEST_STREAM] === true ||
    (view.scopeName !== undefined && RECORDS_EVERY_FINISH.has(view.scopeName))
  );
}

/** The tools a request exposed (`gen_ai.tool.definitions`, input-gated like `gen_ai.input.messages`). */
function boundaryOf(view: SpanView, context: ExtractContext): Draft | undefined {
  const value = view.attributes[GEN_AI.TOOL_DEFINITIONS];
  if (value !== undefined) {
    // Definitions that cannot be read (cut by a length limit, say) hide which tools were exposed.
    const definitions = parseJsonArray(value);
    return definitions ? boundaryFromDefinitions(definitions, view, context) : undefined;
  }
  // Inputs were recorded and list no tools: the request exposed none.
  return view.attributes[GEN_AI.INPUT_MESSAGES] !== undefined
    ? {
        kind: 'side_effect_boundary',
        boundary: { tools: [], external: false },
        timeMillis: view.startMillis,
        attempt: context.attempt,
      }
    : undefined;
}

/**
 * A plain GenAI attempt with no finish reason: finished when it reports
 * output tokens (usage arrives with the finish), or when its instrumentation
 * is not known to record a finish at all; not finished when it declared a
 * stream or comes from an instrumentation that records one on every finish
 * (docs/conventions.md#finish-reasons-by-meaning).
 */
function finishedWithoutReason(view: SpanView): boolean {
  return numberAttr(view.attributes, GEN_AI.USAGE_OUTPUT_TOKENS) !== undefined || !expectsResponse(view);
}

function attemptFacts(view: SpanView, context: ExtractContext, native: Draft[]): Extraction {
  // Native attempts: their fact events, refined by the finish reasons beside them.
  if (recordedNatively(view, native)) return nativeAttemptExtraction(view, native, context, finishReasonsOf(view));
  const drafts: Draft[] = [];
  const end = view.endMillis ?? view.startMillis;
  const failed = view.statusCode === STATUS_ERROR;
  const finish = finishOf(finishReasonsOf(view));
  const lastFinished =
    !failed &&
    !context.truncated &&
    (finish === 'finished' || finish === 'limit' || (finish === undefined && finishedWithoutReason(view)));
  // A span that covers its call's retries shows the tries before its last (docs/conventions.md#retries-inside-one-span).
  const earlierTries = earlierTriesOf(
    view,
    lastFinished ? 'finished' : context.truncated && !failed ? 'open' : 'ended',
  );
  const tries = { earlierTries, statedTries: statedTriesOf(view) };
  if (failed) {
    drafts.push({
      kind: 'provider_error',
      error: classifyGenAiError(view, lastTryEvents(view, earlierTries)),
      timeMillis: end,
      attempt: context.attempt,
    });
  }
  const boundary = boundaryOf(view, context);
  if (boundary) drafts.push(boundary);
  // The semantic-convention attribute, or the metric name AI SDK 7 writes on its `chat` spans (both seconds).
  const firstChunkSeconds =
    numberAttr(view.attributes, GEN_AI.TIME_TO_FIRST_CHUNK) ??
    numberAttr(view.attributes, GEN_AI.CLIENT_TIME_TO_FIRST_CHUNK);
  if (firstChunkSeconds !== undefined && firstChunkSeconds >= 0) {
    drafts.push({
      kind: 'provider_progress',
      timeMillis: view.startMillis + firstChunkSeconds * 1000,
      attempt: context.attempt,
    });
  }
  const unsure = firstChunkSeconds === undefined;
  if (failed || context.truncated) return { facts: drafts as Fact[], progressUnknown: unsure, ...tries };
  if (lastFinished) {
    drafts.push({ kind: 'attempt_finished', timeMillis: end, attempt: context.attempt });
    return { facts: drafts as Fact[], ...tries };
  }
  if (finish === 'error' || finish === 'refused') {
    // A provider error event or a refusal: the span may end without an error status (AI SDK 7 does).
    drafts.push(finishFact(finish, end, context.attempt));
    return { facts: drafts as Fact[], progressUnknown: unsure, ...tries };
  }
  // `interrupted`, a value that shows no finish, or none where one is recorded: it did not finish.
  return { facts: drafts as Fact[], progressUnknown: unsure, unfinished: true, ...tries };
}

/**
 * A GenAI span's error; a failed span whose finish reasons say `error` is a
 * provider error. An error on a span whose response status was 2xx (AI SDK
 * 7: "Failed to process successful response", its cause not recorded) broke
 * the body after the provider accepted the request: a dropped socket, or
 * something else the span does not say. Not an API error, so `unknown`.
 * `events`: the exception events of the span's last try.
 */
function classifyGenAiError(view: SpanView, events: readonly EventView[] = view.events): ErrorFact {
  const status = numberAttr(view.attributes, HTTP_STATUS_CODE);
  if (status !== undefined && status >= 200 && status < 300) return { kind: 'unknown' };
  const classified = classifyError(describeSpanError(view, events));
  if (classified.kind === 'unknown' && finishOf(finishReasonsOf(view)) === 'error') {
    return { kind: 'api', detail: 'unknown', code: classified.code };
  }
  return classified;
}

/** Written by AI SDK 7's `@ai-sdk/otel` on a tool span when the execution ends (seconds). */
const TOOL_DURATION = 'gen_ai.execute_tool.duration';

/**
 * A tool span's facts. AI SDK 7 ends a running tool's span UNSET, with no
 * duration, when the call is aborted (a stop, a timeout): for an
 * instrumentation that records the duration of every execution that ends,
 * such a span was interrupted, not completed.
 */
function toolFacts(view: SpanView, context: ExtractContext, native: Draft[]): Draft[] {
  const drafts = toolSpanFacts(view, stringAttr(view.attributes, GEN_AI.TOOL_NAME), context, native);
  const recordsEveryEnd = view.scopeName !== undefined && RECORDS_EVERY_FINISH.has(view.scopeName);
  if (!recordsEveryEnd || view.attributes[TOOL_DURATION] !== undefined) return drafts;
  return drafts.map((d) =>
    d.kind === 'tool_execution_completed'
      ? { kind: 'tool_execution_interrupted', tool: d.tool, timeMillis: d.timeMillis, attempt: d.attempt }
      : d,
  );
}

/**
 * The role of a GenAI operation (docs/conventions.md#span-roles): an agent
 * or a workflow is a run, an inference an attempt, a tool execution a tool;
 * a step (`plan`, `agent_step`) and every other operation is structure.
 */
function roleOfOperation(operation: unknown, name: string, frameworkCall: boolean): SpanRole | undefined {
  if (operation === OPERATION.RUN) return frameworkCall ? 'call' : 'run';
  if (operation === OPERATION.WORKFLOW) return 'run';
  if (operation === OPERATION.TOOL) return 'tool';
  if (isOneOf(OPERATION.ATTEMPTS, operation)) return 'attempt';
  if (isOneOf(OPERATION.STEPS, operation)) return 'other';
  if (operation !== undefined) return 'other';
  // Span names alone, for instrumentations that set the name but not the operation.
  const first = name.split(' ', 1)[0];
  if (first === OPERATION.RUN || first === OPERATION.WORKFLOW) return 'run';
  if (first === OPERATION.TOOL) return 'tool';
  return undefined;
}

/** The GenAI convention, including the native fact events. */
export const genAiAdapter: ConventionAdapter = {
  name: 'gen_ai',
  role(view) {
    return roleOfOperation(
      view.attributes[GEN_AI.OPERATION_NAME],
      typeof view.name === 'string' ? view.name : '',
      view.attributes[FRAMEWORK_CALL] === true,
    );
  },
  extract(view, role, context): Extraction {
    const native = nativeFacts(view, role, context);
    switch (role) {
      case 'tool':
        return { facts: toolFacts(view, context, native) as Fact[] };
      case 'attempt':
        return attemptFacts(view, context, native);
      case 'run':
      case 'call': {
        const extraction = runSpanExtraction(view, native, classifyGenAiError);
        if (extraction.statusError || native.some((d) => TERMINAL_FACT_KINDS.has(d.kind))) return extraction;
        const stopped = stoppedRun(view);
        return stopped ? { ...extraction, statusError: stopped } : extraction;
      }
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

/**
 * OpenTelemetry GenAI spans (`invoke_agent`, `chat`, `execute_tool`), with or
 * without the native fact events. Without them it still reads what the
 * structure shows: attempts, tool executions, errors from status and
 * `exception` events, and progress from `gen_ai.response.time_to_first_chunk`.
 */
import type { ErrorFact, Fact, FactDraft } from '../model/facts.js';
import { TERMINAL_FACT_KINDS } from '../model/facts.js';
import { isOneOf } from '../model/enums.js';
import { GEN_AI, OPERATION } from '../model/native-convention.js';
import { classifyError } from '../derive/classify-error.js';
import type { ConventionAdapter, ExtractContext, Extraction } from './adapter.js';
import {
  boundaryFromDefinitions,
  describeSpanError,
  nativeFacts,
  parseJsonArray,
  recordedNatively,
  runSpanExtraction,
  STATUS_ERROR,
  toolSpanFacts,
} from './span-facts.js';
import type { SpanRole, SpanView } from './span-view.js';
import { numberAttr, stringArrayAttr, stringAttr } from './span-view.js';

type Draft = FactDraft;

/** Attributes only a response that really finished leaves on a GenAI attempt span. */
const RESPONSE_KEYS = [GEN_AI.FINISH_REASONS, 'gen_ai.response.id', 'gen_ai.response.model', 'gen_ai.usage.output_tokens'];

/**
 * Instrumentations known to write the response attributes on every attempt
 * that finishes (AI SDK 7's `@ai-sdk/otel` uses the tracer `gen_ai`): an
 * attempt of theirs without them was stopped. Other instrumentations may
 * record none, so for them only a declared stream counts.
 */
const RECORDS_EVERY_FINISH = new Set(['gen_ai']);

/** True when the span would show a finished response, so their absence means it was stopped. */
function expectsResponse(view: SpanView): boolean {
  return view.attributes[GEN_AI.REQUEST_STREAM] === true || (view.scopeName !== undefined && RECORDS_EVERY_FINISH.has(view.scopeName));
}

/** The tools a request exposed (`gen_ai.tool.definitions`, input-gated like `gen_ai.input.messages`). */
function boundaryOf(view: SpanView, context: ExtractContext): Draft | undefined {
  const definitions = parseJsonArray(view.attributes[GEN_AI.TOOL_DEFINITIONS]);
  if (definitions) return boundaryFromDefinitions(definitions, view, context);
  // Inputs were recorded and list no tools: the request exposed none.
  return view.attributes[GEN_AI.INPUT_MESSAGES] !== undefined
    ? { kind: 'side_effect_boundary', boundary: { tools: [], external: false }, timeMillis: view.startMillis, attempt: context.attempt }
    : undefined;
}

function attemptFacts(view: SpanView, context: ExtractContext, native: Draft[]): Extraction {
  const drafts = [...native];
  const end = view.endMillis ?? view.startMillis;
  const failed = native.some((d) => TERMINAL_FACT_KINDS.has(d.kind));
  if (!failed && view.statusCode === STATUS_ERROR) {
    drafts.push({ kind: 'provider_error', error: classifyGenAiError(view), timeMillis: end, attempt: context.attempt });
  }
  // Native attempts say when nothing happened by recording nothing; plain GenAI ones cannot.
  if (recordedNatively(view, native)) return { facts: drafts as Fact[] };
  const boundary = boundaryOf(view, context);
  if (boundary) drafts.push(boundary);
  // The semantic-convention attribute, or the metric name AI SDK 7 writes on its `chat` spans (both seconds).
  const firstChunkSeconds =
    numberAttr(view.attributes, GEN_AI.TIME_TO_FIRST_CHUNK) ?? numberAttr(view.attributes, GEN_AI.CLIENT_TIME_TO_FIRST_CHUNK);
  if (firstChunkSeconds !== undefined && firstChunkSeconds >= 0) {
    drafts.push({ kind: 'provider_progress', timeMillis: view.startMillis + firstChunkSeconds * 1000, attempt: context.attempt });
  }
  const finishReasons = stringArrayAttr(view.attributes, GEN_AI.FINISH_REASONS);
  const unsure = firstChunkSeconds === undefined;
  if (view.statusCode === STATUS_ERROR || context.truncated) return { facts: drafts as Fact[], progressUnknown: unsure };
  if (finishReasons.includes('error')) {
    // A provider error event: the span may end without an error status (AI SDK 7 does).
    drafts.push({ kind: 'provider_error', error: { kind: 'api', detail: 'unknown' }, timeMillis: end, attempt: context.attempt });
    return { facts: drafts as Fact[], progressUnknown: unsure };
  }
  if (RESPONSE_KEYS.some((key) => view.attributes[key] !== undefined)) {
    drafts.push({ kind: 'attempt_finished', timeMillis: end, attempt: context.attempt });
  } else if (expectsResponse(view)) {
    // Ended with nothing a finished response leaves and no error: stopped, not finished (an abort).
    return { facts: drafts as Fact[], progressUnknown: unsure, unfinished: true };
  }
  return { facts: drafts as Fact[] };
}

/** A GenAI span's error; a failed span whose finish reasons say `error` is a provider error. */
function classifyGenAiError(view: SpanView): ErrorFact {
  const classified = classifyError(describeSpanError(view));
  if (classified.kind === 'unknown' && stringArrayAttr(view.attributes, GEN_AI.FINISH_REASONS).includes('error')) {
    return { kind: 'api', detail: 'unknown', code: classified.code };
  }
  return classified;
}

function roleOfOperation(operation: unknown, name: string): SpanRole | undefined {
  if (operation === OPERATION.RUN) return 'run';
  if (operation === OPERATION.TOOL) return 'tool';
  if (isOneOf(OPERATION.ATTEMPTS, operation)) return 'attempt';
  if (operation !== undefined) return 'other';
  // Span names alone, for instrumentations that set the name but not the operation.
  const first = name.split(' ', 1)[0];
  if (first === OPERATION.RUN) return 'run';
  if (first === OPERATION.TOOL) return 'tool';
  return undefined;
}

/** The GenAI convention, including the native fact events. */
export const genAiAdapter: ConventionAdapter = {
  name: 'gen_ai',
  role(view) {
    return roleOfOperation(view.attributes[GEN_AI.OPERATION_NAME], typeof view.name === 'string' ? view.name : '');
  },
  extract(view, role, context): Extraction {
    const native = nativeFacts(view, role, context);
    switch (role) {
      case 'tool':
        return { facts: toolSpanFacts(view, stringAttr(view.attributes, GEN_AI.TOOL_NAME), context, native) as Fact[] };
      case 'attempt':
        return attemptFacts(view, context, native);
      case 'run':
      case 'call':
        return runSpanExtraction(view, native, classifyGenAiError);
      default:
        return { facts: native as Fact[] };
    }
  },
};

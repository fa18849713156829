/**
 * OpenInference spans (`openinference.span.kind`): AGENT is the run, LLM an
 * attempt, TOOL a tool execution; CHAIN and the rest are structure.
 *
 * What they show: a finished LLM span has its finish reason, output messages
 * with tool calls, and (when inputs are recorded) the tools it exposed. What
 * they hide: the OpenAI instrumentation records no progress while streaming,
 * never marks a retry, and leaves its span open, without error, when a stream
 * breaks or the request fails (docs/conventions.md). Such a span is cut off
 * at the run's end and its progress is unknown.
 */
import { classifyError } from '../derive/classify-error.js';
import { checkExhaustive } from '../model/exhaustive.js';
import type { Fact, FactDraft } from '../model/facts.js';
import type { ConventionAdapter, ExtractContext, Extraction } from './adapter.js';
import { finishOf } from './finish-reasons.js';
import {
  boundaryFromDefinitions,
  describeSpanError,
  earlierTriesOf,
  finishFact,
  finishReasonsOf,
  lastTryEvents,
  MAX_TOOL_DEFINITIONS,
  nativeAttemptExtraction,
  nativeFacts,
  recordedNatively,
  runSpanExtraction,
  STATUS_ERROR,
  statedTriesOf,
  toolSpanFacts,
  trustedClass,
} from './span-facts.js';
import type { AttributeView, SpanRole, SpanView } from './span-view.js';
import { numberAttr, stringAttr } from './span-view.js';

/** Attribute keys of the OpenInference semantic conventions this adapter reads. */
export const OPENINFERENCE = {
  SPAN_KIND: 'openinference.span.kind',
  FINISH_REASON: 'llm.finish_reason',
  OUTPUT_VALUE: 'output.value',
  INPUT_VALUE: 'input.value',
  COMPLETION_TOKENS: 'llm.token_count.completion',
  TOOL_NAME: 'tool.name',
  OUTPUT_MESSAGES: 'llm.output_messages.',
  INPUT_MESSAGES: 'llm.input_messages.',
  TOOLS: 'llm.tools.',
} as const;

const ROLES: Readonly<Record<string, SpanRole>> = { AGENT: 'run', LLM: 'attempt', TOOL: 'tool' };

// llm.output_messages.<i>.message.tool_calls.<j>.tool_call.function.name
const TOOL_CALL_NAME = /^llm\.output_messages\.\d+\.message\.tool_calls\.(\d+)\.tool_call\.function\.name$/;
// llm.output_messages.<i>.message.content, or .contents.<j>.message_content.text
const OUTPUT_TEXT = /^llm\.output_messages\.\d+\.message\.(content|contents\.\d+\.message_content\.text)$/;
// llm.tools.<i>.…: the index of a tool the request exposed (its definition is llm.tools.<i>.tool.json_schema).
const TOOL_KEY = /^llm\.tools\.(\d+)\./;

function keysWith(attributes: AttributeView, prefix: string): string[] {
  return Object.keys(attributes).filter((key) => key.startsWith(prefix));
}

/**
 * The tools an LLM request exposed: tool `i` is any `llm.tools.<i>.*` key, read
 * from its `tool.json_schema`. Unknown (undefined) when inputs were not
 * recorded, or when a tool's schema is missing or the indices skip one (keys
 * dropped by a limit): a tool that cannot be read is never left out.
 */
function boundaryOf(view: SpanView, context: ExtractContext): FactDraft | undefined {
  const inputsRecorded =
    view.attributes[OPENINFERENCE.INPUT_VALUE] !== undefined ||
    keysWith(view.attributes, OPENINFERENCE.INPUT_MESSAGES).length > 0;
  let tools = 0;
  for (const key of Object.keys(view.attributes)) {
    const index = TOOL_KEY.exec(key)?.[1];
    if (index !== undefined) tools = Math.max(tools, Number(index) + 1);
  }
  if (!inputsRecorded && tools === 0) return undefined;
  if (tools > MAX_TOOL_DEFINITIONS) return undefined;
  const schemas = [];
  for (let i = 0; i < tools; i++) {
    const schema = view.attributes[`llm.tools.${i}.tool.json_schema`];
    if (schema === undefined) return undefined;
    schemas.push(schema);
  }
  return boundaryFromDefinitions(schemas, view, context);
}

function outputFacts(view: SpanView, context: ExtractContext, at: number): FactDraft[] {
  const drafts: FactDraft[] = [];
  const attempt = context.attempt;
  const outputKeys = keysWith(view.attributes, OPENINFERENCE.OUTPUT_MESSAGES);
  if (outputKeys.some((key) => OUTPUT_TEXT.test(key) && stringAttr(view.attributes, key))) {
    drafts.push({ kind: 'text_output_started', timeMillis: at, attempt });
  }
  for (const key of outputKeys) {
    if (!TOOL_CALL_NAME.test(key)) continue;
    const tool = stringAttr(view.attributes, key);
    drafts.push({
      kind: 'tool_call_materialized',
      tool,
      sideEffects: trustedClass(tool, context),
      providerExecuted: false,
      timeMillis: at,
      attempt,
    });
  }
  if (drafts.length === 0 && (numberAttr(view.attributes, OPENINFERENCE.COMPLETION_TOKENS) ?? 0) > 0) {
    drafts.push({ kind: 'provider_progress', timeMillis: at, attempt });
  }
  return drafts;
}

function attemptFacts(view: SpanView, context: ExtractContext, native: FactDraft[]): Extraction {
  if (recordedNatively(view, native))
    return nativeAttemptExtraction(view, native, context, finishReasonsOf(view, OPENINFERENCE.FINISH_REASON));
  const drafts: FactDraft[] = [];
  const boundary = boundaryOf(view, context);
  if (boundary) drafts.push(boundary);
  const failed = view.statusCode === STATUS_ERROR;
  const finish = finishOf(finishReasonsOf(view, OPENINFERENCE.FINISH_REASON));
  // OK with no finish reason: the instrumentation sets OK only on a whole (non-streamed) response it read.
  const lastFinished =
    !failed &&
    !context.truncated &&
    (finish === 'finished' || finish === 'limit' || (finish === undefined && view.statusCode === 1));
  const earlierTries = earlierTriesOf(
    view,
    lastFinished ? 'finished' : context.truncated && !failed ? 'open' : 'ended',
  );
  const tries = { earlierTries, statedTries: statedTriesOf(view) };
  // The instrumentation records nothing while a stream runs: a span cut off
  // (or a failed one with no output) cannot say whether output was streamed.
  if (context.truncated) return { facts: drafts as Fact[], progressUnknown: true, ...tries };
  const end = view.endMillis ?? view.startMillis;
  const output = outputFacts(view, context, end);
  drafts.push(...output);
  if (failed) {
    drafts.push({
      kind: 'provider_error',
      error: classifyError(describeSpanError(view, lastTryEvents(view, earlierTries))),
      timeMillis: end,
      attempt: context.attempt,
    });
    return { facts: drafts as Fact[], progressUnknown: output.length === 0, ...tries };
  }
  if (lastFinished) {
    drafts.push({ kind: 'attempt_finished', timeMillis: end, attempt: context.attempt });
    return { facts: drafts as Fact[], ...tries };
  }
  if (finish === 'error' || finish === 'refused') {
    drafts.push(finishFact(finish, end, context.attempt));
    return { facts: drafts as Fact[], progressUnknown: output.length === 0, ...tries };
  }
  // Ended UNSET with no finish reason, or one that shows no finish: the stream was stopped (an aborted request ends quietly).
  return { facts: drafts as Fact[], progressUnknown: output.length === 0, unfinished: true, ...tries };
}

/** The OpenInference convention, including native fact events on its spans. */
export const openInferenceAdapter: ConventionAdapter = {
  name: 'openinference',
  role(view) {
    const kind = stringAttr(view.attributes, OPENINFERENCE.SPAN_KIND);
    if (kind === undefined) return undefined;
    return ROLES[kind.toUpperCase()] ?? 'other';
  },
  extract(view, role, context): Extraction {
    const native = nativeFacts(view, role, context);
    switch (role) {
      case 'attempt':
        return attemptFacts(view, context, native);
      case 'tool':
        return {
          facts: toolSpanFacts(view, stringAttr(view.attributes, OPENINFERENCE.TOOL_NAME), context, native) as Fact[],
        };
      case 'run':
      case 'call':
        return runSpanExtraction(view, native, (v) => classifyError(describeSpanError(v)));
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

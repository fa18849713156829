/**
 * OpenTelemetry GenAI spans (`invoke_agent`, `chat`, `execute_tool`), with or
 * without the native fact events. Without them it still reads what the
 * structure shows: attempts, tool executions, errors from status and
 * `exception` events, and progress from `gen_ai.response.time_to_first_chunk`.
 */
import type { Fact, FactDraft } from '../model/facts.js';
import { TERMINAL_FACT_KINDS } from '../model/facts.js';
import { isOneOf } from '../model/enums.js';
import { GEN_AI, NATIVE_ATTR, OPERATION } from '../model/native-convention.js';
import { classifyError } from '../derive/classify-error.js';
import type { ConventionAdapter, ExtractContext, Extraction } from './adapter.js';
import { describeSpanError, nativeFacts, runSpanExtraction, STATUS_ERROR, toolSpanFacts } from './span-facts.js';
import type { SpanRole, SpanView } from './span-view.js';
import { numberAttr, stringAttr } from './span-view.js';

type Draft = FactDraft;

function attemptFacts(view: SpanView, context: ExtractContext, native: Draft[]): { drafts: Draft[]; progressUnknown: boolean } {
  const drafts = [...native];
  const end = view.endMillis ?? view.startMillis;
  const failed = native.some((d) => TERMINAL_FACT_KINDS.has(d.kind));
  if (!failed && view.statusCode === STATUS_ERROR) {
    drafts.push({ kind: 'provider_error', error: classifyError(describeSpanError(view)), timeMillis: end, attempt: context.attempt });
  }
  // Native attempts say when nothing happened by recording nothing; plain GenAI ones cannot.
  const nativeAttempt = numberAttr(view.attributes, NATIVE_ATTR.ATTEMPT_NUMBER) !== undefined;
  if (native.length > 0 || nativeAttempt) return { drafts, progressUnknown: false };
  // The semantic-convention attribute, or the metric name AI SDK 7 writes on its `chat` spans (both seconds).
  const firstChunkSeconds =
    numberAttr(view.attributes, GEN_AI.TIME_TO_FIRST_CHUNK) ?? numberAttr(view.attributes, GEN_AI.CLIENT_TIME_TO_FIRST_CHUNK);
  if (firstChunkSeconds !== undefined && firstChunkSeconds >= 0) {
    drafts.push({ kind: 'provider_progress', timeMillis: view.startMillis + firstChunkSeconds * 1000, attempt: context.attempt });
  }
  if (view.statusCode !== STATUS_ERROR && !context.truncated && view.attributes[GEN_AI.FINISH_REASONS] !== undefined) {
    drafts.push({ kind: 'attempt_finished', timeMillis: end, attempt: context.attempt });
  }
  const unsure = (view.statusCode === STATUS_ERROR || context.truncated) && firstChunkSeconds === undefined;
  return { drafts, progressUnknown: unsure };
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
      case 'attempt': {
        const { drafts, progressUnknown } = attemptFacts(view, context, native);
        return { facts: drafts as Fact[], progressUnknown };
      }
      case 'run':
      case 'call':
        return runSpanExtraction(view, native, (v) => classifyError(describeSpanError(v)));
      default:
        return { facts: native as Fact[] };
    }
  },
};

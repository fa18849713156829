/**
 * OpenTelemetry GenAI spans (`invoke_agent`, `chat`, `execute_tool`), with or
 * without the native fact events. Without them it still reads what the
 * structure shows: attempts, tool executions, errors from status and
 * `exception` events, and progress from `gen_ai.response.time_to_first_chunk`.
 */
import type { Fact, FactDraft } from '../model/facts.js';
import { TERMINAL_FACT_KINDS } from '../model/facts.js';
import { isOneOf, TOOL_SIDE_EFFECTS } from '../model/enums.js';
import { GEN_AI, NATIVE_ATTR, OPERATION } from '../model/native-convention.js';
import { classifyError, classifyToolError, toolErrorCode } from '../derive/classify-error.js';
import type { ErrorDescription } from '../derive/classify-error.js';
import type { ConventionAdapter, ExtractContext, Extraction } from './adapter.js';
import { decodeNativeEvent, isNativeEvent } from './native-events.js';
import type { SpanRole, SpanView } from './span-view.js';
import { numberAttr, stringAttr } from './span-view.js';

const STATUS_ERROR = 2;
// Only real error codes: a bare `E[A-Z]+` would turn words such as ERROR or EMPTY into codes.
const CODE_IN_TEXT =
  /\b(UND_ERR_[A-Z_]+|ERR_[A-Z_]+|E(?:CONNRESET|CONNREFUSED|CONNABORTED|TIMEDOUT|PIPE|NOTFOUND|AI_AGAIN|HOSTUNREACH|NETUNREACH|ACCES|PERM|NOENT))\b/g;

/** Reads the error of a span from its `exception` events, `error.type` and status. */
export function describeSpanError(view: SpanView): ErrorDescription {
  const names: string[] = [];
  const messages: string[] = [];
  const codes: string[] = [];
  const errorType = stringAttr(view.attributes, GEN_AI.ERROR_TYPE);
  if (errorType) codes.push(errorType);
  for (const event of view.events) {
    if (event.name !== 'exception') continue;
    const type = stringAttr(event.attributes, 'exception.type');
    const message = stringAttr(event.attributes, 'exception.message');
    if (type) names.push(type);
    if (message) messages.push(message.slice(0, 4096));
  }
  if (view.statusMessage) messages.push(view.statusMessage.slice(0, 4096));
  // Codes quoted inside messages ("read ECONNRESET", "cause: UND_ERR_SOCKET") survive any language's wrapping.
  for (const text of messages) {
    for (const match of text.matchAll(CODE_IN_TEXT)) codes.push(match[1] as string);
  }
  const status = numberAttr(view.attributes, GEN_AI.HTTP_STATUS);
  return { names, messages, codes, httpStatus: status };
}

type Draft = FactDraft;

function nativeFacts(view: SpanView, role: SpanRole, context: ExtractContext): Draft[] {
  const drafts: Draft[] = [];
  for (const event of view.events) {
    if (!isNativeEvent(event)) continue;
    let decoded = decodeNativeEvent(event, (n) => context.attemptKeyOf(n));
    if (!decoded) continue;
    if (decoded.kind === 'tool_execution_failed' && role !== 'tool') {
      // Only an execute_tool span proves the tool started.
      decoded = { ...decoded, startSeen: false };
    } else if (
      decoded.kind === 'tool_call_materialized' &&
      event.attributes?.[NATIVE_ATTR.TOOL_SIDE_EFFECTS] === undefined &&
      decoded.tool !== undefined &&
      context.trustedReadOnlyTools.includes(decoded.tool)
    ) {
      decoded = { ...decoded, sideEffects: 'read_only' };
    }
    // `decoded` is a fresh object: complete it in place instead of copying it.
    const draft = decoded as { timeMillis?: number; attempt?: string; seq?: number };
    draft.timeMillis ??= event.timeMillis;
    draft.attempt = context.attempt;
    draft.seq = numberAttr(event.attributes, NATIVE_ATTR.SEQ);
    drafts.push(draft as Draft);
  }
  return drafts;
}

function toolFacts(view: SpanView, context: ExtractContext, native: Draft[]): Draft[] {
  const tool = stringAttr(view.attributes, GEN_AI.TOOL_NAME);
  const declared = stringAttr(view.attributes, NATIVE_ATTR.TOOL_SIDE_EFFECTS);
  const sideEffects = isOneOf(TOOL_SIDE_EFFECTS, declared)
    ? declared
    : tool !== undefined && context.trustedReadOnlyTools.includes(tool)
      ? 'read_only'
      : 'unknown';
  const drafts: Draft[] = [
    { kind: 'tool_execution_started', tool, sideEffects, timeMillis: view.startMillis, attempt: context.attempt },
    ...native,
  ];
  const ended = native.some((d) => d.kind === 'tool_execution_failed' || d.kind === 'tool_execution_interrupted');
  const end = view.endMillis ?? view.startMillis;
  if (!ended && view.statusCode === STATUS_ERROR) {
    const description = describeSpanError(view);
    drafts.push({
      kind: 'tool_execution_failed',
      tool,
      detail: classifyToolError(description),
      code: toolErrorCode(description),
      startSeen: true,
      timeMillis: end,
      attempt: context.attempt,
    });
  } else if (!ended && !context.truncated) {
    drafts.push({ kind: 'tool_execution_completed', tool, startSeen: true, timeMillis: end, attempt: context.attempt });
  }
  return drafts;
}

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
  const firstChunkSeconds = numberAttr(view.attributes, GEN_AI.TIME_TO_FIRST_CHUNK);
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
        return { facts: toolFacts(view, context, native) as Fact[] };
      case 'attempt': {
        const { drafts, progressUnknown } = attemptFacts(view, context, native);
        return { facts: drafts as Fact[], progressUnknown };
      }
      case 'run': {
        const failed = native.some((d) => TERMINAL_FACT_KINDS.has(d.kind));
        const statusError = !failed && view.statusCode === STATUS_ERROR ? classifyError(describeSpanError(view)) : undefined;
        // Run-level facts belong to no attempt; the timeline places them by time.
        for (const draft of native) (draft as { attempt?: string }).attempt = undefined;
        return { facts: native as Fact[], statusError };
      }
      default:
        return { facts: native as Fact[] };
    }
  },
};

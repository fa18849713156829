/**
 * Fact readers every convention shares: the native fact events (which any
 * span may carry, whatever its convention), the facts a tool span's structure
 * shows, and an error read from a span's status and `exception` events.
 * Adapters add only what is particular to their convention.
 */
import { classifyToolError, toolErrorCode } from '../derive/classify-error.js';
import type { ErrorDescription } from '../derive/classify-error.js';
import { isOneOf, TOOL_SIDE_EFFECTS } from '../model/enums.js';
import type { ErrorFact, Fact, FactDraft } from '../model/facts.js';
import { TERMINAL_FACT_KINDS } from '../model/facts.js';
import { GEN_AI, NATIVE_ATTR } from '../model/native-convention.js';
import type { ExtractContext, Extraction } from './adapter.js';
import { decodeNativeEvent, isNativeEvent } from './native-events.js';
import type { SpanRole, SpanView } from './span-view.js';
import { numberAttr, stringAttr } from './span-view.js';

/** OTLP status code of a failed span. */
export const STATUS_ERROR = 2;

// Only real error codes: a bare `E[A-Z]+` would turn words such as ERROR or EMPTY into codes.
const CODE_IN_TEXT =
  /\b(UND_ERR_[A-Z_]+|ERR_[A-Z_]+|E(?:CONNRESET|CONNREFUSED|CONNABORTED|TIMEDOUT|PIPE|NOTFOUND|AI_AGAIN|HOSTUNREACH|NETUNREACH|ACCES|PERM|NOENT))\b/g;

/**
 * Names of exceptions that mean "stopped by a signal", not "failed": an abort,
 * or `AbortSignal.timeout()` firing (DOM, undici, AI SDK).
 */
const ABORT_NAMES = new Set(['AbortError', 'ResponseAborted', 'TimeoutError']);

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

/** True when the span's recorded exception is an abort (the work was stopped, it did not fail). */
export function isAbortError(description: ErrorDescription): boolean {
  return (description.names ?? []).some((name) => ABORT_NAMES.has(name));
}

/**
 * The native fact events on `view`, as drafts of the attempt in `context`.
 * A failure event off a tool span keeps `startSeen: false`: only a tool span
 * proves the tool started.
 */
export function nativeFacts(view: SpanView, role: SpanRole, context: ExtractContext): FactDraft[] {
  const drafts: FactDraft[] = [];
  for (const event of view.events) {
    if (!isNativeEvent(event)) continue;
    let decoded = decodeNativeEvent(event, (n) => context.attemptKeyOf(n));
    if (!decoded) continue;
    if (decoded.kind === 'tool_execution_failed' && role !== 'tool') {
      decoded = { ...decoded, startSeen: false };
    } else if (
      decoded.kind === 'tool_call_materialized' &&
      event.attributes?.[NATIVE_ATTR.TOOL_SIDE_EFFECTS] === undefined &&
      trustedClass(decoded.tool, context) === 'read_only'
    ) {
      decoded = { ...decoded, sideEffects: 'read_only' };
    }
    // `decoded` is a fresh object: complete it in place instead of copying it.
    const draft = decoded as { timeMillis?: number; attempt?: string; seq?: number };
    draft.timeMillis ??= event.timeMillis;
    draft.attempt = role === 'run' || role === 'call' ? undefined : context.attempt;
    draft.seq = numberAttr(event.attributes, NATIVE_ATTR.SEQ);
    drafts.push(draft as FactDraft);
  }
  return drafts;
}

/**
 * True when an attempt span's facts are recorded natively (a runtime or
 * integration wrote, or adopted, it): its convention's own attributes then add
 * nothing, and an attempt that recorded no event really had none.
 */
export function recordedNatively(view: SpanView, native: readonly FactDraft[]): boolean {
  return native.length > 0 || numberAttr(view.attributes, NATIVE_ATTR.ATTEMPT_NUMBER) !== undefined;
}

/** `read_only` for a tool the policy trusts, else `unknown`: a span that names a tool but not its class. */
export function trustedClass(tool: string | undefined, context: ExtractContext): 'read_only' | 'unknown' {
  return tool !== undefined && context.trustedReadOnlyTools.includes(tool) ? 'read_only' : 'unknown';
}

/** The side-effect class a tool span declares, else {@link trustedClass}. */
export function toolClassOf(view: SpanView, tool: string | undefined, context: ExtractContext) {
  const declared = stringAttr(view.attributes, NATIVE_ATTR.TOOL_SIDE_EFFECTS);
  return isOneOf(TOOL_SIDE_EFFECTS, declared) ? declared : trustedClass(tool, context);
}

/**
 * Facts of a tool execution span: it started at its start; it completed, failed
 * or was interrupted at its end, unless a native event already says how it
 * ended; a span the processor had to end is still running.
 */
export function toolSpanFacts(view: SpanView, tool: string | undefined, context: ExtractContext, native: FactDraft[]): FactDraft[] {
  const drafts: FactDraft[] = [
    { kind: 'tool_execution_started', tool, sideEffects: toolClassOf(view, tool, context), timeMillis: view.startMillis, attempt: context.attempt },
    ...native,
  ];
  const ended = native.some((d) => d.kind === 'tool_execution_failed' || d.kind === 'tool_execution_interrupted');
  if (ended || context.truncated) return drafts;
  const end = view.endMillis ?? view.startMillis;
  if (view.statusCode !== STATUS_ERROR) {
    drafts.push({ kind: 'tool_execution_completed', tool, startSeen: true, timeMillis: end, attempt: context.attempt });
    return drafts;
  }
  const description = describeSpanError(view);
  if (isAbortError(description)) {
    drafts.push({ kind: 'tool_execution_interrupted', tool, timeMillis: end, attempt: context.attempt });
  } else {
    drafts.push({
      kind: 'tool_execution_failed',
      tool,
      detail: classifyToolError(description),
      code: toolErrorCode(description),
      startSeen: true,
      timeMillis: end,
      attempt: context.attempt,
    });
  }
  return drafts;
}

/**
 * What a run span (or a framework's call span) shows by itself: its native
 * run-level facts and, when it failed without a terminal fact, its error.
 */
export function runSpanExtraction(view: SpanView, native: FactDraft[], classify: (view: SpanView) => ErrorFact): Extraction {
  const failed = native.some((d) => TERMINAL_FACT_KINDS.has(d.kind));
  const statusError = !failed && view.statusCode === STATUS_ERROR ? classify(view) : undefined;
  return { facts: native as Fact[], statusError };
}

/**
 * The side-effect boundary from the tool definitions a request carried (the
 * AI SDK's `ai.prompt.tools`, GenAI `gen_ai.tool.definitions`, OpenInference
 * `llm.tools.*`): each is an object with `name` (or `function.name`) and
 * `type`. Provider tools (`provider`, `extension`) may run where no span shows
 * them. Classes are `unknown` unless the policy trusts the tool. Undefined when
 * a definition is unreadable: then the boundary is not known.
 */
export function boundaryFromDefinitions(definitions: readonly unknown[], view: SpanView, context: ExtractContext): FactDraft | undefined {
  const tools = [];
  for (const definition of definitions.slice(0, 256)) {
    const tool = parseJsonObject(definition);
    const fn = parseJsonObject(tool?.function);
    const name = typeof tool?.name === 'string' ? tool.name : typeof fn?.name === 'string' ? fn.name : undefined;
    if (!name) return undefined;
    const providerExecuted = tool?.type === 'provider' || tool?.type === 'extension';
    const sideEffects = providerExecuted ? 'unknown' : trustedClass(name, context);
    tools.push({ name, sideEffects, providerExecuted } as const);
  }
  return { kind: 'side_effect_boundary', boundary: { tools, external: false }, timeMillis: view.startMillis, attempt: context.attempt };
}

/** An object, or a JSON string of one (bounded); undefined otherwise. */
export function parseJsonObject(value: unknown): Record<string, unknown> | undefined {
  let parsed = value;
  if (typeof value === 'string') {
    if (value.length > 1_000_000) return undefined;
    try {
      parsed = JSON.parse(value) as unknown;
    } catch {
      return undefined;
    }
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
}

/** A JSON array (or a JSON string of one); undefined otherwise. */
export function parseJsonArray(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (typeof value !== 'string' || value.length > 1_000_000) return undefined;
  try {
    const parsed = JSON.parse(value) as unknown;
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Fact readers every convention shares: the native fact events (which any
 * span may carry, whatever its convention), the facts a tool span's structure
 * shows, and an error read from a span's status and `exception` events.
 * Adapters add only what is particular to their convention.
 *
 * A span's error is read in span-error.ts and its tries in span-tries.ts;
 * both are re-exported here, the adapters' one import path.
 */
import { classifyToolError, toolErrorCode } from '../derive/classify-error.js';
import { isOneOf, TOOL_SIDE_EFFECTS } from '../model/enums.js';
import type { ErrorFact, Fact, FactDraft } from '../model/facts.js';
import { TERMINAL_FACT_KINDS } from '../model/facts.js';
import { GEN_AI, NATIVE_ATTR } from '../model/native-convention.js';
import type { ExtractContext, Extraction } from './adapter.js';
import type { FinishMeaning } from './finish-reasons.js';
import { finishOf, isKnownFinish } from './finish-reasons.js';
import { decodeNativeEvent, isNativeEvent } from './native-events.js';
import type { SpanRole, SpanView } from './span-view.js';
import { numberAttr, stringAttr } from './span-view.js';
import { describeSpanError, isAbortError, STATUS_ERROR } from './span-error.js';

export { classifyDescribed, describeSpanError, isAbortError, STATUS_ERROR } from './span-error.js';
export type { LastTry } from './span-tries.js';
export { earlierTriesOf, lastTryEvents, statedTriesOf } from './span-tries.js';
/** Facts that end an attempt with a failure of its own (a tool's failure ends a tool, not the request). */
const ENDS_ATTEMPT: ReadonlySet<FactDraft['kind']> = new Set([
  'provider_error',
  'watchdog_fired',
  'user_cancel',
  'lifecycle_close',
  'setup_failure',
  'process_exit',
  'run_error',
]);

/**
 * The fact a finish of this meaning gives, at `timeMillis`: a finish (a
 * limit is one: the provider finished where the request said), or the
 * failure it names. `unfinished` gives none: nothing says what stopped it.
 */
export function finishFact(
  meaning: Exclude<FinishMeaning, 'unfinished'>,
  timeMillis: number,
  attempt: string | undefined,
): FactDraft {
  switch (meaning) {
    case 'finished':
    case 'limit':
      return { kind: 'attempt_finished', timeMillis, attempt };
    case 'refused':
      // The provider's content policy stopped the answer: asking again gets the same.
      return {
        kind: 'provider_error',
        error: { kind: 'api', detail: 'content_filter', retryable: false },
        timeMillis,
        attempt,
      };
    case 'error':
      // A provider error event: the span may end without an error status (AI SDK 6 and 7 do).
      return { kind: 'provider_error', error: { kind: 'api', detail: 'unknown' }, timeMillis, attempt };
  }
}

/**
 * The facts of an attempt recorded natively (docs/conventions.md#finish-reasons-by-meaning):
 * its fact events say what it did. `agent_incidents.attempt_finished` is the
 * runtime's word that the stream finished; the finish reasons the span
 * carries (`gen_ai.response.finish_reasons`, written beside it by
 * `RunRecorder` and the AI SDK integration) say how, and a known reason that
 * means it did not finish (`interrupted`, `other`), or finished on a refusal
 * or an error, overrides it. An unknown reason does not undo the runtime's
 * word. An attempt that ended with neither a finish nor a failure of its own
 * did not finish: nothing says what stopped it.
 */
export function nativeAttemptExtraction(
  view: SpanView,
  native: FactDraft[],
  context: ExtractContext,
  reasons: readonly string[],
): Extraction {
  if (context.truncated || native.some((d) => ENDS_ATTEMPT.has(d.kind))) return { facts: native as Fact[] };
  const at = native.findIndex((d) => d.kind === 'attempt_finished');
  if (at < 0) return { facts: native as Fact[], unfinished: view.endMillis !== undefined };
  const meaning = finishOf(reasons.filter(isKnownFinish));
  if (meaning === undefined || meaning === 'finished' || meaning === 'limit') return { facts: native as Fact[] };
  const finished = native[at] as FactDraft;
  const facts = native.filter((_, i) => i !== at);
  if (meaning === 'unfinished') return { facts: facts as Fact[], unfinished: true };
  facts.push({ ...finishFact(meaning, finished.timeMillis, finished.attempt), seq: finished.seq } as FactDraft);
  return { facts: facts as Fact[] };
}

/**
 * The finish reasons of an attempt span: under its convention's own key (a
 * string or a string array), else GenAI's, which `RunRecorder` and the AI
 * SDK integration write on the spans of every convention. A reason that
 * cannot be read (not a string, past the 256th) is kept as `''`, a reason no
 * table knows, so it reads as not finished rather than vanishing.
 */
export function finishReasonsOf(view: SpanView, own?: string): string[] {
  if (own !== undefined) {
    const list = reasonList(view.attributes[own]);
    if (list.length > 0) return list;
  }
  return reasonList(view.attributes[GEN_AI.FINISH_REASONS]);
}

/** The most finish reasons read from one span. */
const MAX_FINISH_REASONS = 256;

/** A finish-reasons value as strings, each unreadable reason `''`; empty when absent. */
function reasonList(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value)) return [''];
  const reasons = value.slice(0, MAX_FINISH_REASONS).map((v) => (typeof v === 'string' ? v : ''));
  if (value.length > MAX_FINISH_REASONS) reasons.push('');
  return reasons;
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
export function toolSpanFacts(
  view: SpanView,
  tool: string | undefined,
  context: ExtractContext,
  native: FactDraft[],
): FactDraft[] {
  const drafts: FactDraft[] = [
    {
      kind: 'tool_execution_started',
      tool,
      sideEffects: toolClassOf(view, tool, context),
      timeMillis: view.startMillis,
      attempt: context.attempt,
    },
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
export function runSpanExtraction(
  view: SpanView,
  native: FactDraft[],
  classify: (view: SpanView) => ErrorFact,
): Extraction {
  const failed = native.some((d) => TERMINAL_FACT_KINDS.has(d.kind));
  const statusError = !failed && view.statusCode === STATUS_ERROR ? classify(view) : undefined;
  return { facts: native as Fact[], statusError };
}

/** The most tool definitions read from one request; a request with more has an unknown boundary. */
export const MAX_TOOL_DEFINITIONS = 256;

/**
 * The side-effect boundary from the tool definitions a request carried (the
 * AI SDK's `ai.prompt.tools`, GenAI `gen_ai.tool.definitions`, OpenInference
 * `llm.tools.*`): each is an object with `name` (or `function.name`) and
 * `type`. Provider tools (`provider`, `extension`) may run where no span shows
 * them. Classes are `unknown` unless the policy trusts the tool. Undefined when
 * a definition is unreadable, or there are more than {@link MAX_TOOL_DEFINITIONS}
 * to read: then the boundary is not known, never a shorter list of tools.
 */
export function boundaryFromDefinitions(
  definitions: readonly unknown[],
  view: SpanView,
  context: ExtractContext,
): FactDraft | undefined {
  if (definitions.length > MAX_TOOL_DEFINITIONS) return undefined;
  const tools = [];
  for (const definition of definitions) {
    const tool = parseJsonObject(definition);
    const fn = parseJsonObject(tool?.function);
    const name = typeof tool?.name === 'string' ? tool.name : typeof fn?.name === 'string' ? fn.name : undefined;
    if (!name) return undefined;
    const providerExecuted = tool?.type === 'provider' || tool?.type === 'extension';
    const sideEffects = providerExecuted ? 'unknown' : trustedClass(name, context);
    tools.push({ name, sideEffects, providerExecuted } as const);
  }
  return {
    kind: 'side_effect_boundary',
    boundary: { tools, external: false },
    timeMillis: view.startMillis,
    attempt: context.attempt,
  };
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
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : undefined;
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

/**
 * A structural view of a span that both an SDK `ReadableSpan` and a decoded
 * OTLP span can provide, so adapters never import OpenTelemetry packages.
 */

/** An attribute map as read from a span; values are untrusted. */
export type AttributeView = Readonly<Record<string, unknown>>;

/** A span event. */
export interface EventView {
  readonly name: string;
  readonly timeMillis: number;
  readonly attributes?: AttributeView;
  /** Attributes the SDK dropped from this event (span limits). @default 0 */
  readonly droppedAttributesCount?: number;
}

/** A span link. */
export interface LinkView {
  readonly spanId: string;
  readonly attributes?: AttributeView;
}

/** The parts of a span the adapters read. */
export interface SpanView {
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly startMillis: number;
  /** Absent while the span is open. */
  readonly endMillis?: number;
  readonly attributes: AttributeView;
  readonly events: readonly EventView[];
  readonly links: readonly LinkView[];
  /** 0 unset, 1 ok, 2 error (the OTLP numbering). */
  readonly statusCode: number;
  readonly statusMessage?: string;
  /** Name of the instrumentation scope (the tracer) that made the span. */
  readonly scopeName?: string;
  /**
   * The span's parent is in another process (OTLP span flags say so). A
   * missing remote parent is not a run span that may still come, nor one to
   * stand in for: that process judges its own runs. @default false (unknown)
   */
  readonly parentIsRemote?: boolean;
  /** Events the SDK dropped (span limits drop the oldest). A fact may be among them. @default 0 */
  readonly droppedEventsCount?: number;
  /** Attributes the SDK dropped (span limits). @default 0 */
  readonly droppedAttributesCount?: number;
}

/**
 * True when the span lost events (a fact event may be among them), attributes
 * of a fact event, or, with `attributes`, its own attributes: on attempt and
 * tool spans these say what the span did (finish reasons, output, a tool's
 * class), and their absence would read as less than happened.
 */
export function lostFacts(
  view: Pick<SpanView, 'droppedEventsCount' | 'droppedAttributesCount' | 'events'>,
  attributes: boolean,
): boolean {
  if ((view.droppedEventsCount ?? 0) > 0 || (attributes && (view.droppedAttributesCount ?? 0) > 0)) return true;
  for (const event of view.events) {
    if (
      (event.droppedAttributesCount ?? 0) > 0 &&
      typeof event.name === 'string' &&
      event.name.startsWith('agent_incidents.')
    )
      return true;
  }
  return false;
}

/**
 * What a span is within an agent run. `call` is a framework's top-level call
 * (the AI SDK's `ai.streamText`): a run of its own, unless its parent is a run
 * span, which it is then part of (a runtime that owns the run wraps the call).
 */
export type SpanRole = 'run' | 'call' | 'attempt' | 'tool' | 'other';

/** Reads a string attribute, or undefined for any other type. */
export function stringAttr(attributes: AttributeView | undefined, key: string): string | undefined {
  const value = attributes?.[key];
  return typeof value === 'string' ? value : undefined;
}

/** Reads a finite number attribute, or undefined. */
export function numberAttr(attributes: AttributeView | undefined, key: string): number | undefined {
  const value = attributes?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Reads a boolean attribute, or undefined. */
export function booleanAttr(attributes: AttributeView | undefined, key: string): boolean | undefined {
  const value = attributes?.[key];
  return typeof value === 'boolean' ? value : undefined;
}

/** Reads a string-array attribute, keeping only string members (bounded to 256). */
export function stringArrayAttr(attributes: AttributeView | undefined, key: string): string[] {
  const value = attributes?.[key];
  if (!Array.isArray(value)) return [];
  return value.slice(0, 256).filter((v): v is string => typeof v === 'string');
}

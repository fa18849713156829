/**
 * A span processor that writes each trace as one OTLP/JSON line as soon as
 * its root span ends, so the demo holds only the traces still running (the
 * whole fleet used to be kept until the end: 2.46 GB for 100,000 runs).
 * Spans that end after their root (a run finalized at shutdown, a late
 * child) are written by {@link TraceLines.flush}, as a line of their own.
 *
 * It encodes with the package's own OTLP encoder (src/otlp/otlp-encode.ts),
 * not an SDK serializer: the demo runs on either SDK line with no exporter
 * package installed.
 */
import type { Context } from '@opentelemetry/api';
import type { EncodableAttributes, EncodableResource, EncodableScope, EncodableSpan } from '../otlp/otlp-encode.js';
import { encodeTraceRequestJson } from '../otlp/otlp-encode.js';
import type { SdkReadableSpan, SdkSpan, SdkSpanProcessor } from '../sdk/sdk-span.js';

/** Epoch nanoseconds of an SDK `HrTime`. */
function nanosOf(time: readonly [number, number]): bigint {
  return BigInt(time[0]) * 1_000_000_000n + BigInt(time[1]);
}

/** Groups ended spans by trace and hands out each finished trace as one OTLP/JSON line. */
export class TraceLines implements SdkSpanProcessor {
  readonly #open = new Map<string, EncodableSpan[]>();
  readonly #decoder = new TextDecoder();
  readonly #resources = new WeakMap<object, EncodableResource>();
  readonly #scopes = new Map<string, EncodableScope>();
  readonly #serviceName: string;
  #noResource: EncodableResource | undefined;
  #spans = 0;
  #lines = 0;

  /**
   * @param write receives each line (no newline) and the spans in it, in the order traces finish.
   * @param serviceName the `service.name` of every span written (the SDK's own resource attributes are kept).
   */
  constructor(
    private readonly write: (line: string, spans: readonly EncodableSpan[]) => void,
    serviceName: string,
  ) {
    this.#serviceName = serviceName;
  }

  /** Spans written so far. */
  get spans(): number {
    return this.#spans;
  }

  /** Lines written so far. */
  get lines(): number {
    return this.#lines;
  }

  onStart(_span: SdkSpan, _context: Context): void {}

  onEnd(span: SdkReadableSpan): void {
    const traceId = span.spanContext().traceId;
    const encodable = this.#encodable(span);
    const group = this.#open.get(traceId);
    if (group) group.push(encodable);
    else this.#open.set(traceId, [encodable]);
    // The root ends last (a run's parts end before it): the trace is finished.
    if (span.parentSpanContext === undefined) this.#emit(traceId);
  }

  /** Writes every trace still open (spans ended after their root, runs ended at shutdown). */
  flush(): void {
    for (const traceId of [...this.#open.keys()]) this.#emit(traceId);
  }

  #emit(traceId: string): void {
    const group = this.#open.get(traceId);
    this.#open.delete(traceId);
    if (!group || group.length === 0) return;
    this.#spans += group.length;
    this.#lines += 1;
    this.write(this.#decoder.decode(encodeTraceRequestJson(group)), group);
  }

  #resource(span: SdkReadableSpan): EncodableResource {
    const own = span.resource;
    if (own === undefined) return (this.#noResource ??= { attributes: { 'service.name': this.#serviceName } });
    let resource = this.#resources.get(own);
    if (!resource) {
      resource = { attributes: { ...(own.attributes as EncodableAttributes), 'service.name': this.#serviceName } };
      this.#resources.set(own, resource);
    }
    return resource;
  }

  #scope(span: SdkReadableSpan): EncodableScope {
    const name = span.instrumentationScope?.name ?? '';
    const version = span.instrumentationScope?.version;
    const key = `${name}\u0000${version ?? ''}`;
    let scope = this.#scopes.get(key);
    if (!scope) this.#scopes.set(key, (scope = { name, version }));
    return scope;
  }

  /** The span as the encoder reads it: the API numbers kinds from 0 (internal), OTLP from 1. */
  #encodable(span: SdkReadableSpan): EncodableSpan {
    const context = span.spanContext();
    const parent = span.parentSpanContext;
    return {
      traceId: context.traceId,
      spanId: context.spanId,
      parentSpanId: parent?.spanId,
      traceState: context.traceState?.serialize(),
      flags: context.traceFlags,
      name: span.name,
      otlpKind: span.kind + 1,
      startTimeUnixNano: nanosOf(span.startTime),
      endTimeUnixNano: nanosOf(span.endTime),
      attributes: span.attributes as EncodableAttributes,
      droppedAttributesCount: span.droppedAttributesCount,
      events: span.events.map((event) => ({
        timeUnixNano: nanosOf(event.time),
        name: event.name,
        attributes: event.attributes as EncodableAttributes | undefined,
        droppedAttributesCount: event.droppedAttributesCount,
      })),
      droppedEventsCount: span.droppedEventsCount,
      links: span.links.map((link) => ({
        traceId: link.context.traceId,
        spanId: link.context.spanId,
        traceState: link.context.traceState?.serialize(),
        flags: link.context.traceFlags,
        attributes: link.attributes as EncodableAttributes | undefined,
        droppedAttributesCount: link.droppedAttributesCount,
      })),
      droppedLinksCount: span.droppedLinksCount,
      status: span.status,
      otlpResource: this.#resource(span),
      otlpScope: this.#scope(span),
    };
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  /** Does not flush: the incident processor ends open runs during shutdown, after this may be called; call {@link flush} after the provider's shutdown. */
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

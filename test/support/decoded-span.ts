/** Decoded OTLP spans built by hand, for unit tests of what reads them (the gateway's store, sizes, forwarding). */
import type { DecodedSpan } from '../../src/otlp/otlp-json-spans.js';

/** A GenAI run span's attributes. */
export const RUN_ATTRIBUTES = { 'gen_ai.operation.name': 'invoke_agent' };
/** A GenAI model call's attributes (an attempt of its run). */
export const CALL_ATTRIBUTES = { 'gen_ai.operation.name': 'chat' };

/** One resource object shared by every span built here, as one request's spans share theirs. */
const RESOURCE = { 'service.name': 'unit' };

/** A closed, unset-status span of trace `traceId` with no events or links; `fields` overrides any field. */
export function decodedSpan(traceId: string, spanId: string, fields: Partial<DecodedSpan> = {}): DecodedSpan {
  return {
    traceId,
    spanId,
    name: 'span',
    kind: 1,
    startTimeUnixNano: 1_700_000_000_000_000_000n,
    endTimeUnixNano: 1_700_000_000_001_000_000n,
    attributes: {},
    events: [],
    links: [],
    statusCode: 0,
    resource: RESOURCE,
    ...fields,
  };
}

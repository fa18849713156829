/**
 * Decodes the body of an OTLP/HTTP traces request, protobuf or JSON, into
 * spans, or into the status and message that refuse it. The gateway decodes
 * live requests and requests read back from its persistent queue with it, and
 * `agent-incidents receive` the requests it writes to a file.
 */
import type { DecodedSpan } from '../otlp/otlp-json-spans.js';
import { decodeOtlpJsonSpans, OtlpNestingError } from '../otlp/otlp-json-spans.js';
import { decodeExportTraceRequest, ProtobufDecodeError, ProtobufItemLimitError } from '../otlp/otlp-protobuf.js';

/** The encoding of a body: `application/x-protobuf` or `application/json`. */
export type BodyEncoding = 'protobuf' | 'json';

/** Counts the spans a request holds, usable or not (for partial success). */
function countSpans(request: unknown): number {
  let n = 0;
  const resourceSpans = (request as { resourceSpans?: unknown })?.resourceSpans;
  if (!Array.isArray(resourceSpans)) return 0;
  for (const rs of resourceSpans) {
    const scopeSpans = (rs as { scopeSpans?: unknown })?.scopeSpans;
    if (!Array.isArray(scopeSpans)) continue;
    for (const ss of scopeSpans) {
      const spans = (ss as { spans?: unknown })?.spans;
      if (Array.isArray(spans)) n += spans.length;
    }
  }
  return n;
}

/** A decoded request body, or the status and message that refuse it. */
export type DecodedBody =
  | {
      readonly ok: true;
      /** The request in the OTLP/JSON object shape (a protobuf body is converted: hex ids, decimal-string int64). */
      readonly request: unknown;
      readonly spans: DecodedSpan[];
      /** Spans in the request that could not be used (no valid ids, say). */
      readonly rejected: number;
    }
  | { readonly ok: false; readonly status: 400 | 413; readonly message: string };

/**
 * Decodes `body`. `maxItems` bounds the spans, events, links and values a
 * protobuf body may hold (past it: 413); `tally.items` is set to how many it held (0 for JSON). Never throws for
 * bad input: a body that is not OTLP is a 400 with a message saying why.
 */
export function decodeBody(
  type: BodyEncoding,
  body: Buffer,
  maxItems: number,
  tally: { items: number } = { items: 0 },
): DecodedBody {
  let decoded: unknown;
  try {
    decoded =
      type === 'protobuf'
        ? decodeExportTraceRequest(body, { maxItems, tally })
        : (JSON.parse(body.toString('utf8')) as unknown);
  } catch (error) {
    if (error instanceof ProtobufItemLimitError) return { ok: false, status: 413, message: error.message };
    const what =
      error instanceof ProtobufDecodeError
        ? error.message
        : error instanceof RangeError
          ? 'values nested too deeply'
          : 'body is not valid JSON';
    return { ok: false, status: 400, message: `malformed OTLP ${type === 'protobuf' ? 'protobuf' : 'JSON'}: ${what}` };
  }
  try {
    const spans = decodeOtlpJsonSpans(decoded);
    return { ok: true, request: decoded, spans, rejected: Math.max(0, countSpans(decoded) - spans.length) };
  } catch (error) {
    if (error instanceof OtlpNestingError || error instanceof RangeError)
      return {
        ok: false,
        status: 400,
        message: `malformed OTLP: ${error instanceof OtlpNestingError ? error.message : 'values nested too deeply'}`,
      };
    throw error;
  }
}

/**
 * The one message the OTLP/protobuf receiver writes: an
 * `ExportTraceServiceResponse`, empty on full success, else a partial success
 * with the rejected span count and a message.
 */
import { LEN, VARINT } from './protobuf-reader.js';
import { varintSize, writeVarint } from './varint.js';

const utf8Encoder = new TextEncoder();

/**
 * Encodes an OTLP/protobuf `ExportTraceServiceResponse`.
 *
 * Without `partial` (or with 0 rejected spans and no message), the empty
 * message: full success, as the spec asks servers to answer. Otherwise a
 * `partial_success` with `rejected_spans` and `error_message`; 0 rejected
 * spans with a message is how OTLP carries a warning.
 *
 * @throws {RangeError} if `rejectedSpans` is not a non-negative safe integer.
 */
export function encodeExportTraceResponse(partial?: { rejectedSpans: number; errorMessage?: string }): Uint8Array {
  if (partial === undefined) return new Uint8Array(0);
  const { rejectedSpans, errorMessage = '' } = partial;
  if (!Number.isSafeInteger(rejectedSpans) || rejectedSpans < 0) {
    throw new RangeError(`rejectedSpans must be a non-negative safe integer, got ${rejectedSpans}`);
  }
  if (rejectedSpans === 0 && errorMessage === '') return new Uint8Array(0);
  const message = utf8Encoder.encode(errorMessage);
  // proto3: fields at their default are not written.
  const bodySize =
    (rejectedSpans === 0 ? 0 : 1 + varintSize(rejectedSpans)) +
    (message.length === 0 ? 0 : 1 + varintSize(message.length) + message.length);
  const out = new Uint8Array(1 + varintSize(bodySize) + bodySize);
  let pos = 0;
  out[pos++] = (1 << 3) | LEN; // partial_success
  pos = writeVarint(out, pos, bodySize);
  if (rejectedSpans !== 0) {
    out[pos++] = (1 << 3) | VARINT; // rejected_spans
    pos = writeVarint(out, pos, rejectedSpans);
  }
  if (message.length !== 0) {
    out[pos++] = (2 << 3) | LEN; // error_message
    pos = writeVarint(out, pos, message.length);
    out.set(message, pos);
  }
  return out;
}

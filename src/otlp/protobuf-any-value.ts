/**
 * OTLP's AnyValue and KeyValue messages off the wire: the one recursion of
 * the trace messages without a schema bound (arrays and maps inside arrays
 * and maps), capped at {@link MAX_ANY_VALUE_DEPTH} so hostile input cannot
 * blow the stack. Decoded like the other messages in otlp-protobuf.ts.
 */
import type { AnyValueJson, KeyValueJson } from './otlp-trace-shape.js';
import type { Reader } from './protobuf-reader.js';
import { I64, LEN, VARINT } from './protobuf-reader.js';
/**
 * How deep AnyValue may nest (arrays and maps inside arrays and maps). The
 * schema bounds every other message; this one recurses, so without a cap a
 * few hundred kilobytes of nested length prefixes would overflow the stack.
 */
export const MAX_ANY_VALUE_DEPTH = 32;

/** An AnyValue at nesting `depth`; a repeated occurrence merges `into` the first, as protobuf requires. */
export function decodeAnyValue(r: Reader, end: number, depth: number, into: AnyValueJson | undefined): AnyValueJson {
  if (depth > MAX_ANY_VALUE_DEPTH) r.fail(`AnyValue nested deeper than ${MAX_ANY_VALUE_DEPTH}`, r.pos);
  r.count();
  // A oneof: a later member replaces an earlier one, a repeated message member merges.
  let value: AnyValueJson = into ?? {};
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    switch (tag) {
      case (1 << 3) | LEN:
        value = { stringValue: r.string(end) };
        break;
      case (2 << 3) | VARINT:
        value = { boolValue: r.bool(end) };
        break;
      case (3 << 3) | VARINT:
        value = { intValue: r.int64(end) };
        break;
      case (4 << 3) | I64:
        value = { doubleValue: r.double(end) };
        break;
      case (5 << 3) | LEN: {
        const array = value.arrayValue ?? { values: [] };
        value = { arrayValue: array };
        const stop = r.limit(end);
        while (r.pos < stop) {
          const itemAt = r.pos;
          const itemTag = r.tag(stop);
          if (itemTag === ((1 << 3) | LEN)) array.values.push(decodeAnyValue(r, r.limit(stop), depth + 1, undefined));
          else r.skip(itemTag, stop, itemAt);
        }
        break;
      }
      case (6 << 3) | LEN: {
        const list = value.kvlistValue ?? { values: [] };
        value = { kvlistValue: list };
        const stop = r.limit(end);
        while (r.pos < stop) {
          const itemAt = r.pos;
          const itemTag = r.tag(stop);
          if (itemTag === ((1 << 3) | LEN)) list.values.push(decodeKeyValue(r, r.limit(stop), depth + 1));
          else r.skip(itemTag, stop, itemAt);
        }
        break;
      }
      case (7 << 3) | LEN:
        value = { bytesValue: r.base64(end) };
        break;
      default:
        r.skip(tag, end, at);
    }
  }
  return value;
}

/** A KeyValue whose value sits at AnyValue nesting `depth`. */
export function decodeKeyValue(r: Reader, end: number, depth: number): KeyValueJson {
  r.count();
  let key = '';
  let value: AnyValueJson | undefined;
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    if (tag === ((1 << 3) | LEN)) key = r.string(end);
    else if (tag === ((2 << 3) | LEN)) value = decodeAnyValue(r, r.limit(end), depth, value);
    else r.skip(tag, end, at);
  }
  return { key, value: value ?? {} };
}

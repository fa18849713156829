/**
 * The protobuf wire-format reader behind otlp-protobuf.ts, written by hand for
 * the few message types OTLP traces use: every read is bounds-checked against
 * the end of the enclosing message, nothing is copied (strings and bytes are
 * read from views of the input), unknown fields of every wire type are
 * skipped, and malformed input fails with a {@link ProtobufDecodeError}
 * naming the byte, never a RangeError or a TypeError.
 */
import { Buffer, constants } from 'node:buffer';
/** Malformed protobuf input. `offset` is the byte of the input where decoding failed. */
export class ProtobufDecodeError extends Error {
  override readonly name = 'ProtobufDecodeError';

  constructor(
    message: string,
    /** Byte offset into the decoded input where the malformed item starts. */
    readonly offset: number,
  ) {
    super(message);
  }
}

/** The request holds more items than the caller allows: too large, not malformed. */
export class ProtobufItemLimitError extends ProtobufDecodeError {
  constructor(maxItems: number, offset: number) {
    super(`more than ${maxItems} spans, events, links and attributes at byte ${offset}`, offset);
  }
}

// Wire types. 3 and 4 (groups) are deprecated, but still valid on the wire, so
// an unknown group must be skipped rather than rejected; 6 and 7 do not exist.
/** Wire type of a varint field. */
export const VARINT = 0;
/** Wire type of a fixed 64-bit field. */
export const I64 = 1;
/** Wire type of a length-delimited field (strings, bytes, messages, packed arrays). */
export const LEN = 2;
const SGROUP = 3;
const EGROUP = 4;
/** Wire type of a fixed 32-bit field. */
export const I32 = 5;

const TWO_32 = 4294967296;
const MAX_STRING_LENGTH = constants.MAX_STRING_LENGTH;

// ---------------------------------------------------------------------------
// Wire-format reader. One reader walks the whole input; a nested message is a
// range [pos, end) of it, so descending costs no copy and no allocation.

/** Reads one protobuf input; a nested message is a range `[pos, end)` of it. */
export class Reader {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  /**
   * The same memory as a Buffer, for its native UTF-8, hex and base64
   * decoding: flat strings in one call, several times faster than building
   * them in JS. Invalid UTF-8 becomes U+FFFD rather than failing the batch,
   * and a leading U+FEFF is kept.
   */
  readonly buffer: Buffer;
  pos = 0;
  /** Low and high 32 bits (unsigned) of the last varint read by {@link varint}. */
  lo = 0;
  hi = 0;

  /** Items (spans, events, links, attributes, values) decoded so far, and the most allowed. */
  items = 0;
  readonly maxItems: number;

  constructor(bytes: Uint8Array, maxItems = Number.POSITIVE_INFINITY) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.maxItems = maxItems;
  }

  /**
   * Counts one decoded item. An empty span is 2 bytes on the wire but a few
   * hundred in memory: the budget stops a small request expanding without end.
   */
  count(): void {
    this.items += 1;
    if (this.items > this.maxItems) throw new ProtobufItemLimitError(this.maxItems, this.pos);
  }

  fail(message: string, at: number): never {
    throw new ProtobufDecodeError(`${message} at byte ${at}`, at);
  }

  /** Reads a varint of up to 64 bits into `lo`/`hi`. */
  varint(end: number): void {
    const bytes = this.bytes;
    const start = this.pos;
    let pos = start;
    let lo = 0;
    // Bytes 0–3 carry bits 0–27, all in `lo`.
    for (let shift = 0; shift < 28; shift += 7) {
      if (pos >= end) this.fail('truncated varint', start);
      const byte = bytes[pos++]!;
      lo |= (byte & 0x7f) << shift;
      if (byte < 0x80) {
        this.pos = pos;
        this.lo = lo >>> 0;
        this.hi = 0;
        return;
      }
    }
    // Byte 4 straddles the halves: 4 bits to `lo`, 3 to `hi`.
    if (pos >= end) this.fail('truncated varint', start);
    let byte = bytes[pos++]!;
    lo |= (byte & 0x0f) << 28;
    let hi = (byte & 0x7f) >>> 4;
    if (byte >= 0x80) {
      // Bytes 5–9 carry bits 35–63; the tenth may only hold bit 63.
      for (let shift = 3; ; shift += 7) {
        if (pos >= end) this.fail('truncated varint', start);
        byte = bytes[pos++]!;
        if (shift === 31 && byte > 1) this.fail('varint longer than 64 bits', start);
        hi |= (byte & 0x7f) << shift;
        if (byte < 0x80) break;
      }
    }
    this.pos = pos;
    this.lo = lo >>> 0;
    this.hi = hi >>> 0;
  }

  /** A tag: field number << 3 | wire type. */
  tag(end: number): number {
    const start = this.pos;
    // Most tags are one byte.
    const first = this.bytes[start]!;
    if (first < 0x80 && first >= 8) {
      this.pos = start + 1;
      return first;
    }
    this.varint(end);
    if (this.hi !== 0) this.fail('tag longer than 32 bits', start);
    if (this.lo >>> 3 === 0) this.fail('field number 0', start);
    return this.lo;
  }

  /** Reads a length prefix and returns the end of the range it delimits. */
  limit(end: number): number {
    const start = this.pos;
    this.varint(end);
    const remaining = end - this.pos;
    if (this.hi !== 0 || this.lo > remaining) {
      const length = this.hi === 0 ? String(this.lo) : uint64String(this.lo, this.hi);
      this.fail(`length ${length} exceeds remaining ${remaining} bytes`, start);
    }
    return this.pos + this.lo;
  }

  uint32(end: number): number {
    this.varint(end);
    return this.lo;
  }

  /** An enum or int32: the low 32 bits, signed (negative values arrive sign-extended to 64). */
  int32(end: number): number {
    this.varint(end);
    return this.lo | 0;
  }

  bool(end: number): boolean {
    this.varint(end);
    return (this.lo | this.hi) !== 0;
  }

  /** int64 as a decimal string. */
  int64(end: number): string {
    this.varint(end);
    return int64String(this.lo, this.hi);
  }

  private need(size: number, end: number, what: string): number {
    const at = this.pos;
    if (end - at < size) this.fail(`truncated ${what}`, at);
    this.pos = at + size;
    return at;
  }

  fixed32(end: number): number {
    return this.view.getUint32(this.need(4, end, 'fixed32'), true);
  }

  /** fixed64 (uint64) as a decimal string. */
  fixed64(end: number): string {
    const at = this.need(8, end, 'fixed64');
    return uint64String(this.view.getUint32(at, true), this.view.getUint32(at + 4, true));
  }

  double(end: number): number {
    return this.view.getFloat64(this.need(8, end, 'double'), true);
  }

  string(end: number): string {
    return this.text(end, 'utf8', 1);
  }

  /** Bytes as lowercase hex, the OTLP/JSON form of trace and span ids. */
  hex(end: number): string {
    return this.text(end, 'hex', 2);
  }

  /** Bytes as base64, the OTLP/JSON form of a bytes value. */
  base64(end: number): string {
    return this.text(end, 'base64', 4 / 3);
  }

  private text(end: number, encoding: 'utf8' | 'hex' | 'base64', charsPerByte: number): string {
    const at = this.pos;
    const stop = this.limit(end);
    const start = this.pos;
    // V8 cannot make a string this long and would throw a plain Error.
    if ((stop - start) * charsPerByte > MAX_STRING_LENGTH)
      this.fail(`${stop - start}-byte ${encoding} field too long for a string`, at);
    this.pos = stop;
    return this.buffer.toString(encoding, start, stop);
  }

  /** Skips the field whose tag was just read (tag starts at `tagAt`). */
  skip(tag: number, end: number, tagAt: number): void {
    switch (tag & 7) {
      case VARINT:
        this.varint(end);
        return;
      case I64:
        this.need(8, end, '64-bit field');
        return;
      case LEN:
        this.pos = this.limit(end);
        return;
      case I32:
        this.need(4, end, '32-bit field');
        return;
      case SGROUP:
        this.skipGroup(tag >>> 3, end);
        return;
      case EGROUP:
        this.fail('end-group without start-group', tagAt);
        break;
      default:
        this.fail(`bad wire type ${tag & 7}`, tagAt);
    }
  }

  /**
   * Skips a group up to its matching end-group tag. Iterative, with an
   * explicit stack of open field numbers, so nesting depth costs heap, not stack.
   */
  private skipGroup(field: number, end: number): void {
    const open = [field];
    while (open.length > 0) {
      if (this.pos >= end) this.fail(`truncated group (field ${open[open.length - 1]})`, this.pos);
      const at = this.pos;
      const tag = this.tag(end);
      const wire = tag & 7;
      if (wire === SGROUP) open.push(tag >>> 3);
      else if (wire === EGROUP) {
        if (open.pop() !== tag >>> 3) this.fail(`end-group for field ${tag >>> 3} does not match its start-group`, at);
      } else this.skip(tag, end, at);
    }
  }
}

/** An unsigned 64-bit integer, as two 32-bit halves, in decimal (as OTLP/JSON writes it). */
function uint64String(lo: number, hi: number): string {
  // Below 2^53 a double is exact and much cheaper than a BigInt.
  if (hi < 0x200000) return String(hi * TWO_32 + lo);
  return ((BigInt(hi) << 32n) | BigInt(lo)).toString();
}

/** A signed 64-bit integer, as two 32-bit halves, in decimal (as OTLP/JSON writes it). */
function int64String(lo: number, hi: number): string {
  if (hi < 0x200000) return String(hi * TWO_32 + lo);
  // Negative and at least -2^53: still exact as a double.
  if (hi >= 0xffe00000) return String((hi - TWO_32) * TWO_32 + lo);
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo)).toString();
}

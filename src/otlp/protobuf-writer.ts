/**
 * The protobuf wire-format writer behind otlp-encode.ts: a growable buffer,
 * varints, fixed-width numbers, strings written in place as UTF-8, and
 * nested messages that reserve a one-byte length and widen it when they end.
 */
const UTF8 = new TextEncoder();

/** A growable protobuf writer. Nested messages reserve a one-byte length and widen it when they end. */
export class Writer {
  buffer = new Uint8Array(64 * 1024);
  view = new DataView(this.buffer.buffer);
  pos = 0;

  ensure(more: number): void {
    if (this.pos + more <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.pos + more) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buffer.subarray(0, this.pos));
    this.buffer = next;
    this.view = new DataView(next.buffer);
  }

  varint(value: number): void {
    this.ensure(10);
    let v = value;
    while (v > 0x7f) {
      this.buffer[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buffer[this.pos++] = v;
  }

  /** A 64-bit two's-complement varint (int64). */
  varint64(value: bigint): void {
    this.ensure(10);
    let v = BigInt.asUintN(64, value);
    while (v > 0x7fn) {
      this.buffer[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buffer[this.pos++] = Number(v);
  }

  tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  fixed64(field: number, value: bigint): void {
    this.tag(field, 1);
    this.ensure(8);
    this.view.setBigUint64(this.pos, BigInt.asUintN(64, value), true);
    this.pos += 8;
  }

  fixed32(field: number, value: number): void {
    this.tag(field, 5);
    this.ensure(4);
    this.view.setUint32(this.pos, value >>> 0, true);
    this.pos += 4;
  }

  double(field: number, value: number): void {
    this.tag(field, 1);
    this.ensure(8);
    this.view.setFloat64(this.pos, value, true);
    this.pos += 8;
  }

  bytes(field: number, value: Uint8Array): void {
    this.tag(field, 2);
    this.varint(value.length);
    this.ensure(value.length);
    this.buffer.set(value, this.pos);
    this.pos += value.length;
  }

  string(field: number, value: string): void {
    // At most 3 bytes per UTF-16 unit: encode in place, then write the length before it.
    this.tag(field, 2);
    const start = this.begin(value.length * 3);
    const { written } = UTF8.encodeInto(value, this.buffer.subarray(this.pos));
    this.pos += written;
    this.end(start);
  }

  hex(field: number, value: string): void {
    this.bytes(field, Buffer.from(value, 'hex'));
  }

  /** Starts a length-delimited field's content; returns where its length goes. */
  begin(reserve = 0): number {
    this.ensure(1 + reserve);
    const at = this.pos;
    this.pos += 1;
    return at;
  }

  /** Writes the length of the content started at `at`, widening its prefix when it needs more than one byte. */
  end(at: number): void {
    const length = this.pos - at - 1;
    let width = 1;
    for (let v = length; v > 0x7f; v = Math.floor(v / 0x80)) width += 1;
    if (width > 1) {
      this.ensure(width - 1);
      this.buffer.copyWithin(at + width, at + 1, this.pos);
      this.pos += width - 1;
    }
    let v = length;
    let i = at;
    while (v > 0x7f) {
      this.buffer[i++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buffer[i] = v;
  }

  message(field: number, write: () => void): void {
    this.tag(field, 2);
    const at = this.begin();
    write();
    this.end(at);
  }

  finish(): Uint8Array {
    return this.buffer.slice(0, this.pos);
  }
}

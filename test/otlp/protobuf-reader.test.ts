/**
 * Reader: varints of up to 64 bits, lengths, fixed-width numbers, strings,
 * hex and base64 read as OTLP/JSON writes them, unknown fields of every wire
 * type skipped, the item budget, and every malformed input a
 * ProtobufDecodeError naming its byte.
 */
import { describe, expect, it } from 'vitest';
import {
  I32,
  I64,
  LEN,
  ProtobufDecodeError,
  ProtobufItemLimitError,
  Reader,
  VARINT,
} from '../../src/otlp/protobuf-reader.js';
import { Writer } from '../../src/otlp/protobuf-writer.js';

const reader = (bytes: number[]) => new Reader(new Uint8Array(bytes));
const written = (write: (w: Writer) => void): Reader => {
  const w = new Writer();
  write(w);
  return new Reader(w.finish());
};

/** The error a read throws, for its exact message and offset. */
function failure(read: () => unknown): ProtobufDecodeError {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(ProtobufDecodeError);
    return error as ProtobufDecodeError;
  }
  throw new Error('expected a ProtobufDecodeError');
}

describe('Reader numbers', () => {
  it.each([
    [0n, '0'],
    [300n, '300'],
    [2n ** 53n - 1n, '9007199254740991'],
    [2n ** 63n - 1n, '9223372036854775807'],
    [-1n, '-1'],
    [-(2n ** 53n), '-9007199254740992'],
    [-(2n ** 63n), '-9223372036854775808'],
  ])('reads int64 %s back as the decimal string %s', (value, expected) => {
    const r = written((w) => w.varint64(value));
    expect(r.int64(r.bytes.length)).toBe(expected);
    expect(r.pos).toBe(r.bytes.length);
  });

  it.each([
    [[0x01], 1, 1, true],
    [[0xff, 0xff, 0xff, 0xff, 0x0f], 4294967295, -1, true],
    [[0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], 4294967294, -2, true],
    [[0x00], 0, 0, false],
  ])('reads %j as uint32 %d, int32 %d and bool %s', (bytes, u32, i32, bool) => {
    expect(reader(bytes).uint32(bytes.length)).toBe(u32);
    expect(reader(bytes).int32(bytes.length)).toBe(i32);
    expect(reader(bytes).bool(bytes.length)).toBe(bool);
  });

  it('reads bool true from a varint whose only set bit is in the high half', () => {
    const r = written((w) => w.varint64(2n ** 40n));
    expect(r.bool(r.bytes.length)).toBe(true);
  });

  it('reads fixed32, fixed64 (as decimal, beyond 2^53 too) and double little-endian', () => {
    expect(reader([4, 3, 2, 1]).fixed32(4)).toBe(0x01020304);
    expect(reader([1, 0, 0, 0, 0, 0, 0, 0]).fixed64(8)).toBe('1');
    expect(reader(Array(8).fill(0xff)).fixed64(8)).toBe('18446744073709551615');
    expect(reader([0, 0, 0, 0, 0, 0, 0xf0, 0x3f]).double(8)).toBe(1);
  });
});

describe('Reader length-delimited fields', () => {
  it('reads a string, a hex id and base64 bytes, each past its length prefix', () => {
    const r = written((w) => {
      w.bytes(1, new TextEncoder().encode('hé'));
      w.bytes(2, new Uint8Array([0xab, 0x01]));
      w.bytes(3, new Uint8Array([0xff, 0x00, 0x10]));
    });
    const end = r.bytes.length;
    expect(r.tag(end)).toBe((1 << 3) | LEN);
    expect(r.string(end)).toBe('hé');
    expect(r.tag(end)).toBe((2 << 3) | LEN);
    expect(r.hex(end)).toBe('ab01');
    expect(r.tag(end)).toBe((3 << 3) | LEN);
    expect(r.base64(end)).toBe('/wAQ');
    expect(r.pos).toBe(end);
  });

  it('reads invalid UTF-8 as U+FFFD rather than failing', () => {
    expect(reader([0x02, 0xc3, 0x28]).string(3)).toBe('\ufffd(');
  });

  it('limit returns the end of the delimited range', () => {
    const r = reader([0x02, 9, 9, 9]);
    expect(r.limit(4)).toBe(3);
    expect(r.pos).toBe(1);
  });
});

describe('Reader tags and skipping', () => {
  it('reads one- and multi-byte tags', () => {
    expect(reader([0x0a]).tag(1)).toBe(0x0a);
    expect(reader([0x80, 0x01]).tag(2)).toBe(128);
  });

  it.each([
    ['varint', [0x08, 0x96, 0x01]],
    ['64-bit', [0x09, 1, 2, 3, 4, 5, 6, 7, 8]],
    ['length-delimited', [0x0a, 0x02, 0x41, 0x42]],
    ['32-bit', [0x0d, 1, 2, 3, 4]],
    ['group with nested group', [0x0b, 0x13, 0x08, 0x01, 0x14, 0x0c]],
  ])('skips an unknown %s field to its end', (_what, bytes) => {
    const r = reader([...bytes, 0x10, 0x07]);
    const end = r.bytes.length;
    const tag = r.tag(end);
    r.skip(tag, end, 0);
    expect(r.pos).toBe(bytes.length);
    expect(r.tag(end)).toBe((2 << 3) | VARINT);
    expect(r.uint32(end)).toBe(7);
  });

  it('names the wire types it exports', () => {
    expect([VARINT, I64, LEN, I32]).toEqual([0, 1, 2, 5]);
  });
});

describe('Reader malformed input', () => {
  it.each([
    ['truncated varint', () => reader([0x80]).uint32(1), 'truncated varint at byte 0', 0],
    ['truncated long varint', () => reader([0x80, 0x80, 0x80, 0x80, 0x80]).uint32(5), 'truncated varint at byte 0', 0],
    [
      'varint over 64 bits',
      () => reader([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02]).uint32(10),
      'varint longer than 64 bits at byte 0',
      0,
    ],
    ['field number 0', () => reader([0x00]).tag(1), 'field number 0 at byte 0', 0],
    [
      'tag over 32 bits',
      () => reader([0x80, 0x80, 0x80, 0x80, 0x80, 0x01]).tag(6),
      'tag longer than 32 bits at byte 0',
      0,
    ],
    ['length past the end', () => reader([0x05, 1, 2]).limit(3), 'length 5 exceeds remaining 2 bytes at byte 0', 0],
    [
      'length over 32 bits',
      () => reader([0x80, 0x80, 0x80, 0x80, 0x80, 0x01]).limit(6),
      'length 34359738368 exceeds remaining 0 bytes at byte 0',
      0,
    ],
    ['truncated fixed32', () => reader([1, 2, 3]).fixed32(3), 'truncated fixed32 at byte 0', 0],
    ['truncated fixed64', () => reader([1, 2, 3]).fixed64(3), 'truncated fixed64 at byte 0', 0],
    ['truncated double', () => reader([1]).double(1), 'truncated double at byte 0', 0],
    ['bad wire type 6', () => reader([0x0e]).skip(0x0e, 1, 0), 'bad wire type 6 at byte 0', 0],
    ['lone end-group', () => reader([0x0c]).skip(0x0c, 1, 0), 'end-group without start-group at byte 0', 0],
    ['truncated 64-bit skip', () => reader([1, 2]).skip(0x09, 2, 0), 'truncated 64-bit field at byte 0', 0],
  ])('fails on %s with a ProtobufDecodeError at its byte', (_what, read, message, offset) => {
    const error = failure(read);
    expect(error.message).toBe(message);
    expect(error.offset).toBe(offset);
    expect(error.name).toBe('ProtobufDecodeError');
  });

  it('fails on a group that never ends and on mismatched end-groups, naming the field', () => {
    const open = reader([0x0b, 0x08, 0x01]);
    expect(failure(() => open.skip(open.tag(3), 3, 0)).message).toBe('truncated group (field 1) at byte 3');
    const wrong = reader([0x0b, 0x14]);
    expect(failure(() => wrong.skip(wrong.tag(2), 2, 0)).message).toBe(
      'end-group for field 2 does not match its start-group at byte 1',
    );
  });

  it('reads only within the enclosing end, not the whole input', () => {
    expect(failure(() => reader([0x80, 0x01]).uint32(1)).message).toBe('truncated varint at byte 0');
    expect(failure(() => reader([0x02, 1, 2]).limit(2)).message).toBe('length 2 exceeds remaining 1 bytes at byte 0');
  });
});

describe('Reader item budget', () => {
  it('counts items and fails with ProtobufItemLimitError past the most allowed', () => {
    const r = new Reader(new Uint8Array([1, 2, 3]), 2);
    r.count();
    r.count();
    expect(r.items).toBe(2);
    r.pos = 3;
    const error = failure(() => r.count());
    expect(error).toBeInstanceOf(ProtobufItemLimitError);
    expect(error.message).toBe('more than 2 spans, events, links and attributes at byte 3');
    expect(error.offset).toBe(3);
  });

  it('has no budget by default', () => {
    const r = reader([]);
    for (let i = 0; i < 10_000; i += 1) r.count();
    expect(r.items).toBe(10_000);
  });
});

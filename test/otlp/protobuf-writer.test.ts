/**
 * Writer: the exact protobuf wire bytes of varints, fixed-width numbers,
 * strings, hex ids and nested messages, and a buffer that grows when full.
 */
import { describe, expect, it } from 'vitest';
import { Writer } from '../../src/otlp/protobuf-writer.js';

const bytesOf = (write: (w: Writer) => void): number[] => {
  const w = new Writer();
  write(w);
  return [...w.finish()];
};

describe('Writer', () => {
  it.each([
    [0, [0x00]],
    [1, [0x01]],
    [127, [0x7f]],
    [128, [0x80, 0x01]],
    [300, [0xac, 0x02]],
    [2 ** 32, [0x80, 0x80, 0x80, 0x80, 0x10]],
    [Number.MAX_SAFE_INTEGER, [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f]],
  ])('writes varint %d as base-128 groups, low first', (value, expected) => {
    expect(bytesOf((w) => w.varint(value))).toEqual(expected);
  });

  it.each([
    [0n, [0x00]],
    [150n, [0x96, 0x01]],
    [-1n, [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]],
    [-2n, [0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]],
  ])('writes int64 %s as a two’s-complement varint', (value, expected) => {
    expect(bytesOf((w) => w.varint64(value))).toEqual(expected);
  });

  it('writes a tag as field << 3 | wire type', () => {
    expect(bytesOf((w) => w.tag(1, 2))).toEqual([0x0a]);
    expect(bytesOf((w) => w.tag(16, 0))).toEqual([0x80, 0x01]);
  });

  it('writes fixed64, fixed32 and double little-endian after their tags', () => {
    expect(bytesOf((w) => w.fixed64(7, 0x0102030405060708n))).toEqual([
      0x39, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
    ]);
    expect(bytesOf((w) => w.fixed64(1, -1n))).toEqual([0x09, ...Array(8).fill(0xff)]);
    expect(bytesOf((w) => w.fixed32(2, 0x01020304))).toEqual([0x15, 0x04, 0x03, 0x02, 0x01]);
    expect(bytesOf((w) => w.fixed32(2, -1))).toEqual([0x15, 0xff, 0xff, 0xff, 0xff]);
    expect(bytesOf((w) => w.double(4, 1))).toEqual([0x21, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f]);
  });

  it('writes bytes, hex ids and UTF-8 strings length-prefixed', () => {
    expect(bytesOf((w) => w.bytes(3, new Uint8Array([9, 8])))).toEqual([0x1a, 0x02, 9, 8]);
    expect(bytesOf((w) => w.hex(1, '0a0b'))).toEqual([0x0a, 0x02, 0x0a, 0x0b]);
    expect(bytesOf((w) => w.string(1, 'hé'))).toEqual([0x0a, 0x03, 0x68, 0xc3, 0xa9]);
    expect(bytesOf((w) => w.string(1, ''))).toEqual([0x0a, 0x00]);
  });

  it('widens a string length prefix beyond 127 bytes and keeps the content after it', () => {
    const text = 'x'.repeat(200);
    expect(bytesOf((w) => w.string(1, text))).toEqual([0x0a, 0xc8, 0x01, ...Array(200).fill(0x78)]);
  });

  it('writes a nested message with its exact length, widened when it exceeds one byte', () => {
    expect(bytesOf((w) => w.message(2, () => w.varint(5)))).toEqual([0x12, 0x01, 0x05]);
    const inner = new Uint8Array(300).fill(7);
    const out = bytesOf((w) => {
      w.message(1, () => w.bytes(2, inner));
      w.varint(42);
    });
    // Body: tag 0x12, length 300 (0xac 0x02), 300 bytes = 303 bytes, prefixed as 0xaf 0x02.
    expect(out.slice(0, 6)).toEqual([0x0a, 0xaf, 0x02, 0x12, 0xac, 0x02]);
    expect(out.length).toBe(3 + 303 + 1);
    expect(out.slice(6, 306).every((b) => b === 7)).toBe(true);
    expect(out.at(-1)).toBe(42);
  });

  it('grows its buffer, keeping what was written, when the content outgrows it', () => {
    const w = new Writer();
    const initial = w.buffer.length;
    const big = new Uint8Array(initial + 10).fill(1);
    w.varint(3);
    w.bytes(1, big);
    expect(w.buffer.length).toBe(initial * 2);
    const out = w.finish();
    expect(out.length).toBe(1 + 1 + 3 + big.length);
    expect([...out.slice(0, 5)]).toEqual([0x03, 0x0a, 0x8a, 0x80, 0x04]);
    expect(out.at(-1)).toBe(1);
  });

  it('finish returns a copy of only what was written', () => {
    const w = new Writer();
    w.varint(1);
    const out = w.finish();
    w.varint(2);
    expect([...out]).toEqual([1]);
  });
});

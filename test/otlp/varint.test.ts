/**
 * Protobuf varints (src/otlp/varint.ts): the size and the bytes of each boundary value, past 2^32
 * included, where shifts would have truncated.
 */
import { describe, expect, it } from 'vitest';
import { varintSize, writeVarint } from '../../src/otlp/varint.js';

describe('varints', () => {
  it.each<[number, number[]]>([
    [0, [0x00]],
    [1, [0x01]],
    [127, [0x7f]],
    [128, [0x80, 0x01]],
    [300, [0xac, 0x02]],
    [16_383, [0xff, 0x7f]],
    [16_384, [0x80, 0x80, 0x01]],
    [2 ** 32, [0x80, 0x80, 0x80, 0x80, 0x10]],
  ])('%d is written as %j, at the size it says', (value, bytes) => {
    const out = new Uint8Array(12);
    const end = writeVarint(out, 1, value);
    expect([...out.subarray(1, end)]).toEqual(bytes);
    expect(varintSize(value)).toBe(bytes.length);
  });
});

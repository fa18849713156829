/**
 * Protobuf base-128 varints for the encoders that write length prefixes into
 * their own buffers (the export response, the request splitter). Division,
 * not shifts: shifts would truncate values above 2^32.
 */

/** Bytes the varint of `value` (a non-negative integer) takes. */
export function varintSize(value: number): number {
  let size = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 0x80);
    size += 1;
  }
  return size;
}

/** Writes the varint of `value` into `out` at `pos`; returns the position after it. */
export function writeVarint(out: Uint8Array, pos: number, value: number): number {
  while (value >= 0x80) {
    out[pos++] = (value % 0x80) | 0x80;
    value = Math.floor(value / 0x80);
  }
  out[pos++] = value;
  return pos;
}

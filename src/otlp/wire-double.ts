/**
 * A `doubleValue` JavaScript would not tell from an `intValue` (a whole
 * double such as `3.0`, or `-0`) or could not write as a JSON number (`NaN`,
 * `±Infinity`), boxed so it leaves the gateway as the double it came as
 * (docs/gateway.md, "Values keep their type"). A boxed `Number` is still a
 * number to `Number(…)` and `valueOf()`; sanitization passes it through.
 */

/** A double kept as a double on the wire: a boxed `Number`. */
// eslint-disable-next-line @typescript-eslint/no-wrapper-object-types -- the box is the point: a primitive would read as an int
export type WireDouble = Number;

/** `value` boxed when a plain number would lose its double type (whole, `-0`, not finite), else `value` itself. */
export function wireDouble(value: number): number | WireDouble {
  return Number.isInteger(value) || !Number.isFinite(value) ? (Object(value) as WireDouble) : value;
}

/** True when `value` is a {@link WireDouble}. */
export function isWireDouble(value: unknown): value is WireDouble {
  return value instanceof Number;
}

/**
 * The range of OTLP's `intValue` (int64): a bigint inside it is written as
 * an integer, one outside it as text, by both encoders.
 */
/** The least int64. */
export const INT64_MIN = -(2n ** 63n);
/** The greatest int64. */
export const INT64_MAX = 2n ** 63n - 1n;

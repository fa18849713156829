/** Validation of strategy options given in code (configuration is validated by the registry's schemas). */

/** The longest wait a Node.js timer can hold; longer ones fire at once. */
export const MAX_WAIT_MILLIS = 2_147_483_647;

/**
 * `value` when it is an integer in [min, max].
 * @throws RangeError naming the strategy and the option
 */
export function integerOption(
  strategy: string,
  name: string,
  value: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${strategy}: ${name} must be an integer from ${min} to ${max}, got ${value}`);
  }
  return value;
}

/**
 * A list of attribute keys given as exact keys and key prefixes.
 */

/** True when `key` is one of `exact` or starts with one of `prefixes`. */
export function inKeyList(key: string, exact: ReadonlySet<string>, prefixes: readonly string[]): boolean {
  if (exact.has(key)) return true;
  for (const prefix of prefixes) {
    if (key.startsWith(prefix)) return true;
  }
  return false;
}

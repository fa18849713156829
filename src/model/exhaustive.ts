/**
 * Exhaustiveness checks for switches over the closed value sets (enums.ts,
 * fact kinds, span roles). Ending a switch that handles every member with one
 * of these makes adding a member a compile error wherever it must be handled.
 */

/**
 * Ends a switch that handles every member of a closed set: fails to compile
 * when a member is unhandled, and throws at run time for a value that
 * bypassed the types (read from a file, passed from JavaScript).
 */
export function assertNever(value: never, what: string): never {
  let shown: string;
  try {
    shown = JSON.stringify(value) ?? String(value);
  } catch {
    shown = String(value);
  }
  throw new Error(`unexpected ${what}: ${shown}`);
}

/**
 * The compile-time half of {@link assertNever}, for a function whose contract
 * tolerates values outside its type: fails to compile when a member is
 * unhandled, does nothing at run time, and the caller keeps its tolerant
 * fallback after it.
 */
export function checkExhaustive(_value: never): void {
  // Nothing to do at run time: the check is the parameter's type.
}

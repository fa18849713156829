/**
 * English number agreement for the report's output (the table, the notes,
 * the HTML page): `1 run`, `0 runs`, `2 runs`, and the verbs and pronouns
 * that go with a count (`was`/`were`, `its`/`their`). The one place this is
 * decided, so no count is written with a hand-made ternary.
 */

/** The form of a word that agrees with `n`: `singular` for exactly 1, else `pluralForm` (default `singular` + `s`). */
export function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return n === 1 ? singular : pluralForm;
}

/** Options of {@link counted}. */
export interface CountedOptions {
  /** The plural form when it is not the singular + `s` (`incidents are` for `incident is`). */
  readonly plural?: string;
  /** How the number is written. @default String */
  readonly format?: (n: number) => string;
}

/** `n` followed by the form of `singular` that agrees with it: `0 runs`, `1 run`, `2 runs`. */
export function counted(n: number, singular: string, options: CountedOptions = {}): string {
  return `${(options.format ?? String)(n)} ${plural(n, singular, options.plural)}`;
}

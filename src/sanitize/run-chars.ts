/**
 * The character classes the catch-all (generic-secret.ts) reads text by:
 * which characters make a token run, end a value, may stand between a name
 * and its value, and which runs are numbers, hex or short words. Char codes,
 * not regular expressions, so each character costs one comparison chain.
 */
/** 0-9 A-Z a-z `_` `-` `.` `+` `/` `~`: characters of a token run (`=` only as trailing padding). */
export function isRunChar(c: number): boolean {
  return (
    (c >= 48 && c <= 57) ||
    (c >= 65 && c <= 90) ||
    (c >= 97 && c <= 122) ||
    c === 95 ||
    c === 45 ||
    c === 46 ||
    c === 43 ||
    c === 47 ||
    c === 126
  );
}
export /** 0-9 A-Z a-z. */
function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}
/** A double quote, a single quote or a backtick: the quotes that open a quoted value. */
export function isQuote(c: number): boolean {
  return c === 34 || c === 39 || c === 96;
}
/** Where an unquoted value ends: whitespace, quotes, `\`, `,`, `;`, `&`, brackets (`Optional[str]` is a type), `<`, `>`. */
export function endsValue(c: number): boolean {
  return (
    c <= 32 ||
    isQuote(c) ||
    c === 92 ||
    c === 44 ||
    c === 59 ||
    c === 38 ||
    c === 41 ||
    c === 93 ||
    c === 125 ||
    c === 60 ||
    c === 62 ||
    c === 40 ||
    c === 91
  );
}
/** Characters allowed between a name and its value: whitespace, quotes, `\`, `:`, `=`, `>`, `[` (argv-like lists). */
export function isGapChar(c: number): boolean {
  return c <= 32 || isQuote(c) || c === 92 || c === 58 || c === 61 || c === 62;
}

/** The class of a character: a lower-case or upper-case ASCII letter, a digit, or anything else. */
export function caseOf(c: number): 'lower' | 'upper' | 'digit' | 'other' {
  if (c >= 97 && c <= 122) return 'lower';
  if (c >= 65 && c <= 90) return 'upper';
  if (c >= 48 && c <= 57) return 'digit';
  return 'other';
}

/** True for a run of 1 to 8 letters: a word such as `Bearer` or `is` between a name and its value. */
export function isShortWord(text: string, start: number, end: number): boolean {
  if (end - start > 8) return false;
  for (let i = start; i < end; i += 1) {
    const kind = caseOf(text.charCodeAt(i));
    if (kind !== 'lower' && kind !== 'upper') return false;
  }
  return true;
}

/** Hex digits and dashes only: a digest, a UUID, a trace id. */
export function isHexOrUuid(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i += 1) {
    const c = text.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70) || c === 45)) return false;
  }
  return true;
}

/** True when `text[start, end)` is digits only: a number, a date part, a version part. */
export function isNumber(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i += 1) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return end > start;
}

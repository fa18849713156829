/**
 * A name read as words, the way credential-words.ts and public-names.ts
 * judge it: its last two words, split at separators and at case humps, in
 * any case style (`DB_PASSWORD`, `dbPassword`, `APIKey`), and a cheap
 * three-letter fingerprint of a word's end.
 */
function isLower(c: number): boolean {
  return c >= 97 && c <= 122;
}
function isUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * The last two words of `name`, lower-cased, split at separators and at case
 * humps (`dbPassword` → `db`, `password`; `APIKey` → `api`, `key`); trailing
 * digits dropped (`password2`). Also whether the last word was written in one
 * case with no hump, where it may be glued from several (`dbpassword`).
 */
export function lastWords(name: string): { last: string; before: string; glued: boolean } {
  let end = name.length;
  // Trailing digits and separators are not words (`password2`, `token_`).
  while (end > 0 && !isLower(name.charCodeAt(end - 1)) && !isUpper(name.charCodeAt(end - 1))) end -= 1;
  const words: string[] = [];
  let glued = true;
  let cut = end;
  for (let i = end - 1; i >= 0 && words.length < 2; i -= 1) {
    const c = name.charCodeAt(i);
    const letter = isLower(c) || isUpper(c);
    if (!letter && !isDigit(c)) {
      if (cut > i + 1) words.push(name.slice(i + 1, cut));
      cut = i;
      continue;
    }
    if (!letter) continue;
    const prev = i > 0 ? name.charCodeAt(i - 1) : 0;
    // A hump: `bP` in `dbPassword` (lower then upper), or `IK` in `APIKey` (upper, upper, then lower).
    const hump =
      isUpper(c) &&
      (isLower(prev) || isDigit(prev) || (isUpper(prev) && i + 1 < end && isLower(name.charCodeAt(i + 1))));
    if (hump) {
      if (words.length === 0) glued = false;
      words.push(name.slice(i, cut));
      cut = i;
    }
  }
  if (words.length < 2 && cut > 0) {
    let start = cut;
    while (
      start > 0 &&
      (isLower(name.charCodeAt(start - 1)) ||
        isUpper(name.charCodeAt(start - 1)) ||
        isDigit(name.charCodeAt(start - 1)))
    )
      start -= 1;
    if (start < cut) words.push(name.slice(start, cut));
  }
  const last = (words[0] ?? '').toLowerCase();
  const before = (words[1] ?? '').toLowerCase().replace(/\d+$/, '');
  return { last, before, glued };
}

/** Three letters at `at` as one number, lower-cased (ASCII letters only: `| 32`). */
export function packed(text: string, at: number): number {
  return ((text.charCodeAt(at) | 32) << 16) | ((text.charCodeAt(at + 1) | 32) << 8) | (text.charCodeAt(at + 2) | 32);
}

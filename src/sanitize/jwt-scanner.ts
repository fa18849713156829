/**
 * Finds JSON Web Tokens (`eyJ…` `.` `…` `.` `…`, each part at least 8
 * base64url characters after its start) in linear time.
 *
 * A regular expression cannot: a token may start wherever `eyJ` follows a
 * non-word character, `-` included, so in `eyJ-eyJ-eyJ-…` every start scans
 * the same run of base64url characters to its end, and 100 KB of that took
 * 60 ms. A part always runs to the end of its run of base64url characters
 * (it cannot hold the `.` that follows it), so every start inside a run ends
 * its first part where the run ends; when that fails, the scan skips the
 * whole run at once.
 */

function isBase64Url(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45;
}

function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/** The end of the run of base64url characters that starts at `from`. */
function runEnd(text: string, from: number): number {
  let at = from;
  while (at < text.length && isBase64Url(text.charCodeAt(at))) at += 1;
  return at;
}

/** Minimum characters of a part after its start (`eyJ` counts as the first part's start). */
const MIN_PART = 8;

/**
 * Replaces every JSON Web Token in `text` by `redact(token)`. A token starts
 * at `eyJ` not preceded by a word character (`\b` in a regular expression).
 */
export function replaceJwts(text: string, redact: (token: string) => string): string {
  let out = '';
  let copied = 0;
  let from = 0;
  for (;;) {
    const start = text.indexOf('eyJ', from);
    if (start < 0) break;
    if (start > 0 && isWordChar(text.charCodeAt(start - 1))) {
      from = start + 1;
      continue;
    }
    const end1 = runEnd(text, start + 3);
    const ok1 = end1 - (start + 3) >= MIN_PART && text.charCodeAt(end1) === 46;
    const end2 = ok1 ? runEnd(text, end1 + 1) : end1;
    const ok2 = ok1 && end2 - (end1 + 1) >= MIN_PART && text.charCodeAt(end2) === 46;
    const end3 = ok2 ? runEnd(text, end2 + 1) : end2;
    if (ok2 && end3 - (end2 + 1) >= MIN_PART) {
      out += text.slice(copied, start) + redact(text.slice(start, end3));
      copied = end3;
      from = end3;
      continue;
    }
    // Every later start within this run ends its first part at end1 too, and
    // fails the same way: go past the run.
    from = Math.max(end1, start + 1);
  }
  return copied === 0 ? text : out + text.slice(copied);
}

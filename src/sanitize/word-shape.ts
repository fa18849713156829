/**
 * Whether a run reads as words rather than as random characters: a word is
 * letters in at most three pronounceable humps (`DeepSeek`, `XMLHttp`), and a
 * composite name is built of words and numbers (`node-cache-Linux-x64`). The
 * catch-all keeps such runs: random tokens almost never read so.
 */
import { caseOf, isHexOrUuid, isNumber } from './run-chars.js';
import { looksRandomPiece, measureRun } from './secret-shape.js';
/** True when the run opens with a lower-case word of 2 to 8 letters and a `_`, `-` or `.` (`msgbatch_`, `price_`). */
export function hasWordPrefix(text: string, start: number, end: number): boolean {
  let at = start;
  while (at < end && at - start <= 8 && caseOf(text.charCodeAt(at)) === 'lower') at += 1;
  const separator = text.charCodeAt(at);
  return at - start >= 2 && at - start <= 8 && (separator === 95 || separator === 45 || separator === 46);
}

/**
 * True when the run is made of words: two or more pieces between `-`, `_`,
 * `.`, `/` or `:` are letters only, three or more of them
 * (`deepseek-ai/DeepSeek-R1-Distill-Qwen-32B`, `node-cache-Linux-x64-npm-<hash>`).
 * A random token's pieces almost never are.
 */
export function isComposite(text: string, start: number, end: number): boolean {
  let words = 0;
  let pieces = 0;
  let plain = 0;
  let pieceStart = start;
  for (let i = start; i <= end; i += 1) {
    const c = i < end ? text.charCodeAt(i) : 45;
    if (c === 45 || c === 95 || c === 46 || c === 47 || c === 58) {
      // A long random piece that is no hex digest (`…_mockPG4ZsoxmjHOyUFw4idWG_…`) makes a key, whatever words surround it.
      if (
        i - pieceStart >= 16 &&
        !isHexOrUuid(text, pieceStart, i) &&
        looksRandomPiece(measureRun(text, pieceStart, i))
      )
        return false;
      if (i > pieceStart) {
        pieces += 1;
        const word = isWord(text, pieceStart, i);
        if (word) words += 1;
        if (word || isNumber(text, pieceStart, i)) plain += 1;
      }
      pieceStart = i + 1;
    }
  }
  // Words and numbers only: a date or a version after a word (`token-counting-2024-11-01`, `v1.2.3`).
  return words >= 2 || (pieces >= 2 && plain === pieces && words >= 1);
}

/** True when every piece of `text[start, end)` between `-`, `_`, `.`, `/` or `:` is a lower-case word or a number (`pat_expiry_2025`). */
export function isPlainWords(text: string, start: number, end: number): boolean {
  let pieceStart = start;
  for (let i = start; i <= end; i += 1) {
    const c = i < end ? text.charCodeAt(i) : 45;
    if (c !== 45 && c !== 95 && c !== 46 && c !== 47 && c !== 58) continue;
    if (
      i > pieceStart &&
      !isNumber(text, pieceStart, i) &&
      !(
        isWord(text, pieceStart, i) &&
        caseOf(text.charCodeAt(pieceStart)) === 'lower' &&
        isOneCase(text, pieceStart, i)
      )
    )
      return false;
    pieceStart = i + 1;
  }
  return true;
}

/** True when the letters of `text[start, end)` are all lower case. */
function isOneCase(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i += 1) if (caseOf(text.charCodeAt(i)) === 'upper') return false;
  return true;
}

/** How many pieces of `text[start, end)` between `-`, `_`, `.`, `/` or `:` read as words. */
export function wordPieces(text: string, start: number, end: number): number {
  let words = 0;
  let pieceStart = start;
  for (let i = start; i <= end; i += 1) {
    const c = i < end ? text.charCodeAt(i) : 45;
    if (c !== 45 && c !== 95 && c !== 46 && c !== 47 && c !== 58) continue;
    if (isWord(text, pieceStart, i)) words += 1;
    pieceStart = i + 1;
  }
  return words;
}

/**
 * True when `text[start, end)` reads as a word: letters only, in at most
 * three humps (`node`, `Linux`, `DeepSeek`, `XMLHttp`, `npm`), each of 3 or
 * more letters but a 2-letter first one (`doFilter`, `isSecret`).
 * A hump starts at an upper-case letter after a lower-case one (`Deep|Seek`)
 * or before the lower case that ends a capital run (`XML|Http`). Random
 * letters (`LQcuXUmndOMyjv`, `FdKM`, `QAAAAAAAAAAz`) break into short humps.
 */
export function isWord(text: string, start: number, end: number): boolean {
  if (end - start < 3 || isHexOrUuid(text, start, end)) return false;
  let humps = 0;
  let humpStart = start;
  for (let i = start; i <= end; i += 1) {
    if (i < end) {
      const c = text.charCodeAt(i);
      if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122))) return false;
      const upper = c <= 90;
      const previousLower = i > start && text.charCodeAt(i - 1) >= 97;
      const capitalRunEnds =
        upper && i > start && text.charCodeAt(i - 1) <= 90 && i + 1 < end && text.charCodeAt(i + 1) >= 97;
      if (!((upper && previousLower) || capitalRunEnds)) continue;
    }
    const length = i - humpStart;
    if (length < 2 || (length === 2 && humps > 0)) return false;
    // An acronym is short (`XML`, `HTTP`); a long capital run inside mixed letters (`PWIGGJSSD`) is random.
    if (
      length > 5 &&
      text.charCodeAt(i - 1) <= 90 &&
      text.charCodeAt(humpStart + 1) <= 90 &&
      !(humpStart === start && i === end)
    )
      return false;
    if (!isPronounceable(text, humpStart, i)) return false;
    humps += 1;
    humpStart = i;
  }
  return humps <= 3;
}

/** More consonants in a row than a word of a name has (`lengths` has 5). */
const MAX_CONSONANT_RUN = 5;
/** A hump this long with no vowel after its first letter is no word (`Akrnvq`); shorter ones are acronyms (`Http`, `Grpc`). */
const MIN_VOWELLESS_NON_WORD = 5;

/**
 * True when a hump with lower-case letters reads aloud: no run of more than
 * {@link MAX_CONSONANT_RUN} consonants, and a vowel (`y` counts) after its
 * first letter once it is {@link MIN_VOWELLESS_NON_WORD} letters long. An
 * all-capital hump is an acronym (`HTTP`) and always reads.
 */
function isPronounceable(text: string, start: number, end: number): boolean {
  let lower = false;
  let vowelsAfterFirst = 0;
  let run = 0;
  let longestRun = 0;
  for (let i = start; i < end; i += 1) {
    const c = text.charCodeAt(i);
    if (c >= 97) lower = true;
    const folded = c | 0x20;
    if (folded === 97 || folded === 101 || folded === 105 || folded === 111 || folded === 117 || folded === 121) {
      if (i > start) vowelsAfterFirst += 1;
      run = 0;
    } else {
      run += 1;
      longestRun = Math.max(longestRun, run);
    }
  }
  if (!lower) return true;
  return longestRun <= MAX_CONSONANT_RUN && (end - start < MIN_VOWELLESS_NON_WORD || vowelsAfterFirst > 0);
}

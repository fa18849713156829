/**
 * What a secret looks like when nothing names its format: a run of token
 * characters long enough to resist guessing, drawn at random. Measured in one
 * pass over the run (linear): its character classes, how often it turns
 * between letters and digits or starts a new camel-case hump, how long its
 * segments of one class are, and its Shannon entropy.
 *
 * Why these (docs/sanitization.md, "Thresholds and why"): entropy alone takes
 * identifiers (`secretsManagerGetSecretValue`, 3.6 bits) for keys and a hex
 * key (3.7 bits) for prose. Random text turns at about half its neighbouring
 * characters (0.45 for base62, 0.47 for hex) and its segments average about 2
 * characters; identifiers turn at a hump (0.15) and their segments are words
 * (4.5 or more). Random text in one case with digits (base36, base32) turns
 * less, but its segments stay short.
 */

/** Measures of one run of characters. */
export interface RunShape {
  readonly length: number;
  readonly upper: number;
  readonly lower: number;
  readonly digits: number;
  /** Characters that are not ASCII letters or digits. */
  readonly others: number;
  /** Turns between letters and digits, and lower to upper case (a new hump), per pair of neighbouring letters and digits. */
  readonly switchRate: number;
  /** Average length of its segments: runs of one class, a capital and the lower-case letters after it counting as one (`Word`). */
  readonly segmentLength: number;
  /** Shannon entropy of the characters, in bits per character. */
  readonly entropy: number;
  /** Only hexadecimal digits, in one case, letters and digits both present. */
  readonly hex: boolean;
}

// One table reused by every call: the scrubber is synchronous, so no two measures overlap.
const counts = new Uint32Array(128);
const touched: number[] = [];

const OTHER = 0;
const UPPER = 1;
const LOWER = 2;
const DIGIT = 3;

function classOf(c: number): number {
  if (c >= 97 && c <= 122) return LOWER;
  if (c >= 65 && c <= 90) return UPPER;
  if (c >= 48 && c <= 57) return DIGIT;
  return OTHER;
}

/** The shape of `text` from `start` to `end` (exclusive). */
export function measureRun(text: string, start: number, end: number): RunShape {
  let upper = 0;
  let lower = 0;
  let digits = 0;
  let switches = 0;
  let pairs = 0;
  let segments = 0;
  let nonHex = false;
  let previous = OTHER;
  let beforePrevious = OTHER;
  for (let i = start; i < end; i += 1) {
    const c = text.charCodeAt(i);
    const slot = c < 128 ? c : 127;
    if (counts[slot] === 0) touched.push(slot);
    counts[slot] = (counts[slot] as number) + 1;
    const cls = classOf(c);
    if (cls === UPPER) upper += 1;
    else if (cls === LOWER) lower += 1;
    else if (cls === DIGIT) digits += 1;
    if ((cls === LOWER && c > 102) || (cls === UPPER && c > 70) || cls === OTHER) nonHex = true;
    if (cls === OTHER) {
      previous = OTHER;
      continue;
    }
    if (previous !== OTHER) {
      pairs += 1;
      if ((cls === DIGIT) !== (previous === DIGIT) || (previous === LOWER && cls === UPPER)) switches += 1;
    }
    // `Word`: a capital, then lower case, is one segment.
    const capitalized = previous === UPPER && cls === LOWER && beforePrevious !== UPPER;
    if (cls !== previous && !capitalized) segments += 1;
    beforePrevious = previous;
    previous = cls;
  }
  const length = end - start;
  let entropy = 0;
  for (const slot of touched) {
    const p = (counts[slot] as number) / length;
    entropy -= p * Math.log2(p);
    counts[slot] = 0;
  }
  touched.length = 0;
  const alnum = upper + lower + digits;
  return {
    length,
    upper,
    lower,
    digits,
    others: length - alnum,
    switchRate: pairs === 0 ? 0 : switches / pairs,
    segmentLength: segments === 0 ? 0 : alnum / segments,
    entropy,
    hex: !nonHex && digits > 0 && (upper === 0) !== (lower === 0),
  };
}

/**
 * Minimum length of a secret found by its shape alone (about 80 bits in hex,
 * 95 in base62): shorter random-looking runs are ids, counters and versions.
 * @default 16
 */
export const MIN_SECRET_LENGTH = 16;
/** Turns per pair that make a run random: base62 and hex keys show 0.45 (5% under 0.27), identifiers 0.15. */
const MIN_SWITCH_RATE = 0.25;
/** Longest average segment of a random run with digits: base36 keys show 2.4 (95% at most 4), identifiers 4.5 or more. */
const MAX_SEGMENT_WITH_DIGITS = 4;
/** Longest average segment of random letters in both cases: base52 shows 2.4 (95% at most 4), camel case 4.5 or more. */
const MAX_SEGMENT_LETTERS = 4;
/** Minimum entropy, bits per character: 16 random hex digits show about 3.4, `passwordpassword` 2.75. */
const MIN_ENTROPY = 3;
/**
 * Minimum entropy of hex of 24 digits or more: random hex shows 3.7 to 3.9
 * there, and 1 in 10,000 under 3.0; hex cannot spell `passwordpassword`, and
 * `deadbeefdeadbeef…` shows 2.5.
 */
const MIN_HEX_ENTROPY = 2.75;
/**
 * Entropy that makes a long run (40 characters or more) of all three classes
 * random whatever its turns: random base62 shows over 5 bits there, and a
 * long identifier or a sentence glued into camel case about 4.2. Upper case
 * heavy keys (Artifactory's) turn less than 0.25 and still show 5.
 */
const LONG_RUN_ENTROPY = 4.6;
/** Length from which {@link LONG_RUN_ENTROPY} is believed. */
const LONG_RUN = 40;

/**
 * True when `shape` looks drawn at random: at least `minLength` long, letters
 * and digits (or both cases of letters) mixed the way random text mixes them,
 * and enough distinct characters. A path, a word, an identifier or a version
 * is not.
 */
export function looksRandom(shape: RunShape, minLength = MIN_SECRET_LENGTH): boolean {
  if (shape.length < minLength) return false;
  const letters = shape.upper + shape.lower;
  const mixed = (letters > 0 && shape.digits > 0) || (shape.upper > 1 && shape.lower > 1);
  if (!mixed) return false;
  // Mostly punctuation (`----`, `a.b.c.d.e.f`) is structure, not a key.
  if (shape.others * 3 > shape.length) return false;
  if (shape.entropy < (shape.hex && shape.length >= 24 ? MIN_HEX_ENTROPY : MIN_ENTROPY)) return false;
  // Hex with both letters and digits at this entropy is random data (a key or a digest), however its digits cluster.
  if (shape.hex) return true;
  return (
    shape.switchRate >= MIN_SWITCH_RATE ||
    shape.segmentLength <= (shape.digits > 0 ? MAX_SEGMENT_WITH_DIGITS : MAX_SEGMENT_LETTERS)
  );
}

/**
 * Entropy that makes a piece of 24 characters or more random whatever its
 * turns, when it mixes both cases and digits: random base62 of that length
 * shows 4.5 to 4.7 bits, camel-case names of words 3.8 to 4.3
 * (`DeepSeekR1DistillQwen32B` 3.85, `MetaLlama3170BInstructTurbo` 4.25).
 */
const LONG_PIECE_ENTROPY = 4.5;

/**
 * True when a piece of a longer token (between `-`, `_`, `.`, `/`, `:`)
 * looks random: {@link looksRandom}, or 24 characters or more of both cases
 * and digits at {@link LONG_PIECE_ENTROPY} bits or more. Such a piece makes
 * its token a key whatever words surround it (`SruUdi_vJlmcKCQJ…_mmk`).
 */
export function looksRandomPiece(shape: RunShape): boolean {
  if (looksRandom(shape)) return true;
  return (
    shape.length >= 24 &&
    shape.upper > 1 &&
    shape.lower > 1 &&
    shape.digits > 0 &&
    shape.others === 0 &&
    shape.entropy >= LONG_PIECE_ENTROPY
  );
}

/**
 * Stricter: a run that is a secret with no name or prefix around it (a
 * Cohere or Atlassian key alone in a log line). At least 32 characters, all
 * three classes, turns and short segments as random base62 shows them (99%
 * average at most 2.7), and over 4 bits of entropy, so hex digests and ids
 * (no upper case) and camel-case identifiers never qualify. From 40
 * characters on, 4.6 bits or more with segments of at most 4 is enough, whatever the
 * turns and with or without digits (see {@link LONG_RUN_ENTROPY}).
 */
export function looksRandomAlone(shape: RunShape): boolean {
  return (
    shape.length >= 32 &&
    shape.upper > 1 &&
    shape.lower > 1 &&
    shape.others * 8 <= shape.length &&
    ((shape.digits > 0 && shape.switchRate >= MIN_SWITCH_RATE && shape.segmentLength <= 3 && shape.entropy >= 4) ||
      // Long and dense enough, digits or not: 73 random letters (a base62 key that drew no digit) show 5.2 bits.
      (shape.length >= LONG_RUN && shape.segmentLength <= MAX_SEGMENT_WITH_DIGITS && shape.entropy >= LONG_RUN_ENTROPY))
  );
}

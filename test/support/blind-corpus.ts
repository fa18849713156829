/**
 * The blind corpora of test/fixtures/sanitize/ (secrets and benign
 * near-misses written by helpers that never read the sanitizer; see each
 * folder's README): loading, fresh instances of a secret from its shape, and
 * fast-check arbitraries over them for the no-secret properties.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'sanitize');
/** The corpora, in the order they were written: the first was tuned against, the holdout was not. */
export const CORPORA = ['blind-corpus', 'blind-corpus-holdout'].filter((name) =>
  existsSync(join(FIXTURES, name, 'secrets.jsonl')),
);

/** Where an entry's text sits in telemetry. */
export type Carrier =
  | { readonly carrier: 'text'; readonly text: string }
  | { readonly carrier: 'attribute'; readonly key: string; readonly value: string }
  | { readonly carrier: 'argv'; readonly argv: readonly string[] };

/** A secret of the corpus: its template (`shape`), one instance, and where it sits (`{{secret}}` in its carrier). */
export type SecretEntry = Carrier & {
  readonly id: string;
  readonly provider: string;
  readonly shape: string | null;
  readonly secret: string;
};
/** A benign near-miss: nothing in it may be redacted as a secret. */
export type BenignEntry = Carrier & { readonly id: string; readonly category: string };

function readJsonl<T>(corpus: string, file: string): T[] {
  return readFileSync(join(FIXTURES, corpus, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

export function secretsOf(corpus: string): SecretEntry[] {
  return readJsonl<SecretEntry>(corpus, 'secrets.jsonl');
}

export function benignOf(corpus: string): BenignEntry[] {
  return readJsonl<BenignEntry>(corpus, 'benign.jsonl');
}

const ALPHABETS: Record<string, string> = {
  hex: '0123456789abcdef',
  HEX: '0123456789ABCDEF',
  alnum: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  lower: 'abcdefghijklmnopqrstuvwxyz',
  loweralnum: 'abcdefghijklmnopqrstuvwxyz0123456789',
  upper: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  upperalnum: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  digits: '0123456789',
  b64: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
  b64url: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-',
};
const PLACEHOLDER = /\{(hex|HEX|alnum|lower|loweralnum|upper|upperalnum|digits|b64|b64url):(\d+)\}/g;

/** The pieces of a shape: literal text and `[alphabet, length]` runs. */
function piecesOf(shape: string): (string | [string, number])[] {
  const pieces: (string | [string, number])[] = [];
  let last = 0;
  for (const m of shape.matchAll(PLACEHOLDER)) {
    if (m.index > last) pieces.push(shape.slice(last, m.index));
    pieces.push([ALPHABETS[m[1]!]!, Number(m[2])]);
    last = m.index + m[0].length;
  }
  if (last < shape.length) pieces.push(shape.slice(last));
  return pieces;
}

/** mulberry32: a small seeded generator, uniform over its 2^32 states. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The instance of `shape` that `seed` draws: each run of the shape uniform over its alphabet, as a real key is. */
export function instanceOf(shape: string, seed: number): string {
  const next = generator(seed);
  return piecesOf(shape)
    .map((piece) =>
      typeof piece === 'string'
        ? piece
        : Array.from({ length: piece[1] }, () => piece[0][Math.floor(next() * piece[0].length)]).join(''),
    )
    .join('');
}

/**
 * Fresh instances of a shape. Drawn from a seed rather than character by
 * character: fast-check biases and shrinks characters towards the first of
 * their alphabet (`AAAA…`), which no real key looks like; a shrunk seed still
 * draws a random key.
 */
export function shapeArbitrary(shape: string): fc.Arbitrary<string> {
  return fc.integer({ min: 0, max: 0xffffffff }).map((seed) => instanceOf(shape, seed));
}

/** `{{secret}}` in `template` replaced by `secret`. */
export function fill(template: string, secret: string): string {
  return template.split('{{secret}}').join(secret);
}

/** The carrier of `entry` with `secret` in place of `{{secret}}`. */
export function filled(entry: Carrier, secret: string): Carrier {
  if (entry.carrier === 'text') return { carrier: 'text', text: fill(entry.text, secret) };
  if (entry.carrier === 'attribute') return { carrier: 'attribute', key: entry.key, value: fill(entry.value, secret) };
  return { carrier: 'argv', argv: entry.argv.map((item) => fill(item, secret)) };
}

/**
 * A secret of every shaped entry of every corpus, fresh each draw, in its
 * carrier: what the no-secret properties plant besides the rule table's formats.
 */
export function blindSecretArbitrary(
  carrier: Carrier['carrier'],
): fc.Arbitrary<{ readonly carrier: Carrier; readonly secret: string }> {
  const entries = CORPORA.flatMap(secretsOf).filter((e) => e.carrier === carrier && e.shape !== null);
  return fc.oneof(
    ...entries.map((entry) =>
      shapeArbitrary(entry.shape!).map((secret) => ({ carrier: filled(entry, secret), secret })),
    ),
  );
}

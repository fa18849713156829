/**
 * The sanitizer's types: the options users give, the decision it makes per
 * attribute key, and what a configured sanitizer offers. Apart from
 * sanitizer.ts (which builds one) so that the attribute walk can take a
 * sanitizer without importing what builds it.
 */
import type { RedactionKind } from './rules.js';
import type { Scrubber } from './scrubber.js';
/** How much of a span may leave the process. */
export type SanitizationMode = 'standard' | 'strict' | 'off';

/** Sanitization options, as users give them. Every field is optional. */
export interface SanitizationOptions {
  /**
   * `standard` removes content keys of every supported convention and scrubs
   * every other string; `strict` keeps only operational keys (and `allowKeys`),
   * scrubbed; `off` exports everything as it is (logged once).
   * @default 'standard'
   */
  readonly mode?: SanitizationMode;
  /** Keys kept even when they carry content (standard) or are not operational (strict). Values are still scrubbed. @default [] */
  readonly allowKeys?: readonly string[];
  /** Regular expressions (source text) of keys kept like `allowKeys`. @default [] */
  readonly allowKeyPatterns?: readonly string[];
  /** Keys always removed. @default [] */
  readonly blockKeys?: readonly string[];
  /** Regular expressions (source text) of keys always removed. @default [] */
  readonly blockKeyPatterns?: readonly string[];
  /** Extra value patterns (regular expression source), each replaced by `[redacted:<kind>]`. @default [] */
  readonly valuePatterns?: readonly { readonly pattern: string; readonly kind?: string }[];
  /** Hash redacted values with this HMAC key instead of a bare marker (`[redacted:secret:<hmac>]`). @default unset */
  readonly hashKey?: string;
  /** Length past which free text is cut. @default 512 */
  readonly maxStringLength?: number;
  /** Length past which a stack trace (frames stripped of directories) is cut. @default 2048 */
  readonly maxStackTraceLength?: number;
}

/**
 * What happens to a key: removed (with the kind counted), kept as is, or kept
 * and scrubbed; `named` when the key weakly names a credential (`tls.key`),
 * so a value that looks random is replaced whole.
 */
export type KeyDecision =
  | { readonly action: 'remove'; readonly kind: RedactionKind }
  | { readonly action: 'keep' }
  | { readonly action: 'scrub'; readonly named?: boolean };

/** A configured sanitizer. */
export interface Sanitizer {
  readonly mode: SanitizationMode;
  /** The decision for an attribute key (memoized). */
  decide(key: string): KeyDecision;
  /** Scrubs free text (status messages, names, values). */
  readonly scrub: Scrubber['scrub'];
  /** Reduces and scrubs a stack trace. */
  readonly scrubStackTrace: Scrubber['scrubStackTrace'];
  /** Scrubs the whole value of a name (a flag's argument, a key's value). */
  readonly scrubNamed: Scrubber['scrubNamed'];
}

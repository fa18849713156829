/**
 * The built-in value rules: the shapes of secrets and personal data that are
 * scrubbed from every exported string, each with the kind its marker names.
 */

import { replaceJwts } from './jwt-scanner.js';

/** Kinds of redaction, used in markers (`[redacted:<kind>]`) and in the redaction metric. */
export const REDACTION_KINDS = [
  'content_key',
  'blocked_key',
  'not_allowed',
  'private_key',
  'credentials',
  'jwt',
  'secret',
  'email',
  'path',
  'truncated',
  'unsanitizable',
] as const;
/** One of {@link REDACTION_KINDS}, or a kind named by a user's value pattern. */
export type RedactionKind = (typeof REDACTION_KINDS)[number] | (string & {});

/** A value rule: a regular expression, or a scanner for a shape no linear regular expression finds. */
export type ValueRule = PatternRule | ScannerRule;

/** A value rule whose matches a regular expression finds. */
export interface PatternRule {
  readonly kind: RedactionKind;
  /** Cheap literal test; `pattern` runs only when it matches. Must not be global. */
  readonly trigger: RegExp;
  /** What is replaced; must be global, and linear in its input. */
  readonly pattern: RegExp;
  /** Index of a capture group kept in front of the marker (a URL scheme, `Bearer `, `api_key=`), if any. */
  readonly keepGroup?: number;
}

/** A value rule whose matches a scanner finds, in linear time. */
export interface ScannerRule {
  readonly kind: RedactionKind;
  /** Cheap literal test; `replace` runs only when it matches. Must not be global. */
  readonly trigger: RegExp;
  /** Replaces every match in `text` by `redact(match)`. */
  readonly replace: (text: string, redact: (match: string) => string) => string;
}

// Order matters: whole-credential shapes first, so a URL with a token is
// redacted as credentials before the generic `token=` rule sees it; later
// rules never match inside an earlier rule's marker. Every
// pattern is linear: character runs are anchored by a lookbehind or a literal,
// so a long identifier-like value cannot make a rule backtrack quadratically.
export const BUILT_IN_RULES: readonly ValueRule[] = [
  {
    kind: 'private_key',
    trigger: /-----BEGIN /,
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  },
  { kind: 'credentials', trigger: /:\/\//, pattern: /\b([a-z][a-z0-9+.-]{1,20}:\/\/)[^\s:@/]+:[^\s@/]+(?=@)/gi, keepGroup: 1 },
  // `\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`, found by a scanner: as a
  // regular expression it is quadratic on `eyJ-eyJ-…` (see jwt-scanner.ts).
  { kind: 'jwt', trigger: /eyJ/, replace: replaceJwts },
  { kind: 'secret', trigger: /bearer|basic|token/i, pattern: /\b((?:Bearer|Basic|Token)\s+)[A-Za-z0-9._~+/=-]{8,}/gi, keepGroup: 1 },
  { kind: 'secret', trigger: /sk-/, pattern: /\bsk-(?:proj-|ant-(?:api\d\d-)?|live-)?[A-Za-z0-9_-]{16,}/g },
  { kind: 'secret', trigger: /AKIA|ASIA/, pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g },
  { kind: 'secret', trigger: /gh[pousr]_|github_pat_/, pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g },
  { kind: 'secret', trigger: /glpat-/, pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { kind: 'secret', trigger: /xox[abposr]-/, pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: 'secret', trigger: /k_(?:live|test)_/, pattern: /\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { kind: 'secret', trigger: /AIza/, pattern: /\bAIza[0-9A-Za-z_-]{35,}/g },
  {
    kind: 'secret',
    trigger: /[?&;][A-Za-z_-]{1,20}=/,
    pattern: /([?&;](?:api[_-]?key|key|token|access[_-]?token|secret|sig|signature|password|auth)=)(?!\[redacted)[^&\s#"']+/gi,
    keepGroup: 1,
  },
  {
    kind: 'secret',
    trigger: /key|token|secret|passw|pwd/i,
    pattern:
      /\b(?<!redacted:)((?:aws_)?(?:api[_-]?key|secret(?:[_-]?access)?[_-]?key|access[_-]?token|auth[_-]?token|token|secret|password|passwd|pwd)["']?\s*[=:]\s*)(?!["']?\[redacted)["']?[^\s"',;&]{4,}["']?/gi,
    keepGroup: 1,
  },
  // An AWS secret access key: 40 characters of mixed-case base64 standing
  // alone. Mixed case keeps SHA-1 hex digests (git revisions) out.
  {
    kind: 'secret',
    trigger: /[A-Za-z0-9/+]{40}/,
    pattern: /(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g,
  },
  { kind: 'email', trigger: /@/, pattern: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g },
  { kind: 'path', trigger: /\/Users\/|\/home\//, pattern: /(?:\/Users\/|\/home\/)[^/\s"'`:]+/g },
  { kind: 'path', trigger: /:\\/, pattern: /\b[A-Za-z]:\\(?:Users|Documents and Settings)\\[^\\\s"'`]+/gi },
];

/**
 * Scrubs secrets and personal data out of a string, replacing each finding with
 * a fixed marker so cardinality stays low. Error codes (`UND_ERR_SOCKET`,
 * `ECONNRESET`, `http_503`) and ids are left alone.
 */

interface Rule {
  readonly pattern: RegExp;
  readonly replace: string;
}

// Order matters: whole-credential shapes first, so a URL with a token is
// redacted as credentials before the generic `token=` rule sees it.
const RULES: readonly Rule[] = [
  { pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, replace: '[redacted:private_key]' },
  { pattern: /\b([a-z][a-z0-9+.-]{1,20}:\/\/)[^\s:@/]+:[^\s@/]+@/gi, replace: '$1[redacted:credentials]@' },
  { pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, replace: '[redacted:jwt]' },
  { pattern: /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi, replace: '$1 [redacted:secret]' },
  { pattern: /\bsk-(?:proj-|ant-(?:api\d\d-)?|live-)?[A-Za-z0-9_-]{16,}/g, replace: '[redacted:secret]' },
  { pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, replace: '[redacted:secret]' },
  { pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g, replace: '[redacted:secret]' },
  { pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g, replace: '[redacted:secret]' },
  { pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, replace: '[redacted:secret]' },
  { pattern: /\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}/g, replace: '[redacted:secret]' },
  { pattern: /\bAIza[0-9A-Za-z_-]{35,}/g, replace: '[redacted:secret]' },
  {
    pattern: /([?&;](?:api[_-]?key|key|token|access[_-]?token|secret|sig|signature|password|auth)=)[^&\s#"']+/gi,
    replace: '$1[redacted:secret]',
  },
  {
    pattern: /\b((?:aws_)?(?:api[_-]?key|secret(?:[_-]?access)?[_-]?key|access[_-]?token|auth[_-]?token|token|secret|password|passwd|pwd)["']?\s*[=:]\s*)["']?[^\s"',;&]{4,}["']?/gi,
    replace: '$1[redacted:secret]',
  },
  { pattern: /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, replace: '[redacted:email]' },
  { pattern: /(?:\/Users\/|\/home\/)[^/\s"'`:]+/g, replace: '[redacted:path]' },
  { pattern: /\b[A-Za-z]:\\(?:Users|Documents and Settings)\\[^\\\s"'`]+/gi, replace: '[redacted:path]' },
];

// One pass that rejects the common case (no secret-like shape at all) cheaply.
const PREFILTER = new RegExp(RULES.map((r) => r.pattern.source).join('|'), 'i');

/** Default length past which free text is cut. */
export const DEFAULT_MAX_STRING_LENGTH = 512;

/**
 * Returns `value` with every secret, credential, e-mail address and home
 * directory replaced by a `[redacted:<kind>]` marker, cut to `maxLength`
 * characters. Returns the same string when nothing matched.
 */
export function scrubString(value: string, maxLength: number = DEFAULT_MAX_STRING_LENGTH): string {
  // Scan a bounded window: a 1 MB attribute must not cost a 1 MB regex pass per
  // rule. The window is far larger than what is kept, so a secret cut at its
  // edge can never shift into the kept part.
  const window = Math.max(maxLength * 8, 16_384);
  let out = value.length > window ? value.slice(0, window) : value;
  if (PREFILTER.test(out)) {
    for (const rule of RULES) out = out.replace(rule.pattern, rule.replace);
  }
  if (out.length > maxLength) out = `${out.slice(0, maxLength)}…[truncated]`;
  return out;
}

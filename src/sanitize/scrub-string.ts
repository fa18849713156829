/**
 * Scrubs secrets and personal data out of a string, replacing each finding with
 * a fixed marker so cardinality stays low. Error codes (`UND_ERR_SOCKET`,
 * `ECONNRESET`, `http_503`) and ids are left alone.
 */

interface Rule {
  /** Cheap literal test; the rule's pattern runs only when it matches. */
  readonly trigger: RegExp;
  readonly pattern: RegExp;
  readonly replace: string;
}

// Order matters: whole-credential shapes first, so a URL with a token is
// redacted as credentials before the generic `token=` rule sees it. Every
// pattern is linear: character runs are anchored by a lookbehind or a literal,
// so a long identifier-like value cannot make a rule backtrack quadratically.
const RULES: readonly Rule[] = [
  {
    trigger: /-----BEGIN /,
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
    replace: '[redacted:private_key]',
  },
  { trigger: /:\/\//, pattern: /\b([a-z][a-z0-9+.-]{1,20}:\/\/)[^\s:@/]+:[^\s@/]+@/gi, replace: '$1[redacted:credentials]@' },
  { trigger: /eyJ/, pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, replace: '[redacted:jwt]' },
  { trigger: /bearer|basic|token/i, pattern: /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi, replace: '$1 [redacted:secret]' },
  { trigger: /sk-/, pattern: /\bsk-(?:proj-|ant-(?:api\d\d-)?|live-)?[A-Za-z0-9_-]{16,}/g, replace: '[redacted:secret]' },
  { trigger: /AKIA|ASIA/, pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, replace: '[redacted:secret]' },
  { trigger: /gh[pousr]_|github_pat_/, pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g, replace: '[redacted:secret]' },
  { trigger: /glpat-/, pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g, replace: '[redacted:secret]' },
  { trigger: /xox[abposr]-/, pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, replace: '[redacted:secret]' },
  { trigger: /k_(?:live|test)_/, pattern: /\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}/g, replace: '[redacted:secret]' },
  { trigger: /AIza/, pattern: /\bAIza[0-9A-Za-z_-]{35,}/g, replace: '[redacted:secret]' },
  {
    trigger: /[?&;][A-Za-z_-]{1,20}=/,
    pattern: /([?&;](?:api[_-]?key|key|token|access[_-]?token|secret|sig|signature|password|auth)=)[^&\s#"']+/gi,
    replace: '$1[redacted:secret]',
  },
  {
    trigger: /key|token|secret|passw|pwd/i,
    pattern:
      /\b((?:aws_)?(?:api[_-]?key|secret(?:[_-]?access)?[_-]?key|access[_-]?token|auth[_-]?token|token|secret|password|passwd|pwd)["']?\s*[=:]\s*)["']?[^\s"',;&]{4,}["']?/gi,
    replace: '$1[redacted:secret]',
  },
  { trigger: /@/, pattern: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, replace: '[redacted:email]' },
  { trigger: /\/Users\/|\/home\//, pattern: /(?:\/Users\/|\/home\/)[^/\s"'`:]+/g, replace: '[redacted:path]' },
  { trigger: /:\\/, pattern: /\b[A-Za-z]:\\(?:Users|Documents and Settings)\\[^\\\s"'`]+/gi, replace: '[redacted:path]' },
];

// One linear pass over literals rejects the common case (no secret-like shape at all).
const ANY_TRIGGER = new RegExp(RULES.map((r) => r.trigger.source).join('|'), 'i');

/** Default length past which free text is cut. */
export const DEFAULT_MAX_STRING_LENGTH = 512;

// Short identifier-like strings (enum values, ids, model names) cannot hold any
// shape above: the shortest secret shapes need a space, `@`, `/`, `:` or `=`,
// or at least 15 characters with a dash (`xoxb-…`) or 20 without (`AKIA…`).
const TOO_SHORT_FOR_A_SECRET = /^(?:[A-Za-z0-9_.]{0,19}|[A-Za-z0-9_.-]{0,14})$/;

/**
 * Returns `value` with every secret, credential, e-mail address and home
 * directory replaced by a `[redacted:<kind>]` marker, cut to `maxLength`
 * characters. Returns the same string when nothing matched.
 */
export function scrubString(value: string, maxLength: number = DEFAULT_MAX_STRING_LENGTH): string {
  if (value.length < 20 && TOO_SHORT_FOR_A_SECRET.test(value)) return value;
  // Scan a bounded window: a 1 MB attribute must not cost a 1 MB regex pass per
  // rule. The window is far larger than what is kept, so a secret cut at its
  // edge can never shift into the kept part.
  const window = Math.max(maxLength * 8, 16_384);
  let out = value.length > window ? value.slice(0, window) : value;
  if (ANY_TRIGGER.test(out)) {
    for (const rule of RULES) {
      if (rule.trigger.test(out)) out = out.replace(rule.pattern, rule.replace);
    }
  }
  if (out.length > maxLength) out = `${out.slice(0, maxLength)}…[truncated]`;
  return out;
}

/**
 * A bounded memo of {@link scrubString} for low-cardinality strings such as
 * span and event names, which repeat on every span.
 */
export function createNameScrubber(maxLength: number, capacity = 1024): (value: string) => string {
  const memo = new Map<string, string>();
  return (value) => {
    const known = memo.get(value);
    if (known !== undefined) return known;
    const scrubbed = scrubString(value, maxLength);
    // Only short names are memoized; a full memo is reset rather than grown.
    if (value.length <= 256) {
      if (memo.size >= capacity) memo.clear();
      memo.set(value, scrubbed);
    }
    return scrubbed;
  };
}

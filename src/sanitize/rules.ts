/**
 * The built-in value rules: the shapes of secrets and personal data that are
 * scrubbed from every exported string, each with the kind its marker names.
 */

import { credentialName } from './credential-words.js';
import { replaceEncodedSecrets } from './encoded-secret.js';
import { replaceGenericSecrets } from './generic-secret.js';
import { isCall } from './named-value.js';
import { looksLikeKey } from './random-value.js';
import { replaceJwts } from './jwt-scanner.js';
import { isPlaceholder } from './placeholder.js';

/** A URL parameter named `key` alone or after a plain word (`?key=`, `&partition_key=`), not `api_key` or `access_key`. */
function isBareKeyParameter(kept: string): boolean {
  const name = kept.replace(/^[?&;]/, '').slice(0, -1);
  return /key$/i.test(name) && credentialName(name) !== 'strong';
}

/** A value is a placeholder once its quotes (JSON-escaped or not) are taken off. */
function isQuotedPlaceholder(value: string): boolean {
  return isPlaceholder(value.replace(/^\\?["']|\\?["']$/g, ''));
}

/** Kinds of redaction, used in markers (`[redacted:<kind>]`) and in the redaction metric. */
export const REDACTION_KINDS = [
  'content_key',
  'blocked_key',
  'not_allowed',
  'credential_key',
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
  /**
   * A match whose value (after the kept group) this accepts is left as it is:
   * a placeholder, a call, a value its name does not vouch for. Gets the
   * value, the kept group and up to 256 characters of text after the match.
   * @default none
   */
  readonly unless?: (value: string, kept: string, following: string) => boolean;
}

/** A value rule whose matches a scanner finds, in linear time. */
export interface ScannerRule {
  readonly kind: RedactionKind;
  /** Cheap literal test; `replace` runs only when it matches. Must not be global. */
  readonly trigger: RegExp;
  /**
   * Replaces every match in `text` by `redact(match)`; a scanner that finds
   * several kinds names the match's own. `options.identifier` says the text
   * is an identifier (scanners that find secrets by shape alone skip it).
   */
  readonly replace: (
    text: string,
    redact: (match: string, kind?: RedactionKind) => string,
    options?: { readonly identifier?: boolean },
  ) => string;
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
    // PEM keys and PGP private key blocks, to their end marker or the end of the text.
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    // A block whose body is elided (`...`, `<key>`) holds no key.
    unless: (block) => isPlaceholder(block.replace(/-----(?:BEGIN|END) [A-Z ]*-----/g, '').trim()),
  },
  // user:password@ in a URL; the user may be empty (`redis://:pass@host`) and the password may hold
  // `/`, though not `//`: that would let one URL's password run through every URL after it (quadratic).
  {
    kind: 'credentials',
    trigger: /:\/\//,
    pattern: /\b([a-z][a-z0-9+.-]{1,20}:\/\/)[^\s:@/?#]*:(?:[^\s@?#/]|\/(?!\/))+(?=@)/gi,
    keepGroup: 1,
    // `postgresql://%(user)s:%(password)s@…`, `://user:${PASSWORD}@…`: a template, no password.
    unless: (userPassword) => isPlaceholder(userPassword.slice(userPassword.indexOf(':') + 1)),
  },
  // A token as the URL's user part (`https://ghp_…@host`): a user name is not 16 token characters long.
  {
    kind: 'credentials',
    trigger: /:\/\//,
    pattern: /\b([a-z][a-z0-9+.-]{1,20}:\/\/)[A-Za-z0-9_.~+=-]{16,}(?=@)/gi,
    keepGroup: 1,
  },
  // DSNs that are not URLs: Oracle's `user/password@//host:1521/svc` (or `@host:port/…`, `@(DESCRIPTION=…)`),
  // Go's MySQL `user:password@tcp(host)`, and `user:password@host:port` with no scheme. The user is kept.
  // Runs are bounded and start where a word starts, so each start scans a bounded stretch.
  {
    kind: 'credentials',
    trigger: /@(?:\/\/|\(|[A-Za-z0-9.-]+:\d)/,
    pattern:
      /(?<![A-Za-z0-9_$#.:/@[-])([A-Za-z][A-Za-z0-9_$#.-]{0,63}\/)[^\s/@"']{1,128}(?=@(?:\/\/|\(|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*:\d{2,5}(?![A-Za-z0-9.])))/g,
    keepGroup: 1,
    unless: isQuotedPlaceholder,
  },
  {
    kind: 'credentials',
    trigger: /@(?:tcp6?|udp|unix)\(|@[A-Za-z0-9.-]+:\d/,
    pattern:
      /(?<![A-Za-z0-9_.:/@[-])([A-Za-z0-9_.-]{1,64}:)[^\s@/:"']{1,128}(?=@(?:(?:tcp6?|udp|unix)\(|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*:\d{2,5}(?![A-Za-z0-9.])))/g,
    keepGroup: 1,
    unless: isQuotedPlaceholder,
  },
  // `curl -u user:password`, `--user=user:password`: the password. A variable (`"$USER:$TOKEN"`) is no value.
  {
    kind: 'credentials',
    trigger: /(?:^|[\s"'])(?:-u|--user)[\s=]/,
    pattern: /(?<![A-Za-z0-9-])((?:-u|--user)(?:\s+|=)["']?[^\s:"'$]{1,64}:)(?!\$)[^\s"']+/g,
    keepGroup: 1,
  },
  // `\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`, found by a scanner: as a
  // regular expression it is quadratic on `eyJ-eyJ-…` (see jwt-scanner.ts).
  { kind: 'jwt', trigger: /eyJ/, replace: replaceJwts },
  // The private members of a JSON Web Key (`"d"`, the RSA primes and CRT values, a symmetric `"k"`).
  {
    kind: 'private_key',
    trigger: /kty/,
    pattern: /((?:\\?["'])(?:d|p|q|dp|dq|qi|k)(?:\\?["'])\s*:\s*(?:\\?["']))[A-Za-z0-9_-]{16,}/g,
    keepGroup: 1,
  },
  {
    kind: 'secret',
    trigger: /bearer|basic|token|api-?key|bot |digest|aws4-hmac/i,
    // An Authorization scheme and its credentials. Credentials that are one word of prose, all
    // lower case or capitalized ("Bearer authentication", "Bot Framework"), are not taken for one:
    // a random token of 8 or more characters looks like that about once in a million.
    pattern:
      /\b((?:[Bb]earer|BEARER|[Bb]asic|BASIC|[Tt]oken|TOKEN|[Aa]pi-?[Kk]ey|API-?KEY|[Bb]ot|BOT|Digest|DIGEST|AWS4-HMAC-SHA256)[ \t]+)(?![A-Z]?[a-z]+(?![A-Za-z0-9._~+/=-]))(?![a-z][a-z_]{2,}=[^=\s])[A-Za-z0-9._~+/=-]{8,}/g,
    keepGroup: 1,
  },
  // OpenAI (project, service account, admin, legacy) and Anthropic keys, DeepSeek-style `sk-<hex>`;
  // not `sk-learn-…` package names (a dash within the first 20 characters of an unprefixed key).
  {
    kind: 'secret',
    trigger: /sk-/,
    pattern:
      /\bsk-(?:(?:proj|svcacct|admin|live|ant-(?:api|admin)\d\d)-[A-Za-z0-9_-]{16,}|[A-Za-z0-9]{20,}[A-Za-z0-9_-]*)/g,
  },
  { kind: 'secret', trigger: /AKIA|ASIA/, pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g },
  // Alibaba Cloud access key ids: `LTAI` and 20 letters or digits.
  { kind: 'secret', trigger: /LTAI/, pattern: /\bLTAI[A-Za-z0-9]{20}\b/g },
  {
    kind: 'secret',
    trigger: /gh[pousr]_|github_pat_/,
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g,
  },
  // GitLab tokens: personal, pipeline trigger, deploy, runner, OAuth, feed, agent and the other `gl…-` kinds.
  {
    kind: 'secret',
    trigger: /gl[a-z]{1,5}-/,
    pattern: /\bgl(?:pat|ptt|dt|rt|oas|imt|agent|cbt|soat|ft|ffct)-[A-Za-z0-9_-]{20,}/g,
  },
  { kind: 'secret', trigger: /xox[abposre]-|xapp-/, pattern: /\b(?:xox[abposre]|xapp)-[A-Za-z0-9-]{10,}/g },
  // Slack incoming webhooks and workflow triggers: the URL is the credential.
  {
    kind: 'secret',
    trigger: /hooks\.slack\.com/,
    pattern: /\bhooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]{8,}/g,
  },
  { kind: 'secret', trigger: /k_(?:live|test)_/, pattern: /\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { kind: 'secret', trigger: /AIza/, pattern: /\bAIza[0-9A-Za-z_-]{35,}/g },
  // Google OAuth access tokens.
  { kind: 'secret', trigger: /ya29\./, pattern: /\bya29\.[0-9A-Za-z_-]{20,}/g },
  // Hugging Face user and organization tokens.
  { kind: 'secret', trigger: /hf_|api_org_/, pattern: /\b(?:hf|api_org)_[A-Za-z]{30,}/g },
  // Groq, xAI, npm, PyPI.
  { kind: 'secret', trigger: /gsk_/, pattern: /\bgsk_[A-Za-z0-9]{40,}/g },
  { kind: 'secret', trigger: /xai-/, pattern: /\bxai-[A-Za-z0-9]{60,}/g },
  { kind: 'secret', trigger: /npm_/i, pattern: /\bnpm_[A-Za-z0-9]{36}\b/gi },
  { kind: 'secret', trigger: /pypi-/, pattern: /\bpypi-AgE[A-Za-z0-9_-]{50,}/g },
  // SendGrid (`SG.<22>.<43>`), Twilio API keys (`SK<32 hex>`), Telegram bot tokens (`<bot id>:<35>`, also after `bot` in an API URL).
  // Their parts may end in `-` or `_`: the end is where the run of such characters ends, not `\b`.
  { kind: 'secret', trigger: /SG\./, pattern: /\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,50}(?![A-Za-z0-9_-])/g },
  { kind: 'secret', trigger: /SK[0-9a-fA-F]{32}/, pattern: /\bSK[0-9a-fA-F]{32}\b/g },
  // Mailchimp API keys: 32 hexadecimal digits and the data centre (`-us21`).
  { kind: 'secret', trigger: /-us\d/, pattern: /\b[0-9a-f]{32}-us\d{1,2}\b/g },
  { kind: 'secret', trigger: /\d:AA/, pattern: /(?:\b|(?<=bot))\d{6,12}:AA[A-Za-z0-9_-]{31,40}(?![A-Za-z0-9_-])/g },
  {
    kind: 'secret',
    trigger: /(?:^|[?&;])[A-Za-z0-9_.-]{1,40}=/,
    // A query parameter whose name ends in a credential word (`api_key`, `X-Amz-Signature`, `sig`), also
    // first in a query string recorded without its `?` (`url.query`).
    pattern:
      /((?:^|[?&;])(?:[A-Za-z0-9_.-]{0,40}[_.-])?(?:api[_-]?key|apikey|key|token|access[_-]?token|secret|sig|signature|password|passwd|pwd|auth|credential|security[_-]token|session)=)(?!\[redacted)[^&\s#"'(]+/gi,
    keepGroup: 1,
    // A bare `key` (`?key=agent.tool-calls.v1`, a Kafka key) vouches for nothing: its value must look like a key.
    unless: (value, kept, following) =>
      isQuotedPlaceholder(value) || isCall(value, following) || (isBareKeyParameter(kept) && !looksLikeKey(value)),
  },
  // OAuth authorization codes and Azure Functions keys (`?code=…`): 16 characters or more, so `code=200` stays.
  { kind: 'secret', trigger: /code=/, pattern: /((?:^|[?&;])code=)(?=[^&\s#"']{16})[^&\s#"']+/g, keepGroup: 1 },
  {
    kind: 'secret',
    trigger: /key|token|secret|passw|pwd/i,
    // `name = value` / `name: value` / `"name": "value"` (also JSON-escaped), where the name is or ends
    // in a credential word (`DB_PASSWORD=`, `client_secret=`, `:_authToken=`). Placeholders
    // (`required`, `None`, `${VAR}`, `<token>`, `***`) are not values.
    pattern:
      /(?<![A-Za-z0-9:])(?<!redacted:)((?:aws_)?(?:api[_-]?key|apikey|secret(?:[_-]?access)?[_-]?key|private[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token|session[_-]?token|id[_-]?token|client[_-]?secret|token|secret|password|passwd|pwd)(?:\\?["'])?[ \t]*(?:=|:(?!:))[ \t]*)(?!(?:\\?["'])?\[redacted)(?!(?:\\?["'])?(?:required|optional|none|null|nil|undefined|true|false|string|str|int|number|boolean|bool|await|new|this|process\.env|os\.environ|\*+|x{3,}|<[^>\s]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?)(?![A-Za-z0-9]))(?!\()(?:\\?["'])?[^\s"',;&\\(]{4,}(?:\\?["'])?/gi,
    keepGroup: 1,
    unless: (value, _kept, following) => isQuotedPlaceholder(value) || isCall(value, following),
  },
  // A command-line flag and its value: `--password x`, `--api-key=…`, `--token …`.
  {
    kind: 'secret',
    // A literal test: `--?[A-Za-z-]*(?:…)` here was quadratic on a run of dashes.
    trigger: /-(?:[A-Za-z]+-)?(?:password|passwd|pwd|token|secret|api-?key|access-key|secret-key)/i,
    pattern:
      /(?<![A-Za-z0-9-])(--?(?:[A-Za-z0-9]+-)*(?:password|passwd|pwd|token|secret|api-?key|access-key|secret-key)(?:[ \t]+|=))(?!-)(?!\[redacted)[^\s"']+/gi,
    keepGroup: 1,
    unless: isQuotedPlaceholder,
  },
  // An AWS secret access key: 40 characters of mixed-case base64 standing
  // alone. Mixed case keeps SHA-1 hex digests (git revisions) out.
  {
    kind: 'secret',
    trigger: /[A-Za-z0-9/+]{40}/,
    pattern:
      /(?<![A-Za-z0-9/+=_-])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=_-])/g,
  },
  // Base64 that decodes to a private key, a JSON credential or `user:password` (encoded-secret.ts).
  { kind: 'secret', trigger: /[A-Za-z0-9+/_-]{8}/, replace: replaceEncodedSecrets },
  // The catch-all: secrets by their name, prefix or shape, whatever the provider (generic-secret.ts).
  {
    kind: 'secret',
    trigger: /[A-Za-z0-9+/_.~-]{16}|pass|pwd|secret|token|key|auth|cred|sig|pat\b/i,
    replace: replaceGenericSecrets,
  },
  // An e-mail address, also percent-encoded (`alice%40example.com` in a `baggage` header); not an SSH remote's `git@host`.
  {
    kind: 'email',
    trigger: /@|%40/,
    pattern: /(?<![A-Za-z0-9._%+-])(?!git@)[A-Za-z0-9._%+-]+(?:@|%40)[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g,
  },
  // A home directory's user segment, at the start of a path (not `/home/feed` inside a URL's path);
  // not the shared or public profile directories.
  {
    kind: 'path',
    trigger: /\/Users\/|\/home\//,
    pattern: /(?<![A-Za-z0-9._~%-])(?:\/Users\/(?!Shared\b)|\/home\/)[^/\s"'`:]+/g,
  },
  {
    kind: 'path',
    trigger: /:\\/,
    pattern:
      /\b[A-Za-z]:\\(?:Users|Documents and Settings)\\(?!(?:Public|Default|Default User|All Users)(?:\\|$|[\s"'`]))[^\\\s"'`]+/gi,
  },
];

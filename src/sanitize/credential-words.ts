/**
 * Whether a name (an attribute key, a header, a flag, a variable, a JSON
 * member) names a credential, in any case style: `DB_PASSWORD`, `dbPassword`,
 * `db-password`, `db.password`, `dbpassword`, `AccountKey`, `x-functions-key`,
 * `--client-secret`, `_authToken`. The principle (docs/sanitization.md,
 * "The catch-all"): a name whose last word is a credential word names a
 * credential; a bare `key` only says so weakly, because most keys (cache,
 * partition, routing, message keys) are not secrets. Pure, linear in the name.
 */
import { lastWords, packed } from './name-words.js';

/**
 * How strongly a name says its value is a credential: `none` (`token_count`,
 * `passwordFile`, `cache_key`); `weak`, a bare `key` or `signature`, under
 * which a value of secret shape is a secret; `strong`, a credential word
 * (`password`, `secret`, `token`, `api_key`, `AccountKey`), under which any
 * value that is not a placeholder is a secret.
 */
export type CredentialName = 'none' | 'weak' | 'strong';

/** Bundler's credentials for a gem host (`BUNDLE_ENTERPRISE__CONTRIBSYS__COM=user:password`): `__` stands for the host's dots. */
const BUNDLER_HOST = /^BUNDLE_[A-Z0-9_]*[A-Z0-9]__[A-Z0-9][A-Z0-9_]*$/;

/** Words that name a credential when they end a name. */
// prettier-ignore
const STRONG_WORDS: ReadonlySet<string> = new Set([
  'password', 'passwd', 'passphrase', 'pwd', 'pass', 'secret', 'token', 'apikey', 'credential', 'credentials',
  'auth', 'authorization', 'pat', 'privatekey', 'accesskey', 'secretkey',
]);

/** Ends of single-case names glued from words (`dbpassword`, `APIKEY`, `clientsecret`): any word then one of these. */
// prettier-ignore
const GLUED_ENDS: readonly string[] = [
  'password', 'passwd', 'passphrase', 'secret', 'apikey', 'credentials', 'credential', 'pwd',
];
/**
 * Words glued before `token` in one-case names (`authtoken`, `BOTTOKEN`):
 * `token` ends ordinary words too (`tiktoken`), so only these count.
 */
// prettier-ignore
const GLUED_TOKEN_HEADS: readonly string[] = [
  'auth', 'access', 'api', 'bot', 'bearer', 'refresh', 'session', 'id', 'client', 'app', 'user', 'admin', 'service',
  'oauth', 'personal', 'webhook', 'deploy', 'csrf', 'xsrf', 'secret', 'private', 'github', 'gitlab', 'slack',
  'discord', 'telegram', 'npm', 'pypi', 'hf', 'gh',
];

/** Words before `key` that make it a credential (`api_key`, `AccountKey`, `x-functions-key`, `ocp-apim-subscription-key`). */
// prettier-ignore
const SECRET_KEY_KINDS: ReadonlySet<string> = new Set([
  'api', 'access', 'secret', 'private', 'account', 'shared', 'master', 'subscription', 'function', 'functions',
  'signing', 'encryption', 'client', 'consumer', 'app', 'admin', 'service', 'auth', 'license', 'storage', 'host',
  'webhook', 'ingest', 'ingestion', 'write', 'server', 'deploy', 'management', 'sdk', 'developer', 'merchant',
  'partner', 'integration', 'connection', 'relay', 'root',
]);

/** Glued single-case names that end in a secret key (`accountkey`, `SHAREDACCESSKEY`). */
const GLUED_KEY_ENDS: readonly string[] = [...SECRET_KEY_KINDS]
  .filter((w) => w.length > 3)
  .map((w) => `${w}key`)
  .concat(['apikey']);

/** Words before `key` that say it is not a secret (`cache_key`, `publicKey`, `messaging.kafka.message.key`). */
// prettier-ignore
const PLAIN_KEY_KINDS: ReadonlySet<string> = new Set([
  'public', 'cache', 'idempotency', 'partition', 'sort', 'primary', 'foreign', 'routing', 'object', 'dedup',
  'dedupe', 'deduplication', 'lookup', 'hash', 'row', 'map', 'group', 'unique', 'composite', 'shard', 'range',
  'message', 'translation', 'i18n', 'hot', 'sequence', 'cluster', 'join', 'index', 'bucket', 's3', 'file', 'ssh',
  'kid', 'react', 'dict', 'registry', 'state', 'lock',
]);

/** Words before a credential word that say the value is something else (`next_page_token`, `max_token`). */
// prettier-ignore
const NOT_A_CREDENTIAL: ReadonlySet<string> = new Set([
  'next', 'page', 'pagination', 'continuation', 'cursor', 'sync', 'resume', 'max', 'min', 'total', 'input', 'output',
  'prompt', 'completion', 'reasoning', 'cached', 'public', 'has', 'is', 'use', 'uses', 'require', 'requires', 'no',
  'bypass',
  // A reference to a secret by name (`auth.existingSecret=agent-creds` in a Helm chart).
  'existing', 'ref', 'forgot',
]);

/** Last three letters (lower case) of every credential word and glued end: a name ending otherwise names none. */
const ENDINGS: ReadonlySet<number> = new Set(
  ['ord', 'swd', 'ase', 'pwd', 'ass', 'ret', 'ken', 'key', 'ial', 'als', 'uth', 'ion', 'pat', 'ure', 'sig'].map((e) =>
    packed(e, 0),
  ),
);

/**
 * True when the letters that end `text[start, end)` (past trailing digits and
 * separators) could end a credential word. Reads three characters and
 * allocates nothing: the catch-all asks this of every word of every string.
 */
export function mayNameCredential(text: string, start: number, end: number): boolean {
  if (text.startsWith('BUNDLE_', start)) return true;
  let at = end;
  while (at > start) {
    const c = text.charCodeAt(at - 1);
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) break;
    at -= 1;
  }
  if (at - start < 3) return false;
  return ENDINGS.has(packed(text, at - 3));
}

/**
 * How strongly `name` says its value is a credential. Names longer than 128
 * characters are not names a person wrote: `none`.
 * @param name - a key, header, flag or variable name, with any leading dashes
 */
export function credentialName(name: string): CredentialName {
  if (name.length === 0 || name.length > 128) return 'none';
  if (BUNDLER_HOST.test(name)) return 'strong';
  const { last, before, glued } = lastWords(name);
  if (last.length < 3) return 'none';
  if (STRONG_WORDS.has(last)) return NOT_A_CREDENTIAL.has(before) ? 'none' : 'strong';
  if (last === 'key') {
    if (SECRET_KEY_KINDS.has(before)) return 'strong';
    return PLAIN_KEY_KINDS.has(before) ? 'none' : 'weak';
  }
  if (last === 'signature' || last === 'sig') return 'weak';
  if (glued && last.length > 4) {
    for (const end of GLUED_ENDS) if (last.endsWith(end)) return 'strong';
    if (last.endsWith('token') && GLUED_TOKEN_HEADS.includes(last.slice(0, -5))) return 'strong';
    for (const end of GLUED_KEY_ENDS) if (last.endsWith(end)) return 'strong';
  }
  return 'none';
}

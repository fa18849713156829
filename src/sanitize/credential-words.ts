/**
 * Whether a name (an attribute key, a header, a flag, a variable, a JSON
 * member) names a credential, in any case style: `DB_PASSWORD`, `dbPassword`,
 * `db-password`, `db.password`, `dbpassword`, `AccountKey`, `x-functions-key`,
 * `--client-secret`, `_authToken`. The principle (docs/sanitization.md,
 * "The catch-all"): a name whose last word is a credential word names a
 * credential; a bare `key` only says so weakly, because most keys (cache,
 * partition, routing, message keys) are not secrets. Pure, linear in the name.
 */

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
const STRONG_WORDS: ReadonlySet<string> = new Set([
  'password',
  'passwd',
  'passphrase',
  'pwd',
  'pass',
  'secret',
  'token',
  'apikey',
  'credential',
  'credentials',
  'auth',
  'authorization',
  'pat',
  'privatekey',
  'accesskey',
  'secretkey',
]);

/** Ends of single-case names glued from words (`dbpassword`, `APIKEY`, `clientsecret`): any word then one of these. */
const GLUED_ENDS: readonly string[] = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'apikey',
  'credentials',
  'credential',
  'pwd',
];
/**
 * Words glued before `token` in one-case names (`authtoken`, `BOTTOKEN`):
 * `token` ends ordinary words too (`tiktoken`), so only these count.
 */
const GLUED_TOKEN_HEADS: readonly string[] = [
  'auth',
  'access',
  'api',
  'bot',
  'bearer',
  'refresh',
  'session',
  'id',
  'client',
  'app',
  'user',
  'admin',
  'service',
  'oauth',
  'personal',
  'webhook',
  'deploy',
  'csrf',
  'xsrf',
  'secret',
  'private',
  'github',
  'gitlab',
  'slack',
  'discord',
  'telegram',
  'npm',
  'pypi',
  'hf',
  'gh',
];

/** Words before `key` that make it a credential (`api_key`, `AccountKey`, `x-functions-key`, `ocp-apim-subscription-key`). */
const SECRET_KEY_KINDS: ReadonlySet<string> = new Set([
  'api',
  'access',
  'secret',
  'private',
  'account',
  'shared',
  'master',
  'subscription',
  'function',
  'functions',
  'signing',
  'encryption',
  'client',
  'consumer',
  'app',
  'admin',
  'service',
  'auth',
  'license',
  'storage',
  'host',
  'webhook',
  'ingest',
  'ingestion',
  'write',
  'server',
  'deploy',
  'management',
  'sdk',
  'developer',
  'merchant',
  'partner',
  'integration',
  'connection',
  'relay',
  'root',
]);

/** Glued single-case names that end in a secret key (`accountkey`, `SHAREDACCESSKEY`). */
const GLUED_KEY_ENDS: readonly string[] = [...SECRET_KEY_KINDS]
  .filter((w) => w.length > 3)
  .map((w) => `${w}key`)
  .concat(['apikey']);

/** Words before `key` that say it is not a secret (`cache_key`, `publicKey`, `messaging.kafka.message.key`). */
const PLAIN_KEY_KINDS: ReadonlySet<string> = new Set([
  'public',
  'cache',
  'idempotency',
  'partition',
  'sort',
  'primary',
  'foreign',
  'routing',
  'object',
  'dedup',
  'dedupe',
  'deduplication',
  'lookup',
  'hash',
  'row',
  'map',
  'group',
  'unique',
  'composite',
  'shard',
  'range',
  'message',
  'translation',
  'i18n',
  'hot',
  'sequence',
  'cluster',
  'join',
  'index',
  'bucket',
  's3',
  'file',
  'ssh',
  'kid',
  'react',
  'dict',
  'registry',
  'state',
  'lock',
]);

/** Words before a credential word that say the value is something else (`next_page_token`, `max_token`). */
const NOT_A_CREDENTIAL: ReadonlySet<string> = new Set([
  'next',
  'page',
  'pagination',
  'continuation',
  'cursor',
  'sync',
  'resume',
  'max',
  'min',
  'total',
  'input',
  'output',
  'prompt',
  'completion',
  'reasoning',
  'cached',
  'public',
  'has',
  'is',
  'use',
  'uses',
  'require',
  'requires',
  'no',
  'bypass',
  // A reference to a secret by name (`auth.existingSecret=agent-creds` in a Helm chart).
  'existing',
  'ref',
  'forgot',
]);

function isLower(c: number): boolean {
  return c >= 97 && c <= 122;
}
function isUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * The last two words of `name`, lower-cased, split at separators and at case
 * humps (`dbPassword` → `db`, `password`; `APIKey` → `api`, `key`); trailing
 * digits dropped (`password2`). Also whether the last word was written in one
 * case with no hump, where it may be glued from several (`dbpassword`).
 */
function lastWords(name: string): { last: string; before: string; glued: boolean } {
  let end = name.length;
  // Trailing digits and separators are not words (`password2`, `token_`).
  while (end > 0 && !isLower(name.charCodeAt(end - 1)) && !isUpper(name.charCodeAt(end - 1))) end -= 1;
  const words: string[] = [];
  let glued = true;
  let cut = end;
  for (let i = end - 1; i >= 0 && words.length < 2; i -= 1) {
    const c = name.charCodeAt(i);
    const letter = isLower(c) || isUpper(c);
    if (!letter && !isDigit(c)) {
      if (cut > i + 1) words.push(name.slice(i + 1, cut));
      cut = i;
      continue;
    }
    if (!letter) continue;
    const prev = i > 0 ? name.charCodeAt(i - 1) : 0;
    // A hump: `bP` in `dbPassword` (lower then upper), or `IK` in `APIKey` (upper, upper, then lower).
    const hump =
      isUpper(c) &&
      (isLower(prev) || isDigit(prev) || (isUpper(prev) && i + 1 < end && isLower(name.charCodeAt(i + 1))));
    if (hump) {
      if (words.length === 0) glued = false;
      words.push(name.slice(i, cut));
      cut = i;
    }
  }
  if (words.length < 2 && cut > 0) {
    let start = cut;
    while (
      start > 0 &&
      (isLower(name.charCodeAt(start - 1)) ||
        isUpper(name.charCodeAt(start - 1)) ||
        isDigit(name.charCodeAt(start - 1)))
    )
      start -= 1;
    if (start < cut) words.push(name.slice(start, cut));
  }
  const last = (words[0] ?? '').toLowerCase();
  const before = (words[1] ?? '').toLowerCase().replace(/\d+$/, '');
  return { last, before, glued };
}

/** Last three letters (lower case) of every credential word and glued end: a name ending otherwise names none. */
const ENDINGS: ReadonlySet<number> = new Set(
  ['ord', 'swd', 'ase', 'pwd', 'ass', 'ret', 'ken', 'key', 'ial', 'als', 'uth', 'ion', 'pat', 'ure', 'sig'].map((e) =>
    packed(e, 0),
  ),
);

/** Three letters at `at` as one number, lower-cased (ASCII letters only: `| 32`). */
function packed(text: string, at: number): number {
  return ((text.charCodeAt(at) | 32) << 16) | ((text.charCodeAt(at + 1) | 32) << 8) | (text.charCodeAt(at + 2) | 32);
}

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

/** The last word of a name that says its value is an identifier, a version or a digest (`gen_ai.response.id`, `x-amz-id-2`, `etag`). */
const IDENTIFIER_WORD =
  /(?:^|[._-])(?:id|ids|uid|uuid|guid|etag|digest|hash|checksum|fingerprint|sha|cursor|version|revision|rev|commit)(?:[-_]?\d+)?$/;
/** The same word as a camel-case hump: `requestId`, `contentHash`, `nextCursor`. */
const IDENTIFIER_HUMP =
  /[a-z0-9](?:Id|Ids|ID|Uid|Uuid|Guid|ETag|Etag|Digest|Hash|Checksum|Fingerprint|Sha|Cursor|Version|Revision|Rev|Commit)(?:[-_]?\d+)?$/;

/**
 * True when `name` says its value is an identifier, a version or a digest:
 * such a value is random by design, so it is not taken for a secret by its
 * shape alone (docs/sanitization.md, "The catch-all").
 */
export function isIdentifierName(name: string): boolean {
  return IDENTIFIER_WORD.test(name.toLowerCase()) || IDENTIFIER_HUMP.test(name);
}

/** Last three letters of the words that end a public name (`key`, `keys`, `cert`, `certs`, `certificate(s)`, `pubkey`, `pem`, `chain`, `bundle`). */
const PUBLIC_ENDINGS: ReadonlySet<number> = new Set(
  ['key', 'eys', 'ert', 'rts', 'ate', 'tes', 'pem', 'ain', 'dle'].map((e) => packed(e, 0)),
);

/** Cheap test before {@link isPublicName}: reads three characters, allocates nothing. */
export function mayNamePublic(text: string, start: number, end: number): boolean {
  return end - start >= 3 && PUBLIC_ENDINGS.has(packed(text, end - 3));
}

/** Last words that name a public value: a certificate, a public key. */
const PUBLIC_WORDS: ReadonlySet<string> = new Set([
  'certificate',
  'certificates',
  'cert',
  'certs',
  'pubkey',
  'publickey',
  'pem',
]);
/** Words before `key` that make it public: a public key, a verification key, an SSH host key. */
const PUBLIC_KEY_KINDS: ReadonlySet<string> = new Set(['public', 'pub', 'verification', 'verifying', 'host']);

/**
 * True when `name` says its value is public by design: a certificate or a
 * public key (`tls.server.certificate_chain`, `PublicKey`, `RSA_PUBLIC_KEY`,
 * `ssh.host_key`). Random-looking base64 under it is not a secret by shape
 * (docs/sanitization.md, "The catch-all").
 */
export function isPublicName(name: string): boolean {
  if (name.length === 0 || name.length > 128) return false;
  const { last, before } = lastWords(name);
  if (PUBLIC_WORDS.has(last)) return true;
  if (last === 'chain' || last === 'bundle') return PUBLIC_WORDS.has(before);
  return (last === 'key' || last === 'keys') && PUBLIC_KEY_KINDS.has(before);
}

/** Subcommands that log in: `snyk auth <token>`, `wandb login --relogin <key>`. */
const LOGIN_VERB = /^(?:login|auth|authenticate)$/;
/** A subcommand in lower-case words (`add-authtoken`, `set-token`, `authtoken`). */
const SUBCOMMAND = /^[a-z]+(?:-[a-z]+)*$/;

/** True when `word` is a subcommand that logs in (`login`, `auth`, `authenticate`), in text or argv. */
export function isLoginVerb(word: string): boolean {
  return LOGIN_VERB.test(word);
}

/**
 * True when `word` (an argv item) is a login subcommand: one that logs in
 * (`login`, `auth`), or one whose last word is a credential word
 * (`ngrok config add-authtoken <token>`, `set-token`). The positional
 * argument after it is a credential when it looks random.
 */
export function isLoginCommand(word: string): boolean {
  return LOGIN_VERB.test(word) || (word.length <= 24 && SUBCOMMAND.test(word) && credentialName(word) === 'strong');
}

/** Cheap test before {@link isLoginVerb} on a run of text: its length and first letter are one of the verbs'. */
export function mayBeLoginVerb(text: string, start: number, end: number): boolean {
  const length = end - start;
  return (
    (length === 4 || length === 5 || length === 12) && (text.charCodeAt(start) === 108 || text.charCodeAt(start) === 97)
  );
}

/** Flags whose value is `user:password` (curl, wget, httpie). */
const USER_FLAG = /^(?:-u|--user|--http-user|--proxy-user|-U)$/;

/** True when `flag` takes `user:password` (`curl -u`, `--user`): the part after the colon is a credential. */
export function isUserFlag(flag: string): boolean {
  return USER_FLAG.test(flag);
}

/** Flags that give a user name (or an LDAP bind DN) for a login. */
const USER_NAME_FLAG = /^(?:-u|-U|-D|--user|--username|--user-name|--login|--bind-dn)$/;

/** True when `flag` gives the user of a login (`-u`, `--username`, `ldapsearch -D`): a password flag may follow it. */
export function isUserNameFlag(flag: string): boolean {
  return USER_NAME_FLAG.test(flag);
}

/**
 * One-letter flags that take a password where a user flag came before them
 * in the same command: `mysql -u app -p…`, `docker login -u … -p …`,
 * `ldapsearch -D … -w …`, `redis-cli --user … -a …`. Alone they are ports,
 * widths and archives, so the user flag is what makes them passwords.
 */
const PASSWORD_LETTER_FLAG = /^-[pPwa]$/;

/** True when `flag` takes a password once a user flag was given (see {@link isUserNameFlag}). */
export function isPasswordLetterFlag(flag: string): boolean {
  return PASSWORD_LETTER_FLAG.test(flag);
}

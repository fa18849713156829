/**
 * Values that stand where a secret would, without being one: type names,
 * `None`, masks, template and environment references (`${OPENAI_API_KEY}`,
 * `{{ secrets.TOKEN }}`, `process.env.X`), references to code
 * (`config.apiKey`). A credential name followed by one of these is a schema,
 * a template or code, and nothing is redacted.
 */
import { credentialName } from './credential-words.js';

const WORDS =
  /^(?:required|optional|none|null|nil|undefined|true|false|string|str|int|integer|number|boolean|bool|bytes|any|object|await|new|this|self|redacted|hidden|masked|unset|empty|n\/a|secretstr|secretbytes|sensitive)$/i;
/** The name of an environment variable (`OPENAI_API_KEY is set`, `KEY=` then the next line's `OTHER_KEY=`): a name, not a value. */
const VARIABLE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;
/** Where a secret is kept: a secret store's reference (`op://vault/item/field`, `vault:secret/data/x#key`, an ARN, `sm://…`). */
// A scheme in lower case then `:` (`op://…`, `vault:secret/…`, `arn:aws:…`), or a store's path (`secret/data/…`, GCP's
// `projects/<p>/secrets/…`). Case matters and a bare `/` does not do: base64 starts with `ssM/…` by chance.
const STORE_REFERENCE =
  /^(?:(?:op|vault|arn|sm|ssm|secretsmanager|awssm|gcpsm|azurekv|keyvault|akv|doppler|infisical|bws|k8s|secret):|secret\/|projects\/[^/]+\/secrets\/)/;
/** A digest labelled by its algorithm (`hmac-sha256:4289…`, `sha256:…`): a hash of a secret is not the secret. */
const LABELLED_DIGEST = /^(?:hmac-)?(?:sha\d+|sha3-\d+|md5|blake2[bs]?)[:=-][0-9a-fA-F+/=]{16,}$/;
const SHAPES =
  /^(?:\*+|x{3,}|X{3,}|\.{3,}|…|<[^<>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$\([^()]*\)|\{\{[^{}]*\}\}|%\([A-Za-z_]+\)s|%s|\[redacted[^\]]*\]|(?:process\.env|os\.environ|env)\b.*)$/;
/** `config.apiKey`, `settings.OPENAI_API_KEY`, `self._token`: a path of identifier words (no digits), not a literal. */
const REFERENCE = /^[A-Za-z_$][A-Za-z_$]*(?:\.[A-Za-z_$][A-Za-z_$]*)+$/;
/** Words that tell a reader to put a secret there: `REPLACE_ME`, `your-api-key-here`, `(set)`, a YAML tag (`!vault`). */
const INSTRUCTION =
  /^(?:replace[-_ ]?(?:me|this)|todo|tbd|fixme|change[-_ ]?this|your[-_ ][A-Za-z0-9_ -]*|[A-Za-z0-9_-]*[-_ ]here|\([A-Za-z ]+\)|![A-Za-z][A-Za-z0-9_-]*)$/i;
/** A file a secret is read from (`/run/secrets/db`, `./key.pem`, `~/.npmrc`): segments of name characters, none random. */
// One flat character class: a nested `(?:[…]+\/?)*` backtracks exponentially on a long run that fails at its end.
const PATH = /^(?:\/|\.{1,2}\/|~\/)[A-Za-z0-9_./-]*$/;
const RANDOM_SEGMENT = /[A-Za-z0-9]{20,}/;
/** A mask: `***`, `...` or `…` standing for the hidden part (`sk-proj-****Xy9Q`, `sk-...zSnD`). */
const MASK = /\*{3,}|\.{3,}|…/;
/** Letters and digits a masked value may show around its mask (a prefix and the last four, as dashboards do). */
const MAX_SHOWN = 12;

function isMasked(value: string): boolean {
  if (!MASK.test(value)) return false;
  let shown = 0;
  for (let i = 0; i < value.length; i += 1) {
    const c = value.charCodeAt(i);
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) shown += 1;
  }
  return shown <= MAX_SHOWN;
}

/**
 * True when `value` (quotes already removed) is a placeholder, not a secret.
 * @param value - the text after a credential name, without its quotes
 */
export function isPlaceholder(value: string): boolean {
  if (value.length === 0 || value.length > 200) return value.length === 0;
  if (WORDS.test(value) || SHAPES.test(value) || REFERENCE.test(value) || INSTRUCTION.test(value) || isMasked(value))
    return true;
  // A variable's name only when it names a credential (`OPENAI_API_KEY is set`): `QAAA_AAAAAAAA` could be a key.
  if (
    (VARIABLE.test(value) && credentialName(value) !== 'none') ||
    STORE_REFERENCE.test(value) ||
    LABELLED_DIGEST.test(value)
  )
    return true;
  return PATH.test(value) && !RANDOM_SEGMENT.test(value);
}

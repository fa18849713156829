/**
 * Command-line words that say a credential follows: login subcommands
 * (`docker login`, `snyk auth <token>`), flags whose value is
 * `user:password`, user flags, and the one-letter password flags they make
 * meaningful (`mysql -u app -p…`).
 */
import { credentialName } from './credential-words.js';
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

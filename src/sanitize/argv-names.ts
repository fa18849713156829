/**
 * What names an item of an argv array (`process.command_args`): the flag
 * before it (`--api-key`, `-p` after a user flag), a password flag glued to
 * it (`-pS3cr3t`), or a login subcommand before a positional argument. The
 * attribute walk scrubs such an item as the value of that name.
 */
import { credentialName } from './credential-words.js';
import { isLoginCommand, isPasswordLetterFlag, isUserFlag } from './login-words.js';
import type { NameRole } from './scrubber.js';
/** True for an argv item that is a flag (`-u`, `--api-key`), whose next item is its value. */
function isFlag(item: unknown): item is string {
  return (
    typeof item === 'string' && item.length > 1 && item.length <= 64 && item.charCodeAt(0) === 45 && !item.includes('=')
  );
}

/** What names an argv item: the name, how it names the item, and whether the item is a flag glued to its value (`-pS3cr3t`). */
export interface ArgvName {
  readonly name: string;
  readonly role: NameRole;
  readonly glued: boolean;
}

/**
 * The name an argv item is the value of: the flag before it (`--api-key`,
 * `-p`; a password flag when a user flag came earlier), or, for a positional
 * argument, a login subcommand before it (flags between skipped). Undefined
 * when nothing names it. `userAt` is the index of the first flag that gives
 * a user (`-u`, `--username`, `-D`) or of the first login verb, or -1.
 */
export function argvNameOf(items: readonly unknown[], index: number, userAt: number): ArgvName | undefined {
  const previous = items[index - 1];
  const item = items[index] as string;
  if (isFlag(previous) && isPasswordLetterFlag(previous) && userAt >= 0 && userAt < index - 1)
    return { name: previous, role: 'password', glued: false };
  if (isFlag(previous) && (previous.length === 2 || isUserFlag(previous) || credentialName(previous) !== 'none'))
    return { name: previous, role: 'key', glued: false };
  // `mysql -u app -pS3cr3t` as argv: a password flag glued to its value.
  if (item.length > 2 && userAt >= 0 && userAt < index && isPasswordLetterFlag(item.slice(0, 2)))
    return { name: item.slice(0, 2), role: 'password', glued: true };
  // Another glued one-letter flag is judged as text; a flag names nothing after a subcommand.
  if (isFlag(item)) return undefined;
  for (let i = index - 1; i >= 0 && i >= index - 4; i -= 1) {
    const before = items[i];
    // Flags between the subcommand and its argument (`--relogin`, `-method=token`) are skipped.
    if (typeof before === 'string' && before.charCodeAt(0) === 45) continue;
    return typeof before === 'string' && isLoginCommand(before)
      ? { name: before, role: 'subcommand', glued: false }
      : undefined;
  }
  return undefined;
}

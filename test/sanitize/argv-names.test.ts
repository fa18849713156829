/**
 * Argv names (src/sanitize/argv-names.ts): what names an item of an argv
 * array, so the attribute walk scrubs it as that name's value.
 */
import { describe, expect, it } from 'vitest';
import { argvNameOf } from '../../src/sanitize/argv-names.js';

describe('argvNameOf', () => {
  it.each([
    [
      'a credential flag before it',
      ['tool', '--api-key', 'v'],
      2,
      -1,
      { name: '--api-key', role: 'key', glued: false },
    ],
    ['a one-letter flag before it', ['curl', '-H', 'v'], 2, -1, { name: '-H', role: 'key', glued: false }],
    ['a user flag before it', ['curl', '--user', 'a:b'], 2, -1, { name: '--user', role: 'key', glued: false }],
    [
      'a password letter flag after a user flag',
      ['mysql', '-u', 'app', '-p', 'v'],
      4,
      1,
      { name: '-p', role: 'password', glued: false },
    ],
    [
      'a password flag glued to its value after a user flag',
      ['mysql', '-u', 'app', '-pS3cr3t'],
      3,
      1,
      { name: '-p', role: 'password', glued: true },
    ],
    ['a login subcommand before it', ['snyk', 'auth', 'v'], 2, 1, { name: 'auth', role: 'subcommand', glued: false }],
    [
      'a login subcommand with flags between',
      ['wandb', 'login', '--relogin', 'v'],
      3,
      1,
      { name: 'login', role: 'subcommand', glued: false },
    ],
    [
      'a credential-word subcommand',
      ['ngrok', 'config', 'add-authtoken', 'v'],
      3,
      -1,
      { name: 'add-authtoken', role: 'subcommand', glued: false },
    ],
  ])('names the item by %s', (_, items, index, userAt, expected) => {
    expect(argvNameOf(items, index, userAt)).toEqual(expected);
  });

  it.each([
    ['a plain positional argument', ['ls', 'dir', 'v'], 2, -1],
    ['a long flag that is not a credential name', ['tool', '--verbose', 'v'], 2, -1],
    ['a flag with = in it', ['tool', '--api-key=x', 'v'], 2, -1],
    ['a glued password flag with no user flag before', ['mysql', '-pS3cr3t'], 1, -1],
    ['a flag item itself', ['tool', 'login', '--relogin'], 2, 1],
    ['a subcommand more than four items back', ['x', 'login', '-a1', '-b1', '-c1', '-d1', 'v'], 6, -1],
    ['a non-string before it', ['x', 42, 'v'], 2, -1],
  ])('names nothing for %s', (_, items, index, userAt) => {
    expect(argvNameOf(items, index, userAt)).toBeUndefined();
  });

  it('takes a password letter flag as a plain key when no user flag came before', () => {
    expect(argvNameOf(['tool', '-p', '8080'], 2, -1)).toEqual({ name: '-p', role: 'key', glued: false });
  });
});

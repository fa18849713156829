/**
 * The built-in value rules (src/sanitize/rules.ts): each shape of secret or
 * personal data with the kind its marker names, applied in order.
 */
import { describe, expect, it } from 'vitest';
import type { ValueRule } from '../../src/sanitize/rules.js';
import { BUILT_IN_RULES, REDACTION_KINDS } from '../../src/sanitize/rules.js';

/** `text` with one rule applied, matches marked `[kind]`, as the scrubber applies it. */
function applyRule(rule: ValueRule, text: string): string {
  if (!rule.trigger.test(text)) return text;
  if ('replace' in rule) return rule.replace(text, (_, kind = rule.kind) => `[${kind}]`);
  return text.replace(rule.pattern, (match: string, ...groups: unknown[]) => {
    const kept = rule.keepGroup !== undefined ? String(groups[rule.keepGroup - 1] ?? '') : '';
    if (rule.unless !== undefined) {
      const offset = groups[groups.length - 2] as number;
      const whole = groups[groups.length - 1] as string;
      const after = offset + match.length;
      if (rule.unless(match.slice(kept.length), kept, whole.slice(after, after + 256))) return match;
    }
    return `${kept}[${rule.kind}]`;
  });
}
const applyAll = (text: string) => BUILT_IN_RULES.reduce((out, rule) => applyRule(rule, out), text);

describe('BUILT_IN_RULES', () => {
  it.each([
    [
      'a PEM private key',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- ok',
      '[private_key] ok',
    ],
    ['a URL with a password', 'postgres://app:hunter2@db:5432/x', 'postgres://[credentials]@db:5432/x'],
    ['curl -u user:password', 'curl -u app:hunter2 https://x', 'curl -u app:[credentials] https://x'],
    ['a JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', '[jwt]'],
    ['an AWS access key id', 'id AKIAIOSFODNN7EXAMPLE.', 'id [secret].'],
    ['an email address', 'mail alice@example.com', 'mail [email]'],
    ['a home directory', 'open /home/alice/notes.txt', 'open [path]/notes.txt'],
    ['a macOS home directory', 'open /Users/bob/x', 'open [path]/x'],
    ['a Windows home directory', 'C:\\Users\\carol\\x', '[path]\\x'],
    ['a named value', 'DB_PASSWORD=hunter2', 'DB_PASSWORD=[secret]'],
  ])('marks %s', (_, text, marked) => {
    expect(applyAll(text)).toBe(marked);
  });

  it.each([
    ['prose', 'the agent stopped after 3 steps'],
    ['a git remote', 'git@github.com:org/repo.git'],
    ['a shared macOS folder', '/Users/Shared/x'],
    ['a public Windows profile', 'C:\\Users\\Public\\x'],
    ['a URL with no password', 'https://example.com/path?q=1'],
    ['a curl user with a variable password', 'curl -u app:$PASS https://x'],
  ])('leaves %s', (_, text) => {
    expect(applyAll(text)).toBe(text);
  });

  it('names only known kinds', () => {
    expect(
      BUILT_IN_RULES.map((r) => r.kind).filter((k) => !(REDACTION_KINDS as readonly string[]).includes(k)),
    ).toEqual([]);
  });

  it('has non-global triggers and global patterns, as the scrubber needs', () => {
    expect(BUILT_IN_RULES.filter((r) => r.trigger.global).length).toBe(0);
    expect(BUILT_IN_RULES.filter((r) => 'pattern' in r && !r.pattern.global).length).toBe(0);
  });
});

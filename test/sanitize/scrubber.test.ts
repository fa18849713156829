/**
 * The scrubber (src/sanitize/scrubber.ts): replaces every value-rule match by
 * a marker, cuts long strings and stack traces, and judges a value by its name.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { countRedaction, createScrubber, createTally } from '../../src/sanitize/scrubber.js';

const KEY = 'Xk9QvT2mLp7RwZ4aBn8cYd3e';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';

describe('createScrubber().scrub', () => {
  const scrubber = createScrubber();

  it.each([
    ['a format rule', 'mail alice@example.com now', 'mail [redacted:email] now'],
    ['a named value', 'DB_PASSWORD=hunter2', 'DB_PASSWORD=[redacted:secret]'],
    ['a secret cut short at the end', 'key sk-abcdefghijklm', 'key [redacted:secret]'],
    ['a short identifier, untouched', 'gpt-4o-mini', 'gpt-4o-mini'],
    ['plain text, untouched', 'the agent stopped after 3 steps', 'the agent stopped after 3 steps'],
  ])('redacts %s', (_, value, scrubbed) => {
    expect(scrubber.scrub(value)).toBe(scrubbed);
  });

  it('cuts a long string to its limit and says so', () => {
    const tally = createTally();
    expect(createScrubber({ maxStringLength: 10 }).scrub('abcdefghij klmnop', tally)).toBe('abcdefghij…[truncated]');
    expect(tally.byKind.get('truncated')).toBe(1);
  });

  it('counts every finding in the tally, also for a value it remembers', () => {
    const tally = createTally();
    scrubber.scrub('password=hunter2', tally);
    scrubber.scrub('password=hunter2', tally);
    expect(tally.byKind.get('secret')).toBe(2);
  });

  it('keys markers with an HMAC of the redacted text when given a hash key', () => {
    const hmac = createHmac('sha256', 'k').update('hunter2').digest('hex').slice(0, 12);
    expect(createScrubber({ hashKey: 'k' }).scrub('password=hunter2')).toBe(`password=[redacted:secret:${hmac}]`);
  });

  it('runs extra rules on short identifiers too', () => {
    const custom = createScrubber({
      extraRules: [{ kind: 'custom', trigger: /ACME-\d+/, pattern: /ACME-\d+/g }],
    });
    expect(custom.scrub('ACME-42')).toBe('[redacted:custom]');
  });
});

describe('createScrubber().scrubNamed', () => {
  const scrubber = createScrubber();

  it.each([
    ['a strong name', 'password', 'hunter2', 'key', '[redacted:secret]'],
    ['a weak name and a random value', 'key', KEY, 'key', '[redacted:secret]'],
    ['a weak name and a word', 'key', 'users', 'key', 'users'],
    ['a one-letter flag and a random value', '-k', KEY, 'key', '[redacted:secret]'],
    ['a user flag with user:password', '-u', 'app:hunter2', 'key', 'app:[redacted:credentials]'],
    ['a user flag with a variable password', '-u', 'app:$PASS', 'key', 'app:$PASS'],
    ['a user flag with an API key and no password', '--user', `sk_live_${KEY}:`, 'key', '[redacted:credentials]:'],
    [
      'a login subcommand and a UUID',
      'auth',
      '0b7c4a1e-1f2d-4c3b-9a8e-7d6c5b4a3f21',
      'subcommand',
      '[redacted:secret]',
    ],
    ['a login subcommand and a word', 'login', 'myregistry', 'subcommand', 'myregistry'],
    ['a password flag and a password', '-p', 'S3cr3t', 'password', '[redacted:secret]'],
    ['an identifier name and a random token', 'gen_ai.response.id', `${KEY}${KEY}`, 'key', `${KEY}${KEY}`],
  ] as const)('judges %s', (_, name, value, role, scrubbed) => {
    expect(scrubber.scrubNamed(name, value, undefined, role)).toBe(scrubbed);
  });

  it('still finds format secrets under an identifier name', () => {
    expect(scrubber.scrubNamed('request_id', JWT)).toBe('[redacted:jwt]');
  });
});

describe('createScrubber().scrubStackTrace', () => {
  it('scrubs, strips directories and says a path was changed', () => {
    const tally = createTally();
    const trace = 'Error: boom\n    at run (/home/alice/app/agent.js:1:2)';
    expect(createScrubber().scrubStackTrace(trace, tally)).toBe('Error: boom\n    at run (agent.js:1:2)');
    expect([...tally.byKind]).toEqual([['path', 1]]);
  });

  it('cuts a trace to its own limit', () => {
    const trace = `Error: ${'x'.repeat(40)}`;
    expect(createScrubber({ maxStackTraceLength: 12 }).scrubStackTrace(trace)).toBe('Error: xxxxx…[truncated]');
  });

  it('leaves a clean trace as it is and counts nothing', () => {
    const tally = createTally();
    expect(createScrubber().scrubStackTrace('Error: boom', tally)).toBe('Error: boom');
    expect(tally.byKind.size).toBe(0);
  });
});

describe('countRedaction', () => {
  it('adds to the kind, by one or by n, and ignores a missing tally', () => {
    const tally = createTally();
    countRedaction(tally, 'secret');
    countRedaction(tally, 'secret', 3);
    countRedaction(undefined, 'secret');
    expect([...tally.byKind]).toEqual([['secret', 4]]);
    expect(tally.changed).toBe(0);
  });
});

/**
 * Every value rule runs in time linear in its input: adversarial inputs of
 * 1 MB cost a small constant factor of 1 MB of prose, measured in the same
 * test (a ratio, so a slow machine does not fail it). A quadratic rule costs
 * thousands of times more at this size (the JWT rule once took minutes).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_RULES } from '../../src/sanitize/rules.js';
import { replaceJwts } from '../../src/sanitize/jwt-scanner.js';
import { adversarialInputs, plainText } from '../../bench/adversarial-inputs.mjs';
import { bestMillis } from '../../bench/timing.mjs';

const MB = 1 << 20;
/**
 * Linear rules show up to 4× here (their patterns do more work on their own
 * prefixes than on prose); a quadratic one shows thousands. The margin keeps a
 * test file running beside this one from failing it.
 */
const MAX_RATIO = 25;

/** Every built-in rule over `text`, its trigger and then its pattern whatever the trigger says: the worst case of a scrub. */
function applyEveryRule(text: string): string {
  let out = text;
  for (const rule of BUILT_IN_RULES) {
    rule.trigger.test(out);
    out = 'replace' in rule ? rule.replace(out, () => '[x]') : out.replace(rule.pattern, '[x]');
  }
  return out;
}

describe('every value rule is linear in its input', () => {
  it(`costs at most ${MAX_RATIO}× 1 MB of prose on every adversarial 1 MB input`, () => {
    const prose = plainText(MB);
    const baseline = bestMillis(3, () => applyEveryRule(prose));
    const slow: string[] = [];
    let worst = 0;
    for (const [name, input] of adversarialInputs(MB)) {
      // Measured again only when over the bound, to tell a slow rule from a busy moment.
      let ratio = bestMillis(1, () => applyEveryRule(input)) / baseline;
      if (ratio > MAX_RATIO) ratio = bestMillis(2, () => applyEveryRule(input)) / baseline;
      worst = Math.max(worst, ratio);
      if (ratio > MAX_RATIO) slow.push(`${name}: ${ratio.toFixed(1)}×`);
    }
    console.log(
      `adversarial 1 MB inputs: worst ${worst.toFixed(2)}× the time of 1 MB of prose (${baseline.toFixed(1)} ms)`,
    );
    expect(slow).toEqual([]);
    // About 200 inputs of 1 MB through 38 rules: a minute on a busy 2-core machine, which the default 30 s does not allow.
  }, 300_000);
});

describe('the JWT scanner', () => {
  // The regular expression it replaces, run only on short strings here.
  const JWT = /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g;

  it('finds exactly what the regular expression finds', () => {
    const pieces = fc.constantFrom(
      'eyJ',
      'eyJhbGciOi',
      'abcdefgh',
      'x',
      '-',
      '_',
      '.',
      ' ',
      '=',
      'é',
      'AAAAAAAAAAAA',
      '9',
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 24 }), (parts) => {
        const text = parts.join('');
        expect(replaceJwts(text, (token) => `<${token.length}>`)).toBe(
          text.replace(JWT, (token) => `<${token.length}>`),
        );
      }),
      { numRuns: 20_000 },
    );
  });

  it.each([
    [
      'a token after a dash',
      'id-eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      'id-[jwt]',
    ],
    [
      'a token after a start that fails',
      'eyJ-abc.def eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmN',
      'eyJ-abc.def [jwt]',
    ],
    [
      'a token found after a long run of failing starts',
      `${'eyJ-'.repeat(5000)} eyJaaaaaaaa.bbbbbbbb.cccccccc`,
      `${'eyJ-'.repeat(5000)} [jwt]`,
    ],
    [
      'a token glued to a word is not one',
      'xeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmN',
      'xeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmN',
    ],
    ['two tokens', 'a eyJaaaaaaaa.bbbbbbbb.cccccccc b eyJdddddddd.eeeeeeee.ffffffff', 'a [jwt] b [jwt]'],
  ])('%s', (_name, text, expected) => {
    expect(replaceJwts(text, () => '[jwt]')).toBe(expected);
  });
});

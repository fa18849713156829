/**
 * Every covered secret format is redacted, on fresh instances of each (not
 * only the strings of a bug report), wherever it sits in a line of text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scrubString } from '../../src/sanitize/sanitizer.js';
import { SECRET_SHAPES } from '../support/secret-shapes.js';

const SURROUNDINGS: [string, string][] = [
  ['', ''],
  ['error: ', ' (retrying)'],
  ['{"config":"', '"}'],
  ['curl -H "', '" https://example.com'],
  ['\n', '\n'],
];

describe('every covered secret format is redacted', () => {
  it.each(SECRET_SHAPES)('%s', (_name, shape) => {
    for (const planted of fc.sample(shape, 40)) {
      for (const [before, after] of SURROUNDINGS) {
        const out = scrubString(`${before}${planted.text}${after}`, 4096);
        expect(out, `${before}${planted.text}${after}`).not.toContain(planted.secret);
      }
    }
  });
});

describe('found by npm run fuzz:sanitize, kept as regular tests', () => {
  it.each([
    [
      'a Telegram bot token whose last characters are dashes',
      'status: 00000000:AAQAAAAAAAAAAAAAAAAAAAAAAAAAAAAA--- done',
      'QAAAAAAAAAAAAAAAAAAAAAAAAAAAAA---',
    ],
    [
      'a SendGrid key whose last characters are dashes',
      'SG.QAAAAAAAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB__ sent',
      'QAAAAAAAAAAAAAAAAAAAAA',
    ],
  ])('%s', (_name, text, secret) => {
    expect(scrubString(text, 4096)).not.toContain(secret);
  });
});

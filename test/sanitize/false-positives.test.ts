/**
 * Redacting harmless text costs users the debugging context they export spans
 * for. A corpus of benign strings in the shapes agent telemetry carries (code,
 * paths, URLs, prose about auth, config schemas, package names, log lines)
 * must come out of the scrubber unchanged, but for at most 2% of it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scrubString } from '../../src/sanitize/sanitizer.js';

const CORPUS = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'sanitize', 'benign-strings.txt'), 'utf8')
  .split('\n')
  .filter((line) => line !== '' && !line.startsWith('#'));
const MAX_SHARE = 0.02;

describe('benign text survives the scrubber', () => {
  it('the corpus holds at least 150 strings', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(150);
  });

  it(`redacts at most ${MAX_SHARE * 100}% of the corpus`, () => {
    const changed = CORPUS.filter((text) => scrubString(text, 4096) !== text);
    const share = changed.length / CORPUS.length;
    console.log(
      `false positives: ${changed.length} of ${CORPUS.length} benign strings redacted (${(share * 100).toFixed(1)}%)${changed.length ? `:\n  ${changed.map((t) => `${t} -> ${scrubString(t, 4096)}`).join('\n  ')}` : ''}`,
    );
    expect(share).toBeLessThanOrEqual(MAX_SHARE);
  });

  it.each([
    ['a package name', 'pip install scikit-learn sk-learn-extension-toolkit-v2'],
    ['prose about bearer tokens', 'The API uses Bearer authentication for every request.'],
    ['a URL path under /home', 'https://twitter.com/home/feed'],
    ['an SSH remote', 'git@github.com:vercel/ai.git'],
    ['a schema', 'password: required'],
    ['a placeholder', 'api_key=None'],
    ['the public profile directory', 'C:\\Users\\Public\\Documents'],
  ])('%s from the review stays as it is', (_name, text) => {
    expect(scrubString(text, 4096)).toBe(text);
  });
});

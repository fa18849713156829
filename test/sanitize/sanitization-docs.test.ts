/**
 * docs/sanitization.md lists every key and prefix the code removes or keeps,
 * and every redaction kind; this keeps the page and the code in step.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTENT_KEY_PREFIXES, CONTENT_KEYS, OPERATIONAL_KEY_PREFIXES, OPERATIONAL_KEYS, REDACTION_KINDS } from '../../src/index.js';

const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'sanitization.md'), 'utf8');

describe('docs/sanitization.md', () => {
  it.each([
    ['content keys', [...CONTENT_KEYS]],
    ['content key prefixes', [...CONTENT_KEY_PREFIXES]],
    ['operational keys', [...OPERATIONAL_KEYS]],
    ['operational key prefixes', [...OPERATIONAL_KEY_PREFIXES]],
    ['redaction kinds', [...REDACTION_KINDS]],
  ])('lists every one of the %s', (_name, values) => {
    const missing = values.filter((v) => !doc.includes(`\`${v}\``));
    expect(missing).toEqual([]);
  });
});

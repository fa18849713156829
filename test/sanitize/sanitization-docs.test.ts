/**
 * docs/sanitization.md lists every key and prefix the code removes or keeps,
 * every redaction kind, and every value rule in order with an example that
 * gives its documented result; this keeps the page and the code in step.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CONTENT_KEY_PREFIXES,
  CONTENT_KEYS,
  OPERATIONAL_KEY_PREFIXES,
  OPERATIONAL_KEYS,
  REDACTION_KINDS,
} from '../../src/index.js';
import { BUILT_IN_RULES } from '../../src/sanitize/rules.js';
import { scrubString } from '../../src/sanitize/sanitizer.js';

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

  // The rule table: | # | `kind` | matches | `example` | `result` |, with \n and \| escaped in cells.
  const ruleRows = doc
    .split('\n')
    .filter((line) => /^\| \d+ \| `/.test(line))
    .map((line) => {
      const cells = line.slice(2, -2).split(/(?<!\\) \| /);
      const code = (cell: string) => cell.slice(1, -1).replace(/\\n/g, '\n').replace(/\\\|/g, '|');
      return { n: Number(cells[0]), kind: code(cells[1]!), example: code(cells[3]!), result: code(cells[4]!) };
    });

  it('lists every value rule, in order, with its kind', () => {
    expect(ruleRows.map((r) => r.n)).toEqual(BUILT_IN_RULES.map((_, i) => i + 1));
    expect(ruleRows.map((r) => r.kind)).toEqual(BUILT_IN_RULES.map((r) => r.kind));
  });

  it('gives each rule an example that the scrubber turns into the documented result', () => {
    for (const row of ruleRows) expect(scrubString(row.example, 4096), `rule ${row.n}`).toBe(row.result);
  });
});

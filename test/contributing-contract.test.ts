/**
 * CONTRIBUTING.md stays honest: every path it names exists, and its source
 * map lists the layers of eslint.config.js (LAYERS), each with the folders
 * lint lets it import.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const doc = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8');

/** The text of the section under `## title`, up to the next `## `. */
function section(title: string): string {
  const start = doc.indexOf(`\n## ${title}\n`);
  expect(start, `section "${title}"`).toBeGreaterThanOrEqual(0);
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end === -1 ? undefined : end);
}

/** Every file name under src/, for bare names such as `messages.en.ts`. */
function namesUnder(dir: string): Set<string> {
  const names = new Set<string>();
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) names.add(entry.name);
  return names;
}

/** The paths named in backticks: words with a slash (not package subpaths, globs or placeholders) and bare file names. */
function namedPaths(): { slashed: string[]; bare: string[] } {
  const slashed = new Set<string>();
  const bare = new Set<string>();
  for (const [, code] of doc.matchAll(/`([^`\n]+)`/g)) {
    for (const word of code!.split(/\s+/)) {
      if (/[*<>{}"=!]/.test(word) || word.startsWith('agent-incidents/') || word.startsWith('@')) continue;
      if (word.includes('/')) slashed.add(word.replace(/\/$/, ''));
      else if (/^[\w.-]+\.(md|ts|mjs|js|json|ya?ml|txt)$/.test(word)) bare.add(word);
    }
  }
  return { slashed: [...slashed], bare: [...bare] };
}

describe('CONTRIBUTING.md', () => {
  it('names only paths that exist', () => {
    const { slashed, bare } = namedPaths();
    expect(slashed.length).toBeGreaterThan(50);
    expect(slashed.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
    const inSrc = namesUnder(join(ROOT, 'src'));
    expect(bare.filter((name) => !existsSync(join(ROOT, name)) && !inSrc.has(name))).toEqual([]);
  });

  it('maps the same folders as eslint.config.js LAYERS, each with the imports lint allows', async () => {
    const { LAYERS } = (await import(new URL('../eslint.config.js', import.meta.url).href)) as {
      LAYERS: Record<string, string[]>;
    };
    const map: Record<string, string[]> = {};
    for (const line of section('Source map').split('\n')) {
      const row = /^\| `src\/([\w-]+)\/` \| .* \| ([^|]+) \|$/.exec(line);
      if (!row) continue;
      const imports = row[2]!.trim();
      map[row[1]!] = imports === 'nothing' ? [] : imports.split(', ').sort();
    }
    const layers = Object.fromEntries(Object.entries(LAYERS).map(([layer, allowed]) => [layer, [...allowed].sort()]));
    expect(map).toEqual(layers);
  });

  it('names every lint, typecheck, test, e2e, fuzz and bench script of package.json', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const running = section('Running things');
    const wanted = Object.keys(scripts).filter((name) => /^(lint|typecheck|test|fuzz|bench|soak)\b/.test(name));
    expect(wanted.filter((name) => !running.includes(name === 'test' ? 'npm test' : name))).toEqual([]);
  });
});

/**
 * No module of src/ imports itself back, types included: a walker over the
 * relative `import ... from './x.js'` (and `export ... from`, `import('./x.js')`)
 * specifiers of every src/**\/*.ts file, failing on the first cycle with its
 * path. The presentation catalogs in particular import only their types
 * module, never present-incident.ts, which imports them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return /\.m?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The repository-relative files a source file imports by relative specifier. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(SPECIFIER)].flatMap((match) => {
    const target = join(dirname(file), (match[1] as string).replace(/\.js$/, '.ts').replace(/\.mjs$/, '.mts'));
    return existsSync(join(ROOT, target)) ? [target] : [];
  });
}

/** The first cycle found in `graph` (as the list of its files, first repeated at the end), or undefined. */
function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const done = new Set<string>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    const at = stack.indexOf(node);
    if (at >= 0) return [...stack.slice(at), node];
    if (done.has(node)) return undefined;
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    done.add(node);
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

const files = tsFiles(join(ROOT, 'src')).map((file) => relative(ROOT, file));
const graph = new Map(files.map((file) => [file, importsOf(file)]));

describe('the import graph of src/', () => {
  it('is walked over every file and its imports', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(graph.get(join('src', 'presentation', 'present-incident.ts'))).toContain(
      join('src', 'presentation', 'messages.en.ts'),
    );
  });

  it('has no cycle, type-only imports included', () => {
    expect(findCycle(graph)).toBeUndefined();
  });

  it('the message catalogs import only the catalog types', () => {
    for (const catalog of ['messages.en.ts', 'messages.zh-CN.ts']) {
      expect(graph.get(join('src', 'presentation', catalog))).toEqual([
        join('src', 'presentation', 'message-catalog.ts'),
      ]);
    }
  });

  it('the walker finds a cycle where there is one', () => {
    const cyclic = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(findCycle(cyclic)).toEqual(['a', 'b', 'c', 'a']);
    expect(
      findCycle(
        new Map([
          ['a', ['b']],
          ['b', []],
          ['c', ['a', 'b']],
        ]),
      ),
    ).toBeUndefined();
  });
});

/**
 * The benchmarks read the build (`../dist/…`), which no test runs, so a name
 * narrowed out of a module would only show when someone runs `npm run bench:*`
 * (issue 26 unexported `BUILT_IN_RULES` from the root and broke
 * bench/sanitize.mjs that way). Every name a benchmark imports from dist/ must
 * be exported by the source module that builds to it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BENCH = join(ROOT, 'bench');

/** `import { a, b as c } from '../dist/x/y.js'` and `const { a } = await import(…resolve(dist, 'x', 'y.js')…)`. */
const STATIC_IMPORT = /import\s*\{([^}]+)\}\s*from\s*'\.\.\/dist\/([^']+)\.js'/g;
const DIST_IMPORT =
  /const\s*\{([^}]+)\}\s*=\s*await import\(pathToFileURL\(resolve\(dist,\s*((?:'[^']+',\s*)*'[^']+')\)\)/g;

interface BenchImport {
  readonly bench: string;
  readonly module: string;
  readonly name: string;
}

function importsOf(bench: string): BenchImport[] {
  const text = readFileSync(join(BENCH, bench), 'utf8');
  const found: BenchImport[] = [];
  const add = (names: string, module: string): void => {
    for (const entry of names.split(',')) {
      const name = entry.trim().split(/\s+as\s+/)[0];
      if (name) found.push({ bench, module, name });
    }
  };
  for (const [, names = '', module = ''] of text.matchAll(STATIC_IMPORT)) add(names, module);
  for (const [, names = '', segments = ''] of text.matchAll(DIST_IMPORT)) {
    const path = [...segments.matchAll(/'([^']+)'/g)].map(([, segment]) => segment).join('/');
    add(names, path.replace(/\.js$/, ''));
  }
  return found;
}

const benches = readdirSync(BENCH).filter((file) => file.endsWith('.mjs'));
const imports = benches.flatMap(importsOf);

const program = ts.createProgram([...new Set(imports.map((i) => join(ROOT, 'src', `${i.module}.ts`)))], {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  noEmit: true,
});
const checker = program.getTypeChecker();

function exportsOf(module: string): Set<string> {
  const file = program.getSourceFile(join(ROOT, 'src', `${module}.ts`));
  const symbol = file && checker.getSymbolAtLocation(file);
  return new Set(symbol ? checker.getExportsOfModule(symbol).map((s) => s.name) : []);
}

describe('benchmark imports from the build', () => {
  it('finds the imports (the patterns still match how the benchmarks import)', () => {
    expect(imports.length).toBeGreaterThan(10);
    expect(imports.some((i) => i.bench === 'sanitize.mjs')).toBe(true);
  });

  it.each(imports.map((i) => [i.bench, i.name, i.module] as const))(
    '%s: %s is exported by src/%s.ts',
    (_, name, module) => {
      expect(exportsOf(module)).toContain(name);
    },
  );
});

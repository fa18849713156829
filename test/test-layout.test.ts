/**
 * Tests you can find (issue 26): every module of src/ with logic has its unit
 * test at the same path under test/, `src/<folder>/<file>.ts` →
 * `test/<folder>/<file>.test.ts`, so a reader of a module knows where its
 * promises are checked. A module without logic needs none; it is found by
 * rule (no function, arrow, class or method anywhere in it: types, constants,
 * re-exports), and the few the rule cannot see are listed below with why.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Folders and files not checked yet: none, every module of src/ is. */
const NOT_YET_CHECKED: readonly string[] = [];

/** Logic-free modules the rule cannot tell by itself, each with why it needs no unit test of its own. */
const LOGIC_FREE: ReadonlyMap<string, string> = new Map<string, string>([]);

/**
 * Modules with logic that have no unit test of their own yet: the honest list
 * of what is missing (104 when every module of src/ was first checked, 17 midway through issue 26, none at its end; some are
 * covered by broader tests, as sanitize by test/sanitize/sanitize.test.ts,
 * but none by a test you can find by its name). It may only shrink; each
 * entry must still be missing.
 */
const MISSING_TESTS: readonly string[] = [];

/** Every `.ts` file under `dir`, repository-relative, sorted. */
function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true })
    .flatMap((entry) => {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return tsFiles(path);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
    })
    .sort();
}

/** Node kinds that run code: a module with none of them is types, constants and re-exports only. */
const CODE = new Set([
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.FunctionExpression,
  ts.SyntaxKind.ArrowFunction,
  ts.SyntaxKind.ClassDeclaration,
  ts.SyntaxKind.ClassExpression,
  ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.SetAccessor,
]);

/** True when the module at `file` declares no function, arrow, class or method (type positions hold none). */
function isLogicFree(file: string): boolean {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const hasCode = (node: ts.Node): boolean => CODE.has(node.kind) || (ts.forEachChild(node, hasCode) ?? false);
  return !hasCode(source);
}

/** Where the unit test of `file` lives: `src/a/b.ts` → `test/a/b.test.ts`. */
function testOf(file: string): string {
  return `test/${relative('src', file).replace(/\.ts$/, '.test.ts')}`;
}

const MODULES = tsFiles('src').filter((file) => !NOT_YET_CHECKED.some((skip) => file.startsWith(skip)));

describe('tests you can find', () => {
  it('every module with logic has test/<folder>/<file>.test.ts', () => {
    const untested = MODULES.filter(
      (file) =>
        !existsSync(join(ROOT, testOf(file))) &&
        !LOGIC_FREE.has(file) &&
        !MISSING_TESTS.includes(file) &&
        !isLogicFree(file),
    );
    expect(untested.map((file) => `${file} → ${testOf(file)}`)).toEqual([]);
  });

  it('MISSING_TESTS lists only modules still missing their test', () => {
    const found = MISSING_TESTS.filter((file) => existsSync(join(ROOT, testOf(file))) || !existsSync(join(ROOT, file)));
    expect(found).toEqual([]);
  });

  it('LOGIC_FREE lists only existing modules the rule does not already see, each with why', () => {
    const stale = [...LOGIC_FREE].filter(
      ([file, why]) => !existsSync(join(ROOT, file)) || isLogicFree(file) || why.trim() === '',
    );
    expect(stale).toEqual([]);
  });

  it.each([
    ['types and interfaces only', 'src/model/incident.ts', true],
    ['re-exports only', 'src/fold/index.ts', true],
    ['a function with branches', 'src/model/hr-time.ts', false],
    ['a class', 'src/fold/run-folder.ts', false],
  ])('the logic-free rule reads %s (%s) as logic-free: %s', (_what, file, free) => {
    expect(isLogicFree(file)).toBe(free);
  });
});

/**
 * Switches over the closed value sets end in an exhaustiveness check
 * (src/model/exhaustive.ts), so adding a member fails to compile wherever it
 * must be handled. Proven by type-checking src/ with a fake member added to
 * each set (a patched copy in memory, nothing written): every listed function
 * must then report a `never` error, and none may report one unpatched.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { causeOf } from '../src/derive/derive-incident.js';
import { assertNever, checkExhaustive } from '../src/model/exhaustive.js';
import type { Fact } from '../src/model/facts.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Each patch adds one fake member to a closed set: [file, text, the same text with the member]. */
const PATCHES: readonly (readonly [string, string, string])[] = [
  ['src/model/enums.ts', "'do_not_retry', 'unknown'] as const", "'do_not_retry', 'unknown', 'fake_safety'] as const"],
  [
    'src/model/facts.ts',
    "    | { readonly kind: 'provider_progress' }\n",
    "    | { readonly kind: 'provider_progress' }\n    | { readonly kind: 'fake_fact' }\n",
  ],
  ['src/conventions/span-view.ts', "'tool' | 'other';", "'tool' | 'other' | 'fake_role';"],
];

/**
 * The functions whose switch must handle every member: [file, function or method name, the set].
 * No switch over causes is listed: what the code knows of a cause is a row of the cause table
 * (src/model/cause-table.ts), whose row type makes every field required, and the tables keyed by
 * cause (the message catalogs) fail to compile without a new cause's entry.
 */
const EXHAUSTIVE: readonly (readonly [string, string, string])[] = [
  ['src/derive/derive-incident.ts', 'causeOf', 'fact kind'],
  ['src/derive/attempt-summary.ts', 'summarizeAttempt', 'fact kind'],
  ['src/recovery/safe-retry.ts', 'deferred', 'retry safety'],
  ['src/conventions/gen-ai.ts', 'extract', 'span role'],
  ['src/conventions/openinference.ts', 'extract', 'span role'],
  ['src/conventions/vercel-ai.ts', 'extract', 'span role'],
];

function patched(path: string, text: string): string {
  let out = text;
  for (const [file, find, replace] of PATCHES) {
    if (!path.endsWith(file)) continue;
    if (!out.includes(find)) throw new Error(`patch anchor not found in ${file}: ${find}`);
    out = out.replace(find, replace);
  }
  return out;
}

/** Names of the functions (or methods) holding a `never` argument error, per listed file. */
function neverErrors(patch: boolean): Map<string, Set<string>> {
  const config = ts.getParsedCommandLineOfConfigFile(
    `${root}tsconfig.build.json`,
    { noEmit: true },
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!config) throw new Error('tsconfig.build.json not read');
  const host = ts.createCompilerHost(config.options);
  const readFile = host.readFile.bind(host);
  if (patch)
    host.readFile = (name) => {
      const text = readFile(name);
      return text === undefined ? undefined : patched(name, text);
    };
  const program = ts.createProgram(config.fileNames, config.options, host);
  const found = new Map<string, Set<string>>();
  for (const file of new Set(EXHAUSTIVE.map(([f]) => f))) {
    const source = program.getSourceFile(`${root}${file}`);
    if (!source) throw new Error(`${file} not in the program`);
    const names = new Set<string>();
    for (const d of program.getSemanticDiagnostics(source)) {
      if (d.start === undefined || !ts.flattenDiagnosticMessageText(d.messageText, '\n').includes("'never'")) continue;
      names.add(enclosingFunction(source, d.start));
    }
    found.set(file, names);
  }
  return found;
}

function enclosingFunction(source: ts.SourceFile, position: number): string {
  let name = '(top level)';
  const visit = (node: ts.Node): void => {
    if (position < node.getStart(source) || position >= node.getEnd()) return;
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) name = node.name.getText(source);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return name;
}

describe('exhaustive switches over the closed sets', () => {
  it('compile unpatched without a never error', () => {
    for (const [file, names] of neverErrors(false)) expect([...names], file).toEqual([]);
  }, 60_000);

  it('fail to compile, each one, when its set gains a member', () => {
    const found = neverErrors(true);
    const missing = EXHAUSTIVE.filter(([file, fn]) => !found.get(file)?.has(fn)).map(
      ([file, fn, set]) => `${file}: ${fn} does not check every ${set}`,
    );
    expect(missing).toEqual([]);
  }, 60_000);
});

describe('the exhaustiveness helpers at run time', () => {
  it('assertNever throws a clear error for a value that bypassed the types', () => {
    expect(() => assertNever('fake_cause' as never, 'cause')).toThrow(new Error('unexpected cause: "fake_cause"'));
    expect(() => assertNever({ kind: 'x' } as never, 'fact')).toThrow('unexpected fact: {"kind":"x"}');
  });

  it('checkExhaustive does nothing, so tolerant callers keep their fallback', () => {
    expect(checkExhaustive('fake' as never)).toBeUndefined();
    expect(causeOf({ kind: 'fake_fact', timeMillis: 0, seq: 0 } as unknown as Fact)).toEqual({
      cause: 'unknown_interruption',
    });
  });
});

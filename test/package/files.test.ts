/**
 * What `npm pack` puts in the tarball is what a user of the published package
 * has: every file the README, CHANGELOG and docs/*.md link to (or pass to a command as
 * `--config`) must be in it, and nothing of the repository's own development
 * (tests, benches, caches, CI scripts) may be. The list comes from npm itself
 * (`npm pack --dry-run --json`), so `files` in package.json and .npmignore
 * rules are judged as npm applies them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Linked from the docs, deliberately not packed: they are about developing
 * this repository and need its clone (dev dependencies, recorded fixtures).
 */
const NOT_FOR_USERS = new Map<string, string>([
  ['CONTRIBUTING.md', 'how to change the code: source map, checks, checklists, glossary, for contributors'],
  ['bench/README.md', "benchmarks run from a clone with the repository's dev dependencies"],
  ['test/fixtures/traces/README.md', 'the conformance suite and how to record its traces again, for contributors'],
  ['test/ai-sdk-7', 'the AI SDK 7 compatibility test (`npm run test:ai-sdk-7`), run from a clone'],
]);

/** Paths (relative to the package root) that must never be packed. */
const UNWANTED: readonly RegExp[] = [
  /^test\//,
  /^bench\//,
  /^src\//, // the package ships dist/; sources and their tests stay in the repository
  /^scripts\//,
  /(^|\/)node_modules\//,
  /(^|\/)\.cache\//,
  /(^|\/)\.git\//,
  /(^|\/)\.env/,
  /\.tsbuildinfo$/,
  /\.tgz$/,
  /\.test\.(ts|js|mjs|cjs|d\.ts)$/,
  /^dist\/.*\.test-d\./,
];

// `--ignore-scripts`: `prepare` would rebuild dist/; the test setup has just built it.
const packed = JSON.parse(
  execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
) as [{ files: { path: string }[]; entryCount: number }];
const packedFiles = packed[0].files.map((file) => file.path);

// The markdown the tarball carries (CHANGELOG.md too), so every link in it must resolve there.
const markdownFiles = [
  'README.md',
  'CHANGELOG.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

interface Reference {
  readonly from: string;
  readonly target: string;
}

/** Relative links of a markdown file, and the files its commands read with `--config`, as repository paths. */
function references(file: string): Reference[] {
  const text = readFileSync(join(root, file), 'utf8');
  const found: Reference[] = [];
  for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const href = (match[1] as string).split('#')[0] as string;
    if (href === '' || /^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // an anchor, or http:, mailto:, …
    found.push({ from: file, target: normalize(join(dirname(file), href)).replace(/\/$/, '') });
  }
  for (const match of text.matchAll(/--config[= ]([\w./-]+\.ya?ml)/g)) {
    found.push({ from: file, target: normalize(match[1] as string) });
  }
  return found;
}

const allReferences = markdownFiles.flatMap(references);

function isPacked(target: string): boolean {
  return packedFiles.some((path) => path === target || path.startsWith(`${target}/`));
}

describe('npm pack', () => {
  it('finds the links it checks (the extraction works)', () => {
    expect(allReferences.map((ref) => ref.target)).toEqual(
      expect.arrayContaining([
        'docs/sanitization.md',
        'deploy',
        'otel-collector-config.yaml',
        'deploy/collector/gateway.yaml',
      ]),
    );
  });

  it('packs every repository file or folder the README and docs link to, except those kept for contributors', () => {
    const missing = allReferences
      .filter((ref) => !NOT_FOR_USERS.has(ref.target))
      .filter((ref) => !isPacked(ref.target))
      .map((ref) => `${ref.from} → ${ref.target}`);
    expect(missing).toEqual([]);
  });

  it('links only to paths that exist in the repository', () => {
    const broken = allReferences
      .filter((ref) => !existsSync(join(root, ref.target)))
      .map((ref) => `${ref.from} → ${ref.target}`);
    expect(broken).toEqual([]);
  });

  it('keeps each exclusion for contributors linked and really out of the tarball', () => {
    for (const [path, reason] of NOT_FOR_USERS) {
      expect(
        allReferences.some((ref) => ref.target === path),
        `${path} (${reason}) is no longer linked: drop it from the list`,
      ).toBe(true);
      expect(isPacked(path), `${path} is packed`).toBe(false);
    }
  });

  it('packs no tests, benches, sources, CI scripts, caches, node_modules or build info', () => {
    expect(packedFiles.filter((path) => UNWANTED.some((pattern) => pattern.test(path)))).toEqual([]);
  });

  it('packs the license, the built entry points and every file package.json points at', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      main: string;
      types: string;
      bin: Record<string, string>;
      exports: Record<string, string | Record<string, string>>;
    };
    const pointed = [
      manifest.main,
      manifest.types,
      ...Object.values(manifest.bin),
      ...Object.values(manifest.exports).flatMap((entry) =>
        typeof entry === 'string' ? [entry] : Object.values(entry),
      ),
    ].map((path) => relative('.', path));
    expect(packedFiles).toEqual(
      expect.arrayContaining(['LICENSE', 'README.md', 'CHANGELOG.md', 'package.json', ...pointed]),
    );
    expect(statSync(join(root, 'LICENSE')).size).toBeGreaterThan(10_000); // the full Apache-2.0 text, not a stub
  });
});

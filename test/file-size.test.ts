/**
 * No file grows past what a reader holds at once (issue 26): every code file
 * of src/, bench/, scripts/ and examples/ is at most 400 lines, and one over
 * 300 says why in a comment within its first 3 lines
 * (`// Over 300 lines: <reason>`). Lines are counted as Prettier (width 120)
 * leaves them. test/ is not counted yet: some older test files are over 400
 * lines (CONTRIBUTING.md says how a test file that grows is split).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The most lines a file may have. */
const MAX_LINES = 400;
/** Past this many lines a file starts with its reason. */
const REASON_FROM = 300;
/** A comment saying why the file is long: the phrase, a colon and a reason of a few words. */
const REASON = /^\s*(?:\/\/|\/?\*|#)\s*Over 300 lines:\s*\S+(?:\s+\S+){3,}/;
/** The folders whose code is counted. */
const FOLDERS = ['src', 'bench', 'scripts', 'examples'];
/** Code files by extension; declaration files are types a tool reads, not code a reader follows. */
const CODE = /\.(?:ts|mts|cts|js|mjs|cjs|py|go|sh)$/;
const DECLARATIONS = /\.d\.[cm]?ts$/;
/** The code files git knows of (tracked, or new and not ignored), so installed copies never count. */
function codeFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...FOLDERS], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return [...new Set(listed.split('\n'))].filter(
    (file) => CODE.test(file) && !DECLARATIONS.test(file) && !file.split('/').includes('node_modules'),
  );
}

/** Lines of `text` as an editor numbers them: a final newline ends the last line, it starts none. */
function lineCount(text: string): number {
  return text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** True when one of the first 3 lines of `text` is a comment giving a reason for its length. */
function givesReason(text: string): boolean {
  return text.split('\n', 3).some((line) => REASON.test(line));
}

const files = codeFiles().flatMap((file) => {
  let text: string;
  try {
    text = readFileSync(join(ROOT, file), 'utf8');
  } catch {
    return []; // Listed by git but deleted in the work tree.
  }
  return [{ file, lines: lineCount(text), reason: givesReason(text) }];
});

describe('file size', () => {
  it.each(FOLDERS)('is measured over the files of %s/', (folder) => {
    expect(files.filter((f) => f.file.startsWith(`${folder}/`)).length).toBeGreaterThan(0);
  });

  it(`no file is over ${MAX_LINES} lines`, () => {
    expect(files.filter((f) => f.lines > MAX_LINES).map((f) => `${f.file}: ${f.lines} lines`)).toEqual([]);
  });

  it(`a file over ${REASON_FROM} lines starts with "Over 300 lines: <reason>"`, () => {
    expect(
      files.filter((f) => f.lines > REASON_FROM && !f.reason).map((f) => `${f.file}: ${f.lines} lines, no reason`),
    ).toEqual([]);
  });
});

describe('the checks themselves', () => {
  it.each([
    ['', 0],
    ['a', 1],
    ['a\n', 1],
    ['a\nb', 2],
    ['a\nb\n', 2],
    ['a\n\n', 2],
  ])('counts %j as %i lines', (text, lines) => {
    expect(lineCount(text)).toBe(lines);
  });

  it.each([
    ['// Over 300 lines: the one table of rules kept together so that order is visible.\n/**', true],
    ['/**\n * Over 300 lines: one state machine whose transitions read together.\n */', true],
    ['/**\n * Header.\n *\n * Over 300 lines: too late, on the fourth line.\n */', false],
    ['// Over 300 lines.\n', false],
    ['// Over 300 lines: long.\n', false],
    ['/**\n * A module.\n */\n', false],
  ])('reads a reason in %j: %s', (text, expected) => {
    expect(givesReason(text)).toBe(expected);
  });
});

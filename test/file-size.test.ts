/**
 * No source file grows past what a reader holds at once (issue 26): every
 * src/**\/*.ts is at most 400 lines, and one over 300 says why in a comment
 * within its first 3 lines (`// Over 300 lines: <reason>`). Lines are counted
 * as Prettier (width 120) leaves them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The most lines a source file may have. */
const MAX_LINES = 400;
/** Past this many lines a file starts with its reason. */
const REASON_FROM = 300;
/** A comment saying why the file is long: the phrase, a colon and a reason of a few words. */
const REASON = /^\s*(?:\/\/|\/?\*)\s*Over 300 lines:\s*\S+(?:\s+\S+){3,}/;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Lines of `text` as an editor numbers them: a final newline ends the last line, it starts none. */
function lineCount(text: string): number {
  return text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** True when one of the first 3 lines of `text` is a comment giving a reason for its length. */
function givesReason(text: string): boolean {
  return text.split('\n', 3).some((line) => REASON.test(line));
}

const files = tsFiles(join(ROOT, 'src')).map((path) => {
  const text = readFileSync(path, 'utf8');
  return { file: relative(ROOT, path), lines: lineCount(text), reason: givesReason(text) };
});

describe('source file size', () => {
  it('is measured over every file of src/', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it(`no file of src/ is over ${MAX_LINES} lines`, () => {
    expect(files.filter((f) => f.lines > MAX_LINES).map((f) => `${f.file}: ${f.lines} lines`)).toEqual([]);
  });

  it(`a file of src/ over ${REASON_FROM} lines starts with "Over 300 lines: <reason>"`, () => {
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

/**
 * Comments cite the documents the repository ships: no comment may point at
 * the design document the repository never contained, and every
 * `docs/<file>.md#anchor` (or README.md with an anchor) cited in src/ or test/ must
 * name a heading of that file, by its GitHub anchor.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCE = /\.(?:ts|mts|mjs|js)$/;

/** Source files under `dir` (relative to the repository), skipping node_modules and build output. */
function sources(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(join(ROOT, dir), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sources(path);
    return SOURCE.test(entry.name) ? [path] : [];
  });
}

/** GitHub's anchors of a markdown file's headings (fenced code skipped, repeats suffixed `-1`, `-2`, ...). */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(?:```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = (heading[1] as string)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

const files = ['src', 'test', 'bench', 'scripts'].flatMap(sources);
const text = new Map(files.map((file) => [file, readFileSync(join(ROOT, file), 'utf8')]));
// Split so this file does not match itself.
const DANGLING = 'DESIGN' + ' §';
const CITATION = /\b((?:docs\/[\w.-]+|README)\.md)#([\w-]+)/g;

describe('comments cite documents that exist', () => {
  it('finds the files it checks', () => {
    expect(files.filter((file) => file.startsWith('src'))).not.toHaveLength(0);
  });

  it(`no source, test, bench or script file cites "${DANGLING}"`, () => {
    const hits = files.flatMap((file) =>
      (text.get(file) as string)
        .split('\n')
        .flatMap((line, i) => (line.includes(DANGLING) ? [`${file}:${i + 1}`] : [])),
    );
    expect(hits).toEqual([]);
  });

  it('every docs/<file>.md#anchor cited in src/ or test/ names a heading of that file', () => {
    const cache = new Map<string, Set<string> | undefined>();
    const broken: string[] = [];
    let cited = 0;
    for (const file of files.filter((f) => /^(?:src|test)[/\\]/.test(f))) {
      for (const match of (text.get(file) as string).matchAll(CITATION)) {
        const [citation, doc, anchor] = match as unknown as [string, string, string];
        if (!cache.has(doc)) {
          try {
            cache.set(doc, anchors(readFileSync(join(ROOT, doc), 'utf8')));
          } catch {
            cache.set(doc, undefined);
          }
        }
        cited++;
        if (!cache.get(doc)?.has(anchor)) broken.push(`${relative('.', file)}: ${citation}`);
      }
    }
    expect(cited).toBeGreaterThan(0);
    expect(broken).toEqual([]);
  });

  it('computes GitHub anchors the way GitHub does', () => {
    const doc =
      '# A `b.c` d\n## Span status and `error.type`\n```\n# not a heading\n```\n## A `b.c` d\n### 1. What, and when\n';
    expect([...anchors(doc)]).toEqual(['a-bc-d', 'span-status-and-errortype', 'a-bc-d-1', '1-what-and-when']);
  });
});

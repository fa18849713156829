/**
 * RefusalWindow's promises (src/gateway/refusal-window.ts): the window a
 * process records survives it (a new one loads it), each write records a
 * second ahead so writes stay rare, a shorter window never shrinks it, an
 * unreadable file reads as none, and a failed write never throws.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RefusalWindow } from '../../src/gateway/refusal-window.js';

const FILE = 'refused-senders-back-until';

function directory(): string {
  return mkdtempSync(join(tmpdir(), 'refusal-window-'));
}

describe('RefusalWindow', () => {
  it('records the window a second ahead, and a new process loads it', () => {
    const dir = directory();
    new RefusalWindow(dir).extend(10_000.2);
    expect(readFileSync(join(dir, FILE), 'utf8')).toBe('11001');
    expect(new RefusalWindow(dir).load()).toBe(11_001);
    rmSync(dir, { recursive: true });
  });

  it('writes nothing for a window within the one it recorded', () => {
    const dir = directory();
    const window = new RefusalWindow(dir);
    window.extend(10_000);
    window.extend(10_900);
    window.extend(5_000);
    expect(readFileSync(join(dir, FILE), 'utf8')).toBe('11000');
    window.extend(11_500);
    expect(readFileSync(join(dir, FILE), 'utf8')).toBe('12500');
    rmSync(dir, { recursive: true });
  });

  it.each([
    ['no file', undefined],
    ['a file that holds no number', 'soon'],
    ['a negative window', '-5'],
  ])('loads 0 from %s', (_case, content) => {
    const dir = directory();
    if (content !== undefined) writeFileSync(join(dir, FILE), content);
    expect(new RefusalWindow(dir).load()).toBe(0);
    rmSync(dir, { recursive: true });
  });

  it('never throws when the directory cannot be written', () => {
    expect(() => new RefusalWindow(join(tmpdir(), 'no-such-dir-for-refusal-window', 'x')).extend(1)).not.toThrow();
  });
});

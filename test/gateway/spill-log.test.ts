/**
 * The persistent queue on a real directory: what was appended is read back
 * after the process that wrote it is gone, a torn or corrupt tail costs only
 * itself, a segment goes once all of it was delivered, a failed write leaves
 * the log as it was, and one directory has one owner.
 */
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SpillLog, SpillLogFullError, SpillLogLockedError } from '../../src/gateway/spill-log.js';

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'spill-'));
  dirs.push(dir);
  return dir;
}

const segments = (dir: string): string[] =>
  readdirSync(dir)
    .filter((name) => name.startsWith('segment-'))
    .sort();
const body = (text: string): Buffer => Buffer.from(text);

/** Reopens `dir` as a new process would (the old owner's lock released) and reads everything back. */
async function reopen(dir: string, options: { segmentBytes?: number } = {}) {
  const log = SpillLog.open({ directory: dir, ...options });
  const read: { type: string; body: string; admit: (spans: number) => { release(n?: number): void } }[] = [];
  for (let segment = log.recoverNext(); segment; segment = log.recoverNext())
    for (const record of segment) read.push({ ...record, body: record.body.toString() });
  return { log, read };
}

describe('the persistent queue', () => {
  it('reads back every appended request, in order, after its writer closed without delivering', async () => {
    const dir = scratch();
    const log = SpillLog.open({ directory: dir, segmentBytes: 64 });
    for (let i = 0; i < 10; i += 1)
      await log.append(i % 2 ? 'json' : 'protobuf', body(`request ${i} ${'x'.repeat(20)}`), 1);
    await log.close();
    expect(segments(dir).length).toBeGreaterThan(1);
    const { log: again, read } = await reopen(dir);
    expect(read.map((r) => r.body.split(' ').slice(0, 2).join(' '))).toEqual(
      Array.from({ length: 10 }, (_, i) => `request ${i}`),
    );
    expect(read.map((r) => r.type)).toEqual(Array.from({ length: 10 }, (_, i) => (i % 2 ? 'json' : 'protobuf')));
    await again.close();
  });

  it('deletes a segment once every span of every request in it was released, and not before', async () => {
    const dir = scratch();
    const log = SpillLog.open({ directory: dir, segmentBytes: 40 });
    const first = await log.append('json', body('a'.repeat(30)), 2);
    const second = await log.append('json', body('b'.repeat(30)), 1);
    expect(segments(dir)).toHaveLength(2);
    first.release();
    expect(segments(dir)).toHaveLength(2);
    first.release();
    // The first segment is sealed (the second request did not fit in it) and done.
    expect(segments(dir)).toHaveLength(1);
    second.release();
    // The active segment is not sealed yet: it goes at close.
    await log.close();
    expect(segments(dir)).toHaveLength(0);
    expect(log.bytes).toBe(0);
  });

  it('frees a recovered segment once each of its records was admitted and released', async () => {
    const dir = scratch();
    const log = SpillLog.open({ directory: dir });
    await log.append('json', body('one'), 1);
    await log.append('json', body('two'), 1);
    await log.close();
    const { log: again, read } = await reopen(dir);
    const records = read.map((r) => r.admit(1));
    expect(segments(dir)).toHaveLength(1);
    records[0]!.release();
    expect(segments(dir)).toHaveLength(1);
    records[1]!.release();
    expect(segments(dir)).toHaveLength(0);
    await again.close();
  });

  it.each([
    [
      'a torn tail (a write cut short)',
      (file: string) => appendFileSync(file, Buffer.from([0x41, 0x49, 0x47, 0x31, 0, 0, 1, 0])),
    ],
    ['garbage after the last record', (file: string) => appendFileSync(file, Buffer.from('not a record at all'))],
    [
      'a record whose bytes changed on disk',
      (file: string) => {
        const data = readFileSync(file);
        data[data.length - 1] = (data[data.length - 1] ?? 0) ^ 0xff;
        writeFileSync(file, data);
      },
    ],
  ])('keeps the records before %s and reads nothing past it', async (_name, damage) => {
    const dir = scratch();
    const log = SpillLog.open({ directory: dir });
    await log.append('json', body('kept 1'), 1);
    await log.append('json', body('kept 2'), 1);
    await log.append('json', body('last'), 1);
    await log.close();
    damage(join(dir, segments(dir)[0]!));
    const { log: again, read } = await reopen(dir);
    expect(read.map((r) => r.body).slice(0, 2)).toEqual(['kept 1', 'kept 2']);
    expect(read.length).toBeGreaterThanOrEqual(2);
    expect(read.map((r) => r.body)).not.toContain('not a record at all');
    await again.close();
  });

  it('refuses an append past maxBytes and stays usable', async () => {
    const dir = scratch();
    const log = SpillLog.open({ directory: dir, maxBytes: 100 });
    await log.append('json', body('x'.repeat(50)), 1);
    await expect(log.append('json', body('y'.repeat(50)), 1)).rejects.toBeInstanceOf(SpillLogFullError);
    await log.append('json', body('z'.repeat(10)), 1);
    await log.close();
    const { log: again, read } = await reopen(dir);
    expect(read.map((r) => r.body)).toEqual(['x'.repeat(50), 'z'.repeat(10)]);
    await again.close();
  });

  it('takes appends again once what filled it is delivered, even when the whole queue is smaller than a segment', async () => {
    const dir = scratch();
    const log = SpillLog.open({ directory: dir, maxBytes: 200 });
    const records = [
      await log.append('json', body('a'.repeat(60)), 1),
      await log.append('json', body('b'.repeat(60)), 1),
    ];
    await expect(log.append('json', body('c'.repeat(60)), 1)).rejects.toBeInstanceOf(SpillLogFullError);
    for (const record of records) record.release();
    await log.append('json', body('d'.repeat(60)), 1);
    expect(log.bytes).toBeLessThan(200);
    await log.close();
    const { log: again, read } = await reopen(dir);
    expect(read.map((r) => r.body)).toEqual(['d'.repeat(60)]);
    await again.close();
  });

  it('lets one live process own a directory, and takes over the lock of a dead one', async () => {
    const dir = scratch();
    const log = SpillLog.open({ directory: dir });
    // A second gateway in this process is refused too.
    expect(() => SpillLog.open({ directory: dir })).toThrow(SpillLogLockedError);
    await log.close();
    // Another live process (the test runner's parent) holds it.
    writeFileSync(join(dir, 'LOCK'), String(process.ppid));
    expect(() => SpillLog.open({ directory: dir })).toThrow(SpillLogLockedError);
    // A pid no process has (a gateway killed with SIGKILL left it).
    writeFileSync(join(dir, 'LOCK'), '2147483646');
    const taken = SpillLog.open({ directory: dir });
    expect(readFileSync(join(dir, 'LOCK'), 'utf8')).toBe(String(process.pid));
    await taken.close();
  });
});

describe('a stored record read back', () => {
  it('gives its body from its segment, appended now or read back at start', async () => {
    const dir = scratch();
    const first = SpillLog.open({ directory: dir });
    await first.append('json', body('one'), 1);
    const record = await first.append('protobuf', body('second body'), 2);
    expect((await record.read()).toString()).toBe('second body');
    await first.close();
    const second = SpillLog.open({ directory: dir });
    const recovered = second.recoverNext() ?? [];
    expect(recovered.map((r) => r.body.toString())).toEqual(['one', 'second body']);
    const again = recovered[1]!.admit(2);
    expect((await again.read()).toString()).toBe('second body');
    await second.close();
  });
});

// Over 300 lines: the persistent queue's on-disk format (records, segments, lock, recovery), kept
// together so that what is written and what is read back on start cannot drift apart.
/**
 * The gateway's persistent queue: every accepted request body is appended to
 * a segment file in a directory before the sender hears 200, and a segment is
 * deleted once every span of every request in it was delivered upstream (or
 * dropped by explicit configuration). What a crash or a restart leaves behind
 * is read back on start and delivered (docs/gateway.md, "Delivery guarantee").
 *
 * A record is `magic · length · crc32 · type · body`; a torn or corrupt tail
 * (a power cut without fsync, a failed write that could not be truncated) ends
 * its segment, and nothing past it in that segment is trusted. One gateway per
 * directory: a `LOCK` file names the owner's pid.
 */
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

const MAGIC = 0x41494731; // "AIG1"
const HEADER_BYTES = 13;
const SEGMENT = /^segment-(\d{16})\.log$/;

/** The encoding of a stored request body. */
export type SpillBodyType = 'protobuf' | 'json';

const TYPE_CODE: Record<SpillBodyType, number> = { protobuf: 1, json: 2 };
const TYPE_OF_CODE = new Map<number, SpillBodyType>([
  [1, 'protobuf'],
  [2, 'json'],
]);

/** Options of a spill log. */
export interface SpillLogOptions {
  /** The directory; created when missing. */
  readonly directory: string;
  /** Bytes on disk past which appends are refused. @default 1073741824 */
  readonly maxBytes?: number;
  /** A segment is sealed and a new one started past this size. @default 4194304 */
  readonly segmentBytes?: number;
  /** fsync each append before it is acknowledged (survives power loss, not only a crash). @default false */
  readonly fsync?: boolean;
}

/** The request a held span came in, told as its spans are delivered or dropped (a stored record, or its proxy). */
export interface HeldRequest {
  /** Marks `spans` (default 1) of the request done. */
  release(spans?: number): void;
}

/** One stored request: released span by span as they are delivered. */
export class SpillRecord implements HeldRequest {
  /** Spans of the record not yet delivered or dropped. */
  pending: number;
  readonly #segment: Segment;
  /** Where its body lies in its segment file. */
  readonly #at: number;
  readonly #length: number;

  constructor(segment: Segment, spans: number, at: number, length: number) {
    this.#segment = segment;
    this.pending = spans;
    this.#at = at;
    this.#length = length;
    if (spans === 0) segment.recordDone();
  }

  /** The stored body, read back from its segment file (a worker that exited gets what it held again from here). */
  async read(): Promise<Buffer> {
    const file = await open(this.#segment.path, 'r');
    try {
      const body = Buffer.alloc(this.#length);
      const { bytesRead } = await file.read(body, 0, this.#length, this.#at);
      if (bytesRead !== this.#length) throw new Error(`segment ${this.#segment.path} ends inside a record`);
      return body;
    } finally {
      await file.close();
    }
  }

  /** Marks `spans` of the record done; the last one frees the record. */
  release(spans = 1): void {
    if (this.pending <= 0) return;
    this.pending = Math.max(0, this.pending - spans);
    if (this.pending === 0) this.#segment.recordDone();
  }
}

/** A record read back from disk. */
export interface RecoveredRecord {
  readonly type: SpillBodyType;
  readonly body: Buffer;
  /** Call with the number of spans the body decoded to (0 frees it at once). */
  readonly admit: (spans: number) => SpillRecord;
}

interface SegmentOwner {
  segmentFreed(segment: Segment): void;
}

class Segment {
  records = 0;
  done = 0;
  sealed = false;
  constructor(
    readonly path: string,
    public bytes: number,
    readonly owner: SegmentOwner,
  ) {}

  recordDone(): void {
    this.done += 1;
    this.maybeFree();
  }

  maybeFree(): void {
    if (this.sealed && this.done >= this.records) this.owner.segmentFreed(this);
  }
}

/** The directory is in use by another live gateway. */
export class SpillLogLockedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SpillLogLockedError';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Directories opened by this process: two gateways in one process must not share one either. */
const OPENED = new Set<string>();

/** Parses the records of one segment file, stopping at the first torn or corrupt one. */
function parseSegment(data: Buffer): { type: SpillBodyType; body: Buffer; at: number }[] {
  const records: { type: SpillBodyType; body: Buffer; at: number }[] = [];
  let pos = 0;
  while (pos + HEADER_BYTES <= data.length) {
    if (data.readUInt32BE(pos) !== MAGIC) break;
    const length = data.readUInt32BE(pos + 4);
    const checksum = data.readUInt32BE(pos + 8);
    const type = TYPE_OF_CODE.get(data[pos + 12]!);
    const end = pos + HEADER_BYTES + length;
    if (type === undefined || end > data.length) break;
    const body = data.subarray(pos + HEADER_BYTES, end);
    if (crc32(body) !== checksum) break;
    records.push({ type, body, at: pos + HEADER_BYTES });
    pos = end;
  }
  return records;
}

/** The persistent queue of one gateway. */
export class SpillLog implements SegmentOwner {
  readonly directory: string;
  readonly #maxBytes: number;
  readonly #segmentBytes: number;
  readonly #fsync: boolean;
  readonly #segments = new Set<Segment>();
  #active: { segment: Segment; file: FileHandle } | undefined;
  #nextSeq: number;
  #bytes = 0;
  /** Appends run one at a time: a failed one is truncated away before the next starts. */
  #writing: Promise<unknown> = Promise.resolve();
  #recovered: { path: string; bytes: number }[];
  #closed = false;

  private constructor(options: SpillLogOptions, existing: { path: string; seq: number; bytes: number }[]) {
    this.directory = options.directory;
    this.#maxBytes = options.maxBytes ?? 1024 * 1024 * 1024;
    this.#segmentBytes = options.segmentBytes ?? 4 * 1024 * 1024;
    this.#fsync = options.fsync ?? false;
    this.#recovered = existing.map(({ path, bytes }) => ({ path, bytes }));
    for (const { bytes } of existing) this.#bytes += bytes;
    this.#nextSeq = existing.reduce((max, s) => Math.max(max, s.seq), 0) + 1;
  }

  /**
   * Opens (creating) the directory and takes its lock. Throws
   * {@link SpillLogLockedError} when a live process holds it.
   */
  static open(options: SpillLogOptions): SpillLog {
    mkdirSync(options.directory, { recursive: true });
    const key = realpathSync(options.directory);
    if (OPENED.has(key))
      throw new SpillLogLockedError(
        `persistence.directory ${options.directory} is in use by another gateway in this process`,
      );
    const lock = join(options.directory, 'LOCK');
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(lock, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new SpillLogLockedError(`persistence.directory ${options.directory} is in use by process ${owner}`);
      }
      // A lock left by a process that died (SIGKILL, a crash): take it over.
      writeFileSync(lock, String(process.pid));
    }
    const existing = readdirSync(options.directory)
      .map((name) => ({ name, match: SEGMENT.exec(name) }))
      .filter((entry): entry is { name: string; match: RegExpExecArray } => entry.match !== null)
      .map(({ name, match }) => {
        const path = join(options.directory, name);
        return { path, seq: Number(match[1]), bytes: statSync(path).size };
      })
      .sort((a, b) => a.seq - b.seq);
    OPENED.add(key);
    return new SpillLog({ ...options, directory: key }, existing);
  }

  /** Bytes of segment files on disk. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Segments left by an earlier process that were not read back yet. */
  get recoveryPending(): number {
    return this.#recovered.length;
  }

  /**
   * Reads back the oldest segment an earlier process left, or undefined when
   * none is left. Its file is deleted once every record in it was admitted
   * and released.
   */
  recoverNext(): RecoveredRecord[] | undefined {
    const next = this.#recovered.shift();
    if (!next) return undefined;
    let data: Buffer;
    try {
      data = readFileSync(next.path);
    } catch {
      this.#bytes -= next.bytes;
      return [];
    }
    const segment = new Segment(next.path, next.bytes, this);
    segment.sealed = true;
    this.#segments.add(segment);
    const records = parseSegment(data);
    segment.records = records.length;
    segment.maybeFree();
    return records.map(({ type, body, at }) => ({
      type,
      body,
      admit: (spans: number) => new SpillRecord(segment, spans, at, body.length),
    }));
  }

  /**
   * Appends a request body holding `spans` spans. Resolves once it is written
   * (and synced with `fsync`); rejects when the disk refuses it (ENOSPC,
   * EFBIG, EIO…) or the log is full, leaving the log as it was.
   */
  append(type: SpillBodyType, body: Uint8Array, spans: number): Promise<SpillRecord> {
    const run = this.#writing.then(() => this.#append(type, body, spans));
    this.#writing = run.catch(() => undefined);
    return run;
  }

  async #append(type: SpillBodyType, body: Uint8Array, spans: number): Promise<SpillRecord> {
    if (this.#closed) throw new Error('persistent queue is closed');
    const size = HEADER_BYTES + body.length;
    if (this.#bytes + size > this.#maxBytes) {
      // Only a sealed segment is ever freed: sealing the active one lets it go once what it holds is delivered
      // (at once when it already was), or a queue smaller than a segment would refuse for ever.
      await this.#seal();
      if (this.#bytes + size > this.#maxBytes)
        throw new SpillLogFullError(`persistent queue holds ${this.#bytes} of ${this.#maxBytes} bytes`);
    }
    if (this.#active && this.#active.segment.bytes > 0 && this.#active.segment.bytes + size > this.#segmentBytes)
      await this.#seal();
    const active = this.#active ?? (await this.#startSegment());
    const header = Buffer.allocUnsafe(HEADER_BYTES);
    header.writeUInt32BE(MAGIC, 0);
    header.writeUInt32BE(body.length, 4);
    header.writeUInt32BE(crc32(body), 8);
    header[12] = TYPE_CODE[type];
    const at = active.segment.bytes;
    try {
      await active.file.writev([header, body], at);
      if (this.#fsync) await active.file.datasync();
    } catch (error) {
      // Leave no torn record behind (if even that fails, recovery stops at the
      // torn one), and seal the segment: a full disk frees only when sealed
      // segments are delivered and deleted, and later records go to a new file.
      try {
        await active.file.truncate(at);
      } catch {
        active.segment.bytes += size;
        this.#bytes += size;
      }
      await this.#seal();
      throw error;
    }
    active.segment.bytes += size;
    this.#bytes += size;
    active.segment.records += 1;
    return new SpillRecord(active.segment, spans, at + HEADER_BYTES, body.length);
  }

  async #startSegment(): Promise<{ segment: Segment; file: FileHandle }> {
    const path = join(this.directory, `segment-${String(this.#nextSeq++).padStart(16, '0')}.log`);
    const file = await open(path, 'w');
    // The new name must survive a power cut too, or its records would vanish with it.
    if (this.#fsync) syncDirectory(this.directory);
    const segment = new Segment(path, 0, this);
    this.#segments.add(segment);
    this.#active = { segment, file };
    return this.#active;
  }

  async #seal(): Promise<void> {
    const active = this.#active;
    if (!active) return;
    this.#active = undefined;
    await active.file.close().catch(() => undefined);
    active.segment.sealed = true;
    active.segment.maybeFree();
  }

  /** @internal A sealed segment whose records are all done: its file goes. */
  segmentFreed(segment: Segment): void {
    if (!this.#segments.delete(segment)) return;
    this.#bytes -= segment.bytes;
    try {
      unlinkSync(segment.path);
    } catch {
      // Already gone: nothing to free.
    }
  }

  /** Seals the active segment, syncs it, and releases the lock. What is not done stays on disk for the next start. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#writing;
    this.#closed = true;
    const active = this.#active;
    if (active) {
      await active.file.sync().catch(() => undefined);
      await this.#seal();
    }
    try {
      const lock = join(this.directory, 'LOCK');
      if (readFileSync(lock, 'utf8').trim() === String(process.pid)) unlinkSync(lock);
    } catch {
      // No lock to release.
    }
    OPENED.delete(this.directory);
  }
}

/** The persistent queue is at `persistence.maxBytes`. */
export class SpillLogFullError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SpillLogFullError';
  }
}

/** Syncs a directory entry (a new segment's name) where the platform allows it. */
export function syncDirectory(directory: string): void {
  try {
    const fd = openSync(directory, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Not every platform can fsync a directory; the file data is synced either way.
  }
}

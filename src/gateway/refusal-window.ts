/**
 * Until when senders the gateway refused with a retryable status may come
 * back, kept in the persistent queue's directory so that it survives a
 * restart: a new process that knew nothing of the refusals would judge a run
 * before its refused part is back (docs/gateway.md, "Late parts"). One small
 * file, replaced atomically, written at most once a second.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { diag } from '@opentelemetry/api';

const FILE = 'refused-senders-back-until';
/** How far ahead of the window each write records it, so that writes come at most about this often while it grows. */
const WRITE_EVERY_MILLIS = 1_000;

/** The refusal window of one gateway, persisted in `directory`. */
export class RefusalWindow {
  readonly #path: string;
  #written = 0;

  constructor(directory: string) {
    this.#path = join(directory, FILE);
  }

  /** The window an earlier process left (epoch ms), or 0 when none or unreadable. */
  load(): number {
    try {
      const until = Number(readFileSync(this.#path, 'utf8').trim());
      this.#written = Number.isFinite(until) && until > 0 ? until : 0;
    } catch {
      this.#written = 0;
    }
    return this.#written;
  }

  /** Records that refused senders may be back until `until` (epoch ms); never throws (a failed write is logged). */
  extend(until: number): void {
    if (until <= this.#written) return;
    // Written a throttle step ahead, so a window that grows between writes is never recorded short.
    this.#written = until + WRITE_EVERY_MILLIS;
    try {
      writeFileSync(`${this.#path}.tmp`, String(Math.ceil(this.#written)));
      renameSync(`${this.#path}.tmp`, this.#path);
    } catch (error) {
      diag.warn(
        `agent-incidents gateway: cannot record the refusal window in ${this.#path}: ${(error as Error).message}`,
      );
    }
  }
}

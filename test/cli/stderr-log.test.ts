/**
 * The CLI's diagnostic log (src/cli/stderr-log.ts): one JSON line per
 * message, with its level, time and message, and the arguments joined into
 * `detail` (an error by its message), none when there are none.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { jsonLinesLogger } from '../../src/cli/stderr-log.js';

function logged(write: (logger: ReturnType<typeof jsonLinesLogger>) => void): Record<string, unknown>[] {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  write(jsonLinesLogger(stream));
  return chunks.map((chunk) => {
    expect(chunk.endsWith('\n')).toBe(true);
    return JSON.parse(chunk) as Record<string, unknown>;
  });
}

describe('jsonLinesLogger', () => {
  it.each([
    ['error', 'no arguments: no detail', [], undefined],
    ['warn', 'an error, by its message', [new Error('disk full')], 'disk full'],
    ['info', 'strings and values, joined', ['port', { n: 1 }, 3], 'port {"n":1} 3'],
    ['debug', 'undefined, left out', [undefined, 'x'], 'x'],
  ] as const)('%s: %s', (level, _case, args, detail) => {
    const [line] = logged((logger) => logger[level]('message', ...args));
    expect(line).toMatchObject({ level, message: 'message' });
    expect(line?.['detail']).toBe(detail);
    expect(Number.isNaN(Date.parse(String(line?.['time'])))).toBe(false);
  });

  it('writes every level, one line each', () => {
    const lines = logged((logger) => {
      for (const level of ['error', 'warn', 'info', 'debug', 'verbose'] as const) logger[level](level);
    });
    expect(lines.map((l) => l['level'])).toEqual(['error', 'warn', 'info', 'debug', 'verbose']);
  });
});

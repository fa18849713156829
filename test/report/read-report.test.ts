/** The I/O edge of `report` (src/report/read-report.ts): lines from a byte stream, plain or gzip by its first bytes, split anywhere, long lines refused. */
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { OtlpJsonError } from '../../src/report/otlp-json-line.js';
import { GzipInputError, readReport } from '../../src/report/read-report.js';
import { dropsAfterBash, lineOf, readsThenAnswers, recordRun } from './otlp-lines.js';

/** `bytes` as a stream of chunks of `size` bytes. */
function chunked(bytes: Buffer, size: number): Readable {
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
  return Readable.from(parts);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

const text = async () =>
  `${lineOf(await recordRun(dropsAfterBash, { processor: true }))}\n\n${lineOf(await recordRun(readsThenAnswers, { processor: true }))}\n`;

describe('readReport', () => {
  it.each([
    ['in one chunk', 1 << 30],
    ['one byte at a time', 1],
    ['in 7-byte chunks', 7],
  ])('reads plain OTLP/JSON lines %s', async (_, size) => {
    const report = await readReport(chunked(Buffer.from(await text()), size));
    expect(report.input).toEqual({ lines: 3, spans: expect.any(Number), traces: 2 });
    expect(report.runs).toBe(2);
    expect(report.byOutcome).toEqual([
      ['failed', 1],
      ['success', 1],
    ]);
  });

  it.each([
    ['in one chunk', 1 << 30],
    ['with a first chunk of one byte', 1],
    ['in 5-byte chunks', 5],
  ])('gunzips input that starts with the gzip magic, %s', async (_, size) => {
    const plain = await readReport(Readable.from([Buffer.from(await text())]));
    const report = await readReport(chunked(gzipSync(await text()), size));
    expect(report.runs).toBe(2);
    expect(report.input).toEqual(plain.input);
    expect(report.byOutcome).toEqual(plain.byOutcome);
  });

  it('reads strings as well as buffers, and a last line without a line end', async () => {
    const lines = (await text()).trimEnd();
    async function* strings() {
      yield lines.slice(0, 10);
      yield lines.slice(10);
    }
    const report = await readReport(strings());
    expect([report.input.lines, report.runs]).toEqual([3, 2]);
  });

  it('keeps a multi-byte character split across chunks whole', async () => {
    const line = lineOf(await recordRun(dropsAfterBash, { processor: true, service: 'señal-服务' }));
    const report = await readReport(chunked(Buffer.from(line), 1));
    expect(report.incidents.map((r) => r.serviceName)).toEqual(['señal-服务']);
  });

  it.each([
    ['an empty stream', []],
    ['a single byte', [Buffer.from('\n')]],
    ['a gzip of nothing', [gzipSync('')]],
  ])('reads %s as no lines with a span', async (_, parts) => {
    const report = await readReport(Readable.from(parts));
    expect([report.runs, report.input.spans]).toEqual([0, 0]);
  });

  it('rejects with an OtlpJsonError naming the first line that is not OTLP/JSON', async () => {
    const error = await rejection(readReport(Readable.from([Buffer.from('{"resourceSpans":[]}\nnope\n')])));
    expect(error).toBeInstanceOf(OtlpJsonError);
    expect((error as OtlpJsonError).line).toBe(2);
  });

  it.each([
    ['a line ended within the stream', 'x'.repeat(50) + '\n', 1],
    ['a line still growing across chunks', '{"resourceSpans":[]}\n' + 'y'.repeat(50), 2],
    ['a last line without a line end', '{"resourceSpans":[]}\n{"resourceSpans":[],"z":"' + 'z'.repeat(20) + '"}', 2],
  ])('refuses %s longer than maxLineChars, naming it', async (_, input, line) => {
    const error = await rejection(readReport(chunked(Buffer.from(input), 8), { maxLineChars: 40 }));
    expect(error).toBeInstanceOf(OtlpJsonError);
    expect((error as OtlpJsonError).line).toBe(line);
    expect((error as Error).message).toBe(`line ${line}: line longer than 40 characters; not read`);
  });

  it('accepts a line exactly maxLineChars long', async () => {
    const line = '{"resourceSpans":[]}';
    const report = await readReport(chunked(Buffer.from(`${line}\n${line}`), 3), { maxLineChars: line.length });
    expect(report.input.lines).toBe(2);
  });

  it('rejects with a GzipInputError when input that starts like gzip is not', async () => {
    const gz = gzipSync(await text());
    for (const bad of [gz.subarray(0, gz.length / 2), Buffer.from([0x1f, 0x8b, 0, 1, 2, 3])]) {
      const error = await rejection(readReport(Readable.from([bad])));
      expect(error).toBeInstanceOf(GzipInputError);
      expect((error as Error).message.startsWith('not valid gzip: ')).toBe(true);
    }
  });
});

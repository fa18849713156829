/**
 * The I/O edge of `report`: reads OTLP/JSON lines from a byte stream (a file,
 * stdin), gunzipping it when it starts with the gzip magic bytes (1f 8b),
 * whatever its name, and feeds them to a {@link ReportBuilder} one line at a
 * time, so memory stays flat however large the input.
 */
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import { OtlpJsonError } from './otlp-json-line.js';
import type { ReportBuilderOptions } from './report-builder.js';
import { ReportBuilder } from './report-builder.js';
import type { IncidentReport } from './report-model.js';

/** The input could not be read as gzip although it starts like it (truncated, corrupt). */
export class GzipInputError extends Error {
  constructor(cause: unknown) {
    super(`not valid gzip: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'GzipInputError';
  }
}

const GZIP_MAGIC = [0x1f, 0x8b];

function isGzip(chunk: Buffer): boolean {
  return chunk.length >= 2 && chunk[0] === GZIP_MAGIC[0] && chunk[1] === GZIP_MAGIC[1];
}

/** The chunks of `input`, gunzipped when its first bytes say gzip. */
async function* bytesOf(input: AsyncIterable<Buffer | string>): AsyncGenerator<Buffer> {
  const iterator = input[Symbol.asyncIterator]();
  // The magic is two bytes; a first chunk of one byte (a slow pipe) waits for the next.
  let head = Buffer.alloc(0);
  let done = false;
  while (head.length < 2 && !done) {
    const next = await iterator.next();
    if (next.done) done = true;
    else head = Buffer.concat([head, typeof next.value === 'string' ? Buffer.from(next.value) : next.value]);
  }
  async function* rest(): AsyncGenerator<Buffer> {
    if (head.length > 0) yield head;
    if (done) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next())
      yield typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
  }
  if (!isGzip(head)) {
    yield* rest();
    return;
  }
  const gunzip = createGunzip();
  // Feed the gunzip by hand so its backpressure holds the input back, and its errors surface here.
  const feeding = (async () => {
    for await (const chunk of rest()) {
      if (!gunzip.write(chunk))
        await new Promise<void>((resolve, reject) => {
          const onDrain = () => {
            gunzip.off('error', onError);
            resolve();
          };
          const onError = (error: Error) => {
            gunzip.off('drain', onDrain);
            reject(error);
          };
          gunzip.once('drain', onDrain);
          gunzip.once('error', onError);
        });
    }
    gunzip.end();
  })();
  feeding.catch((error: unknown) => gunzip.destroy(error instanceof Error ? error : new Error(String(error))));
  try {
    for await (const chunk of gunzip) yield chunk as Buffer;
  } catch (error) {
    throw new GzipInputError(error);
  }
  await feeding;
}

/** The longest line read, in characters (UTF-16 code units; bytes for ASCII): a longer one is refused, not held. */
export const MAX_LINE_CHARS = 256 * 1024 * 1024;

/** Options of {@link readReport}. */
export interface ReadReportOptions extends ReportBuilderOptions {
  /** Longest line accepted, in characters. @default MAX_LINE_CHARS */
  readonly maxLineChars?: number;
}

/**
 * Reads OTLP/JSON lines (plain or gzip) from `input` into an
 * {@link IncidentReport}. Rejects with an OtlpJsonError naming the first line
 * that is not OTLP/JSON or is longer than `maxLineChars`, or a {@link GzipInputError}.
 * Each chunk is searched for line ends once: a long line costs time in its length, not its square.
 */
export async function readReport(
  input: Readable | AsyncIterable<Buffer | string>,
  options: ReadReportOptions = {},
): Promise<IncidentReport> {
  const builder = new ReportBuilder(options);
  const maxLine = options.maxLineChars ?? MAX_LINE_CHARS;
  const decoder = new StringDecoder('utf8');
  // The start of the line not ended yet, in pieces (joined once, when its end comes).
  let pieces: string[] = [];
  let pending = 0;
  const tooLong = () => new OtlpJsonError(builder.lines + 1, `line longer than ${maxLine} characters; not read`);
  const lineOf = (tail: string): string => {
    if (pending + tail.length > maxLine) throw tooLong();
    const line = pieces.length === 0 ? tail : pieces.join('') + tail;
    pieces = [];
    pending = 0;
    return line;
  };
  const feed = (text: string): void => {
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      builder.addLine(lineOf(text.slice(start, end)));
      start = end + 1;
    }
    if (start < text.length) {
      pending += text.length - start;
      if (pending > maxLine) throw tooLong();
      pieces.push(start === 0 ? text : text.slice(start));
    }
  };
  for await (const chunk of bytesOf(input as AsyncIterable<Buffer | string>)) feed(decoder.write(chunk));
  feed(decoder.end());
  if (pending > 0) builder.addLine(lineOf(''));
  return builder.finish();
}

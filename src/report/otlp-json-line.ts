/**
 * One line of an OTLP/JSON lines file (one `ExportTraceServiceRequest` per
 * line, as the collector's file exporter and `agent-incidents demo` write
 * them) decoded into spans, or an error that names the line.
 */
import type { DecodedSpan } from '../otlp/otlp-json-spans.js';
import { decodeOtlpJsonSpans, OtlpNestingError } from '../otlp/otlp-json-spans.js';

/** An error in an input line, with its 1-based line number. */
export class OtlpJsonError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'OtlpJsonError';
  }
}

/**
 * The spans of one line (`lineNumber` is 1-based, for the error). A blank
 * line has none; a line that is not such a request throws an {@link OtlpJsonError}.
 */
export function spansOfLine(raw: string, lineNumber: number): DecodedSpan[] {
  const line = raw.trim();
  if (line === '') return [];
  let request: unknown;
  try {
    request = JSON.parse(line);
  } catch {
    throw new OtlpJsonError(lineNumber, 'not valid JSON (expected one OTLP ExportTraceServiceRequest per line)');
  }
  if (request === null || typeof request !== 'object' || !('resourceSpans' in request)) {
    throw new OtlpJsonError(lineNumber, 'not an OTLP ExportTraceServiceRequest (no resourceSpans)');
  }
  try {
    return decodeOtlpJsonSpans(request);
  } catch (error) {
    if (error instanceof OtlpNestingError) throw new OtlpJsonError(lineNumber, error.message);
    throw error;
  }
}

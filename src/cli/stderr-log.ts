/**
 * The gateway CLI's log: OpenTelemetry diag messages (the gateway's drops,
 * upstream failures, persistence errors) written to stderr as JSON lines,
 * one object per line with `time`, `level` and `message`, so a log shipper
 * can read them. Warnings and errors only: the gateway logs nothing routine.
 */
import type { DiagLogger } from '@opentelemetry/api';
import { DiagLogLevel, diag } from '@opentelemetry/api';

function line(level: string, message: string, args: unknown[]): string {
  const detail = args
    .map((a) => (a instanceof Error ? a.message : typeof a === 'string' ? a : JSON.stringify(a)))
    .filter((a) => a !== undefined);
  return `${JSON.stringify({ time: new Date().toISOString(), level, message, ...(detail.length > 0 ? { detail: detail.join(' ') } : {}) })}\n`;
}

/** A diag logger that writes to `stream` (default stderr) as JSON lines. */
export function jsonLinesLogger(stream: NodeJS.WritableStream = process.stderr): DiagLogger {
  const write =
    (level: string) =>
    (message: string, ...args: unknown[]) => {
      stream.write(line(level, message, args));
    };
  return {
    error: write('error'),
    warn: write('warn'),
    info: write('info'),
    debug: write('debug'),
    verbose: write('verbose'),
  };
}

/** Sends diag's warnings and errors to stderr as JSON lines, for as long as the process runs. */
export function logDiagToStderr(): void {
  diag.setLogger(jsonLinesLogger(), { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
}

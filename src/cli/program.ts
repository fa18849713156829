// Over 300 lines: the command table (every command, its options and their parsers), kept together so
// that usage, help and exit codes read in one place.
/**
 * The `agent-incidents` command line: `demo` plays a simulated fleet through
 * the processor and writes OTLP/JSON; `report [file]` summarizes such a file
 * (or stdin, plain or gzip) as a table, `--json` or `--html`; `gateway
 * --config FILE` runs the OTLP gateway until SIGTERM or SIGINT; `receive`
 * writes the traces an app exports to such a file. Usage errors,
 * bad configuration and unreadable files print one line and exit with code 2.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { styleText } from 'node:util';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { logDiagToStderr } from './stderr-log.js';
import { renderIncidentPage } from '../report/html-page.js';
import { noSpansMessage, renderIncidentList, renderReportNotes } from '../report/incident-list.js';
import { OtlpJsonError } from '../report/otlp-json-line.js';
import { counted } from '../report/plural.js';
import { renderLostUsage } from '../report/lost-usage-table.js';
import { GzipInputError, readReport } from '../report/read-report.js';
import { REPORT_DEFAULTS } from '../report/report-builder.js';
import type { IncidentReport } from '../report/report-model.js';
import type { SummaryStyle } from '../report/summary-table.js';
import { PLAIN, renderSummary } from '../report/summary-table.js';

const USAGE_ERROR = 2;

/** A failure the user can fix; printed as one line, exit code 2. */
class UsageError extends Error {}

/** The demo ran but exporting to the requested endpoint failed; exit code 1. */
class ExportFailed extends Error {}

function positiveInt(name: string, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > max)
      throw new InvalidArgumentError(`${name} must be an integer from 1 to ${max}.`);
    return n;
  };
}

function viewerUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
    return value;
  } catch {
    throw new InvalidArgumentError('expected an http(s) URL such as http://127.0.0.1:16686.');
  }
}

function nonNegativeInt(name: string, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0 || n > max)
      throw new InvalidArgumentError(`${name} must be an integer from 0 to ${max}.`);
    return n;
  };
}

function endpoint(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
    return value;
  } catch {
    throw new InvalidArgumentError('expected an http(s) URL such as http://127.0.0.1:4318/v1/traces.');
  }
}

function styleFor(stream: NodeJS.WriteStream): SummaryStyle {
  if (!stream.isTTY || process.env.NO_COLOR) return PLAIN;
  return { colour: (colour, text) => styleText(colour === 'gray' ? 'gray' : colour, text) };
}

/** The package's version, read from its package.json at run time (two levels up from both src/cli and dist/cli). */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: unknown;
  };
  return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
}

/** Options of `report`. */
interface ReportOptions {
  json?: boolean;
  html?: string;
  jaegerUrl?: string;
  limit: number;
  show: number;
  maxSpans: number;
  idleLines: number;
}

/** The input of `report`: the file, or stdin for `-` or no file when stdin is piped. */
function reportInput(file: string | undefined): { stream: Readable; name: string } {
  if (file === undefined && process.stdin.isTTY)
    throw new UsageError('report: give an OTLP/JSON lines file, or pipe one in (`-` reads stdin)');
  if (file === undefined || file === '-') return { stream: process.stdin, name: 'stdin' };
  return { stream: createReadStream(file), name: file };
}

async function buildReport(file: string | undefined, opts: ReportOptions): Promise<IncidentReport> {
  const { stream, name } = reportInput(file);
  try {
    return await readReport(stream, { limit: opts.limit, maxSpans: opts.maxSpans, idleLines: opts.idleLines });
  } catch (error) {
    if (error instanceof OtlpJsonError || error instanceof GzipInputError)
      throw new UsageError(`${name}: ${error.message}`);
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code.startsWith('E')) throw new UsageError(`cannot read ${name}: ${code}`);
    throw error;
  } finally {
    if (stream !== process.stdin) stream.destroy();
  }
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Builds the command-line program (exported for tests). */
export function createProgram(): Command {
  const program = new Command()
    .name('agent-incidents')
    .description('See, explain and safely recover from interrupted AI-agent runs (OpenTelemetry).')
    .version(packageVersion(), '-V, --version', 'print the version')
    .exitOverride()
    .showSuggestionAfterError(false)
    .configureOutput({
      outputError: (text, write) => write(`agent-incidents: ${text.replace(/^error: /, '').trim()}\n`),
    });

  program
    .command('demo')
    .description('simulate a fleet of agent runs with injected faults, print the incident summary, write OTLP/JSON')
    .option('--runs <n>', 'runs to simulate', positiveInt('--runs', 100_000), 200)
    .option('--seed <n>', 'seed of the simulated faults', positiveInt('--seed', 2 ** 31 - 1), 1)
    .option('--out <file>', 'OTLP/JSON lines file to write', 'incidents.otlp.jsonl')
    .option('--otlp-endpoint <url>', 'also export the spans to this OTLP/HTTP traces endpoint', endpoint)
    .exitOverride()
    .action(async (opts: { runs: number; seed: number; out: string; otlpEndpoint?: string }) => {
      // Each command imports what it runs, when it runs: `--help`, `report`, `receive` and `gateway` need no tracing SDK.
      const [{ runDemo }, { TracingSdkMissingError }, { ProgressLine }] = await Promise.all([
        import('../demo/run-demo.js'),
        import('../demo/tracing-sdk.js'),
        import('../demo/progress-line.js'),
      ]);
      let result;
      // A bar on a terminal only: piped or redirected stderr gets no control characters.
      const progress = process.stderr.isTTY ? new ProgressLine(process.stderr, opts.runs, 'runs') : undefined;
      try {
        result = await runDemo({ ...opts, onProgress: progress && ((played) => progress.update(played)) });
      } catch (error) {
        if (error instanceof TracingSdkMissingError) throw new UsageError(error.message);
        throw new UsageError(`cannot write ${opts.out}: ${errorText(error)}`);
      } finally {
        progress?.done();
      }
      const style = styleFor(process.stdout);
      // What the injected faults cost, as `report` prints it (docs/attributes.md#lost-usage).
      const lost = renderLostUsage(result.report.lost, style);
      process.stdout.write([renderSummary(result.report, style), lost].filter((p) => p !== '').join('\n\n') + '\n\n');
      process.stdout.write(
        `wrote ${counted(result.spans, 'span')} in ${counted(result.traces, 'trace')} to ${opts.out} (OTLP/JSON, one ExportTraceServiceRequest per line)\n`,
      );
      if (opts.otlpEndpoint) {
        if (result.otlpError) throw new ExportFailed(`export to ${opts.otlpEndpoint} failed: ${result.otlpError}`);
        process.stdout.write(`exported to ${opts.otlpEndpoint}\n`);
      }
    });

  program
    .command('report')
    .description(
      'summarize an OTLP/JSON lines file (plain or gzip; `-` or a pipe: stdin); runs exported without a verdict are judged from their spans',
    )
    .argument('[file]', 'OTLP/JSON lines file, one ExportTraceServiceRequest per line; `-` for stdin')
    .option('--json', 'print the report as JSON (the IncidentReport of docs/cli.md) instead of the table')
    .option('--html <file>', 'also write the report as a self-contained HTML page')
    .option(
      '--jaeger-url <url>',
      'Jaeger UI address, e.g. http://127.0.0.1:16686: link each incident to its trace',
      viewerUrl,
    )
    .option(
      '--limit <n>',
      'incidents listed one by one (counts always cover all)',
      nonNegativeInt('--limit', 1_000_000),
      REPORT_DEFAULTS.limit,
    )
    .option('--show <n>', 'most recent incidents shown in the table', nonNegativeInt('--show', 1_000_000), 20)
    .option(
      '--max-spans <n>',
      'spans of unfinished traces held at most; over it the oldest trace is judged early',
      positiveInt('--max-spans', 100_000_000),
      REPORT_DEFAULTS.maxSpans,
    )
    .option(
      '--idle-lines <n>',
      'a trace with no span in this many lines is judged',
      positiveInt('--idle-lines', 100_000_000),
      REPORT_DEFAULTS.idleLines,
    )
    .exitOverride()
    .action(async (file: string | undefined, opts: ReportOptions) => {
      const report = await buildReport(file, opts);
      // Named as reportInput names it.
      const inputName = file === undefined || file === '-' ? 'stdin' : file;
      if (opts.html) {
        try {
          await writeFile(
            opts.html,
            renderIncidentPage(report, { jaegerUrl: opts.jaegerUrl, generatedAt: new Date(), inputName }),
          );
        } catch (error) {
          throw new UsageError(
            `cannot write ${opts.html}: ${(error as NodeJS.ErrnoException).code ?? errorText(error)}`,
          );
        }
      }
      // No span at all is not an error (an idle export is empty): said on stderr, exit code 0; stdout gets no table of zeros, but --json still its report.
      const noSpans = noSpansMessage(report, inputName);
      if (noSpans !== undefined) process.stderr.write(`agent-incidents report: ${noSpans}\n`);
      if (opts.json) {
        process.stdout.write(JSON.stringify(report, null, 2) + '\n');
        return;
      }
      const style = styleFor(process.stdout);
      const parts =
        noSpans !== undefined
          ? []
          : [
              renderSummary(report, style),
              renderLostUsage(report.lost, style),
              renderIncidentList(report, { count: opts.show, jaegerUrl: opts.jaegerUrl }, style),
              renderReportNotes(report),
            ];
      if (opts.html) parts.push(`wrote ${opts.html}`);
      if (parts.length > 0) process.stdout.write(parts.filter((p) => p !== '').join('\n\n') + '\n');
    });

  program
    .command('receive')
    .description(
      "listen for OTLP/HTTP traces (your app's exporter, unchanged) and append them to an OTLP/JSON lines file for `report`, until Ctrl-C",
    )
    .option('--out <file>', 'OTLP/JSON lines file to append to', 'traces.otlp.jsonl')
    .option('--port <n>', 'port to listen on (0: any free port)', nonNegativeInt('--port', 65_535), 4318)
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .exitOverride()
    .action(async (opts: { out: string; port: number; host: string }) => {
      const { startFileReceiver } = await import('../gateway/file-receiver.js');
      let receiver;
      try {
        receiver = await startFileReceiver(opts);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE')
          throw new UsageError(
            `cannot listen on ${opts.host}:${opts.port}: the port is taken (a collector or Jaeger already there? use --port)`,
          );
        throw new UsageError(`cannot receive into ${opts.out}: ${code ?? errorText(error)}`);
      }
      process.stderr.write(
        `agent-incidents receive: listening on ${receiver.url}/v1/traces, appending to ${opts.out}; Ctrl-C to stop\n`,
      );
      const counts = await new Promise<{ requests: number; spans: number }>((resolve) => {
        const stop = (): void => {
          process.off('SIGTERM', stop);
          process.off('SIGINT', stop);
          void receiver.close().then(resolve);
        };
        process.on('SIGTERM', stop);
        process.on('SIGINT', stop);
      });
      process.stderr.write(
        `agent-incidents receive: wrote ${counted(counts.spans, 'span')} in ${counted(counts.requests, 'request')} to ${opts.out}; next: agent-incidents report ${opts.out}\n`,
      );
    });

  program
    .command('gateway')
    .description('run the OTLP/HTTP gateway: fold and sanitize traces from any language, forward them upstream')
    .requiredOption('--config <file>', 'gateway configuration (YAML), see docs/gateway.md')
    .exitOverride()
    .action(async (opts: { config: string }) => {
      const [{ GatewayConfigError, loadGatewayConfig, workersOf }, { createGateway }, { SpillLogLockedError }] =
        await Promise.all([
          import('../gateway/config.js'),
          import('../gateway/gateway.js'),
          import('../gateway/spill-log.js'),
        ]);
      let gateway;
      // Drops (with their trace ids), upstream failures and persistence errors, as JSON lines on stderr.
      logDiagToStderr();
      try {
        gateway = await createGateway(loadGatewayConfig(opts.config));
      } catch (error) {
        if (error instanceof GatewayConfigError || error instanceof SpillLogLockedError)
          throw new UsageError(error.message);
        if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
          throw new UsageError(`cannot listen: ${errorText(error)}`);
        throw error;
      }
      process.stderr.write(
        `agent-incidents gateway: listening on ${gateway.url}/v1/traces, forwarding to ${gateway.config.upstream.endpoint}, ${workersOf(gateway.config)} worker thread(s)\n`,
      );
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          process.off('SIGTERM', stop);
          process.off('SIGINT', stop);
          // Held traces are folded and delivered before the process ends.
          void gateway.close().then(resolve);
        };
        process.on('SIGTERM', stop);
        process.on('SIGINT', stop);
      });
      process.stderr.write('agent-incidents gateway: flushed and stopped\n');
    });
  return program;
}

/** Runs the CLI with `argv` (user arguments only); resolves to the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    await createProgram().parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; every usage error is 2, with commander's one-line message already printed.
      return error.exitCode === 0 ? 0 : USAGE_ERROR;
    }
    if (error instanceof UsageError) {
      process.stderr.write(`agent-incidents: ${error.message}\n`);
      return USAGE_ERROR;
    }
    if (error instanceof ExportFailed) {
      process.stderr.write(`agent-incidents: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`agent-incidents: internal error: ${errorText(error)}\n`);
    return 1;
  }
}

/**
 * The `agent-incidents` command line: `demo` plays a simulated fleet through
 * the processor and writes OTLP/JSON; `report FILE` summarizes such a file;
 * `gateway --config FILE` runs the OTLP gateway until SIGTERM or SIGINT.
 * Usage errors, bad configuration and unreadable files print one line and
 * exit with code 2.
 */
import { readFile } from 'node:fs/promises';
import { styleText } from 'node:util';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { runDemo } from '../demo/run-demo.js';
import { GatewayConfigError, loadGatewayConfig } from '../gateway/config.js';
import { createGateway } from '../gateway/gateway.js';
import { SpillLogLockedError } from '../gateway/spill-log.js';
import { OtlpJsonError, runRowsFromOtlpJsonLines } from '../report/otlp-json.js';
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
    if (!Number.isInteger(n) || n < 1 || n > max) throw new InvalidArgumentError(`${name} must be an integer from 1 to ${max}.`);
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

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Builds the command-line program (exported for tests). */
export function createProgram(): Command {
  const program = new Command()
    .name('agent-incidents')
    .description('See, explain and safely recover from interrupted AI-agent runs (OpenTelemetry).')
    .exitOverride()
    .showSuggestionAfterError(false)
    .configureOutput({ outputError: (text, write) => write(`agent-incidents: ${text.replace(/^error: /, '').trim()}\n`) });

  program
    .command('demo')
    .description('simulate a fleet of agent runs with injected faults, print the incident summary, write OTLP/JSON')
    .option('--runs <n>', 'runs to simulate', positiveInt('--runs', 100_000), 200)
    .option('--seed <n>', 'seed of the simulated faults', positiveInt('--seed', 2 ** 31 - 1), 1)
    .option('--out <file>', 'OTLP/JSON lines file to write', 'incidents.otlp.jsonl')
    .option('--otlp-endpoint <url>', 'also export the spans to this OTLP/HTTP traces endpoint', endpoint)
    .exitOverride()
    .action(async (opts: { runs: number; seed: number; out: string; otlpEndpoint?: string }) => {
      let result;
      try {
        result = await runDemo(opts);
      } catch (error) {
        throw new UsageError(`cannot write ${opts.out}: ${errorText(error)}`);
      }
      process.stdout.write(renderSummary(result.rows, styleFor(process.stdout)) + '\n\n');
      process.stdout.write(`wrote ${result.spans} spans in ${result.traces} traces to ${opts.out} (OTLP/JSON, one ExportTraceServiceRequest per line)\n`);
      if (opts.otlpEndpoint) {
        if (result.otlpError) throw new ExportFailed(`export to ${opts.otlpEndpoint} failed: ${result.otlpError}`);
        process.stdout.write(`exported to ${opts.otlpEndpoint}\n`);
      }
    });

  program
    .command('report')
    .description('print the incident summary of an OTLP/JSON lines file; runs exported without a verdict are judged from their spans')
    .argument('<file>', 'OTLP/JSON lines file')
    .exitOverride()
    .action(async (file: string) => {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? errorText(error)}`);
      }
      try {
        const rows = runRowsFromOtlpJsonLines(text);
        process.stdout.write(renderSummary(rows, styleFor(process.stdout)) + '\n');
        const folded = rows.filter((r) => r.source === 'folded').length;
        if (folded > 0) process.stdout.write(`\n${folded} of ${rows.length} runs carried no verdict (exported without the processor or the gateway) and were judged here from their spans.\n`);
      } catch (error) {
        if (error instanceof OtlpJsonError) throw new UsageError(`${file}: ${error.message}`);
        throw error;
      }
    });

  program
    .command('gateway')
    .description('run the OTLP/HTTP gateway: fold and sanitize traces from any language, forward them upstream')
    .requiredOption('--config <file>', 'gateway configuration (YAML), see docs/gateway.md')
    .exitOverride()
    .action(async (opts: { config: string }) => {
      let gateway;
      try {
        gateway = await createGateway(loadGatewayConfig(opts.config));
      } catch (error) {
        if (error instanceof GatewayConfigError || error instanceof SpillLogLockedError) throw new UsageError(error.message);
        if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new UsageError(`cannot listen: ${errorText(error)}`);
        throw error;
      }
      process.stderr.write(`agent-incidents gateway: listening on ${gateway.url}/v1/traces, forwarding to ${gateway.config.upstream.endpoint}\n`);
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

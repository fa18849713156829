#!/usr/bin/env node
/** Entry point of the `agent-incidents` binary; see ./cli/program.ts. */
import { main } from './cli/program.js';

// A reader that stops early (`report --json | head`) closes the pipe: the output is no longer wanted, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await main(process.argv.slice(2));

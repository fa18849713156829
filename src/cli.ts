#!/usr/bin/env node
/** Entry point of the `agent-incidents` binary; see ./cli/program.ts. */
import { main } from './cli/program.js';

process.exitCode = await main(process.argv.slice(2));

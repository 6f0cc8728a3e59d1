#!/usr/bin/env node
// Runs the oclif CLI with the project's error contract: every failure is ONE line on stderr and
// exit 2 (oclif's own handler would print the usage block for an unknown flag, and a stack trace
// for anything unexpected).
import { fileURLToPath } from 'node:url';
import { installProcessGuards } from '../dist/cli/output.js';

const USAGE_OR_INPUT = 2;

// Before oclif loads, so a Ctrl-C during start-up already gets the interrupt handling.
installProcessGuards();
// Whatever escapes the commands' own handling still ends as one line, never a stack trace.
const crash = (err) => {
  fail(`internal error: ${firstLine(err)}`);
  process.exit(USAGE_OR_INPUT);
};
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);

const { main } = await import('../dist/cli/main.js');
await main(process.argv.slice(2), fileURLToPath(new URL('..', import.meta.url)));

function firstLine(err) {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n').find((l) => l.trim() !== '')?.trim() ?? 'unknown error';
}

function fail(message, code = USAGE_OR_INPUT) {
  process.stderr.write(`linkerd-doctor: ${message}\n`);
  process.exitCode = code;
}

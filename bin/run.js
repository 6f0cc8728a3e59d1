#!/usr/bin/env node
// Runs the oclif CLI with the project's error contract: every failure is ONE line on stderr and
// exit 2 (oclif's own handler would print the usage block for an unknown flag, and a stack trace
// for anything unexpected).
import { existsSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';

// Node 22.1+ keeps the compiled code of the modules it loads in its on-disk cache (a folder in the
// temporary directory; NODE_DISABLE_COMPILE_CACHE=1 turns it off), so a run after the first skips
// compiling them: a small analyze starts in 0.19 s instead of 0.22 on Node 22 and 24. Node 20 has
// no such cache; the call is skipped there.
module.enableCompileCache?.();

const USAGE_OR_INPUT = 2;

// A fresh clone has no dist/ until `npm run build` (npm ci no longer builds: installing the
// packed tarball must not run a build). Say so in one line instead of a module-not-found trace.
if (!existsSync(new URL('../dist/cli/output.js', import.meta.url))) {
  process.stderr.write(`linkerd-doctor: the CLI is not built; run \`npm run build\` in ${fileURLToPath(new URL('..', import.meta.url))}\n`);
  process.exit(USAGE_OR_INPUT);
}
const { installProcessGuards } = await import('../dist/cli/output.js');

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
  return (
    text
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? 'unknown error'
  );
}

function fail(message, code = USAGE_OR_INPUT) {
  process.stderr.write(`linkerd-doctor: ${message}\n`);
  process.exitCode = code;
}

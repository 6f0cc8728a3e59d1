// `npm test`: ESLint + dependency-cruiser, Prettier's check, the type check, the build and the unit
// tests. Lint, format check, type check and build start together; the unit tests start as soon as
// the build is done (they run the built CLI), while the checks may still be going. Run one after
// another, they left a core idle most of the time on a 2-core machine.
//
// Arguments go to the unit tests: `npm test -- test/rules/` checks everything and tests one area.
// `npm test -- --coverage` runs them under c8 instead (`npm run coverage`, the floor in .c8rc.json),
// so CI checks the floor without running the unit tests twice.
//
// Lint and type-check output is held back and printed when each finishes, so it does not interleave
// with the test report. Exit code: 0 when all four pass, otherwise the first failure's code.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs `npm run <script>`; `live` streams its output, otherwise it is printed once it exits. */
function run(script, live = false, args = []) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '--silent', script, ...(args.length > 0 ? ['--', ...args] : [])], {
      stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    });
    const chunks = [];
    if (!live) {
      child.stdout.on('data', (c) => chunks.push(c));
      child.stderr.on('data', (c) => chunks.push(c));
    }
    child.on('close', (code, signal) => {
      const status = code ?? (signal ? 1 : 0);
      const output = Buffer.concat(chunks).toString('utf8').trimEnd();
      if (output) process.stdout.write(`${output}\n`);
      console.log(`npm test: ${script} ${status === 0 ? 'passed' : `failed (exit ${status})`} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
      resolve(status);
    });
  });
}

const coverage = process.argv.includes('--coverage');
const unitArgs = process.argv.slice(2).filter((a) => a !== '--coverage');

const lint = run('lint');
const format = run('format:check');
const typecheck = run('typecheck');
const build = await run('build');
const unit = build === 0 ? run(coverage ? 'coverage' : 'test:unit', true, unitArgs) : Promise.resolve(build);
const codes = [await lint, await format, await typecheck, build, await unit];
process.exit(codes.find((c) => c !== 0) ?? 0);

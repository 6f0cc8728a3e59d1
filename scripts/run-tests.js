// Runs the test files with Node's test runner, several files at once.
//
//   node scripts/run-tests.js                  the unit tests: every test/**/*.test.ts but the
//                                              end-to-end suites below (npm run test:unit)
//   node scripts/run-tests.js --e2e            only the end-to-end suites (npm run test:e2e)
//   node scripts/run-tests.js --all            both (.ci/run on Node 22 and 24)
//   node scripts/run-tests.js test/rules/ test/cli/reports.test.ts
//                                              the files under these folders, or these files,
//                                              whichever set they belong to
//   node scripts/run-tests.js --list [--e2e]   print the files it would run, and run nothing
//   Other arguments starting with "-" go to `node --test`, written with "=" so their value is not
//   taken for a folder (--test-name-pattern=storm).
//
// Node 20's --test does not expand globs, so the files are listed here. Node runs test files in
// separate processes, by default availableParallelism() - 1 at a time: one file at a time on a
// 2-core machine, where most files spend their time waiting on a CLI they launched. TEST_CONCURRENCY
// overrides the count.
//
// A watchdog (scripts/test-watchdog.js) kills a CLI launch that runs past TEST_STALL_SECONDS (240)
// and prints what it was doing. If the run then failed only in the test files of such launches,
// those files run once more, and the second run decides the exit code; the stall is reported
// again at the end either way, so it is seen in a green run too.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import { STALL_SECONDS, watchForStalledCli } from './test-watchdog.js';

const FAILED_FILES_REPORTER = fileURLToPath(new URL('./test-failed-files.js', import.meta.url));

/**
 * End-to-end suites: they drive a real terminal (tmux), a browser (chromium), Prometheus's
 * promtool, npm installs, the GitHub Action's steps, a copy of the repository, or launch the built
 * CLI dozens of times per file. `npm run test:e2e` runs
 * them and `.ci/run` runs that after `npm test`. CPU seconds each, measured alone on Node 20
 * (4 December 2026, load 3-8); the 84 unit files take about 240 CPU seconds together.
 * The golden reports (31 s), the schema checks (18 s) and redaction (18 s) stay unit tests: they
 * are what a change to a report most often breaks.
 */
export const E2E_FILES = [
  'test/cli/reports.test.ts', // 68 s: every report flag and format through the built CLI
  'test/e2e/cli.test.ts', // 17 s: the CLI as a user runs it
  'test/e2e/ci-gate.test.ts', // 15 s: the CI gate walkthrough, a launch per step
  'test/e2e/terminal.test.ts', // tmux, 80x24
  'test/incident/html-browser.test.ts', // headless chromium renders the HTML report
  'test/meta/install.test.ts', // npm pack and two npm installs
  'test/meta/distribution.test.ts', // the container image (where Docker runs) and the action's steps
  'test/meta/test-watchdog.test.ts', // 20 s, mostly waiting: staged stalls, and this runner run inside itself
  'test/export/prometheus-rules.test.ts', // 39 s: Prometheus's promtool checks and unit-tests every exported alert
  'test/meta/scaffold.test.ts', // 36 s: a copy of the repository, a rule added to it, npm run generate and the meta-tests there
];

const OWN_FLAGS = ['--e2e', '--all', '--list'];
const passThrough = process.argv.slice(2).filter((a) => a.startsWith('-') && !OWN_FLAGS.includes(a));
const selectors = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const e2eOnly = process.argv.includes('--e2e');
const everything = process.argv.includes('--all');

const all = (await fg('test/**/*.test.ts', { ignore: ['**/node_modules/**'] })).sort();
for (const listed of E2E_FILES) {
  if (!all.includes(listed)) {
    console.error(`scripts/run-tests.js lists ${listed} as end-to-end, but there is no such test file`);
    process.exit(1);
  }
}

/** A selector is a test file, or a folder whose test files it means. */
const selected = (file) =>
  selectors.some((s) => {
    const wanted = path.normalize(s).replace(/\/$/, '');
    return file === wanted || file.startsWith(`${wanted}/`);
  });

const files =
  selectors.length > 0
    ? all.filter(selected)
    : everything
      ? all
      : e2eOnly
        ? all.filter((f) => E2E_FILES.includes(f))
        : all.filter((f) => !E2E_FILES.includes(f));
if (files.length === 0) {
  console.error(selectors.length > 0 ? `no test files under ${selectors.join(', ')}` : 'no test files found under test/');
  process.exit(1);
}

if (process.argv.includes('--list')) {
  process.stdout.write(`${files.join('\n')}\n`);
  process.exit(0);
}

const concurrency = Number(process.env.TEST_CONCURRENCY) || Math.max(2, availableParallelism());
const first = await runFiles(files);
const stalledFiles = [...new Set(first.stalled.map((s) => s.testFile).filter((f) => f !== null))].map((f) => path.resolve(f));
// A run that failed only in files where the watchdog killed a stalled CLI launch runs those files
// once more (scripts/test-watchdog.js says why); any other failure stands as it is.
const onlyWhereStalled =
  first.status !== 0 &&
  stalledFiles.length > 0 &&
  first.failed !== null &&
  first.failed.length > 0 &&
  first.failed.every((f) => stalledFiles.includes(path.resolve(f)));
let status = first.status;
if (onlyWhereStalled) {
  console.error(`\nrun-tests: the only failures were in ${stalledFiles.join(', ')}, where a stalled CLI launch was killed; running that once more\n`);
  status = (await runFiles(stalledFiles.map((f) => path.relative('.', f)))).status;
}
for (const s of first.stalled)
  console.error(
    `run-tests: a CLI launch stalled${s.testFile ? ` in ${s.testFile}` : ''} and was killed after ${STALL_SECONDS} s: ${s.args.join(' ')} (described above)`,
  );
process.exit(status);

/** Runs `node --test` on `testFiles` under the stall watchdog; `failed` lists the files with a failing test (null if unknown). */
async function runFiles(testFiles) {
  const report = path.join(mkdtempSync(path.join(tmpdir(), 'ld-test-run-')), 'failed-files.json');
  const ownReporters = passThrough.some((a) => a.startsWith('--test-reporter'))
    ? []
    : ['--test-reporter=spec', '--test-reporter-destination=stdout', `--test-reporter=${FAILED_FILES_REPORTER}`, `--test-reporter-destination=${report}`];
  const child = spawn(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...ownReporters, ...passThrough, ...testFiles], {
    stdio: 'inherit',
  });
  const stopWatching = watchForStalledCli(child.pid);
  const code = await new Promise((resolve) => child.on('close', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
  const stalled = stopWatching();
  let failed = null;
  try {
    failed = JSON.parse(readFileSync(report, 'utf8'));
  } catch {
    // No report (another reporter was asked for, or the runner died): unknown.
  }
  rmSync(path.dirname(report), { recursive: true, force: true });
  return { status: code, stalled, failed };
}

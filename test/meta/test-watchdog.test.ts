// The test runner's watchdog (scripts/test-watchdog.js): a CLI launch that never ends is described
// and killed instead of holding the run until CI's time limit, and a run that failed only there
// runs that file once more (scripts/run-tests.js).

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
// @ts-expect-error: a plain JavaScript script, without type declarations
import { watchForStalledCli } from '../../scripts/test-watchdog.js';

const linux = existsSync('/proc/self/stat');
const scratch = mkdtempSync(path.join(tmpdir(), 'ld-watchdog-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

interface Stall {
  args: string[];
  testFile: string | null;
  description: string;
}

function exitOf(child: ReturnType<typeof spawn>): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
}

describe('the stalled-launch watchdog', { skip: !linux && 'reads /proc' }, () => {
  it('describes and kills a CLI launch past the limit, and leaves other processes alone', async () => {
    const fakeCli = path.join(scratch, 'unit', 'bin', 'run.js');
    mkdirSync(path.dirname(fakeCli), { recursive: true });
    const cli = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', fakeCli], { stdio: 'ignore' });
    // As old as the CLI, but not a CLI launch: it must end on its own.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 4000)'], { stdio: 'ignore' });
    const printed: string[] = [];
    const logDir = path.join(scratch, 'unit', 'stalls');
    const stop = watchForStalledCli(process.pid, { limitSeconds: 1, checkEveryMs: 200, log: (t: string) => printed.push(t), logDir }) as () => Stall[];
    const [cliExit, otherExit] = await Promise.all([exitOf(cli), exitOf(other)]);
    const stalled = stop();
    assert.equal(cliExit.signal, 'SIGKILL');
    assert.deepEqual(otherExit, { code: 0, signal: null });
    assert.equal(stalled.length, 1);
    assert.ok(stalled[0]!.args.includes(fakeCli));
    const text = printed.join('');
    assert.match(text, new RegExp(`STALLED CLI launch, pid ${cli.pid}, running \\d+ s \\(limit 1 s\\)`));
    // An idle event loop: a wait, not a spin, with each thread's kernel state.
    assert.match(text, /state S, CPU [\d.]+ s in all, [\d.]+ s in the last [\d.]+ s \(waiting\)/);
    // The main thread is `node` on Node 20 and 22, `MainThread` on 24.
    assert.match(text, /threads \(name, state, kernel wait channel, syscall\):\n {4}\d+ \S+ S /);
    assert.match(text, /open files: 0->\/dev\/null/);
    // Kept in the log folder too, whole.
    assert.deepEqual(
      readdirSync(logDir).map((f) => readFileSync(path.join(logDir, f), 'utf8')),
      [text],
    );
    // Native stacks where gdb is installed (the machines this runs on have it; a developer's may not).
    if (spawnSync('gdb', ['--version']).status === 0)
      assert.match(text, /native stacks \(gdb\), arguments left out:\n {4}Thread \d+ [\s\S]*#\d+ 0x[0-9a-f]+ in uv_/);
  });

  const runTests = (env: Record<string, string>) => {
    // Without the runner's mark on this process, or the nested runner would skip its files.
    const { NODE_TEST_CONTEXT: _, ...outer } = process.env;
    return spawnSync(process.execPath, ['scripts/run-tests.js', 'test/meta/watchdog-subject.test.ts'], {
      encoding: 'utf8',
      // Its own log folder: these stalls are staged, not the CI run's.
      env: {
        ...outer,
        TEST_STALL_SECONDS: '1',
        TEST_STALL_CHECK_MS: '300',
        TEST_STALL_SAMPLE_MS: '200',
        TEST_STALL_GDB: '0',
        TEST_STALL_LOG_DIR: path.join(env.WATCHDOG_SUBJECT_DIR!, 'stalls'),
        ...env,
      },
    });
  };

  it('runs a file once more when its only failure was a killed stall, and says so', () => {
    const dir = path.join(scratch, 'once');
    mkdirSync(dir);
    const run = runTests({ WATCHDOG_SUBJECT_DIR: dir });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stderr, /STALLED CLI launch, pid \d+, .*launched by test\/meta\/watchdog-subject\.test\.ts; killing it/);
    assert.match(run.stderr, /the only failures were in .*watchdog-subject\.test\.ts, where a stalled CLI launch was killed; running that once more/);
    assert.match(run.stderr, /run-tests: a CLI launch stalled in test\/meta\/watchdog-subject\.test\.ts and was killed after 1 s: .*bin\/run\.js/);
    // The first run's failure is in the output, then the second run's pass.
    assert.match(run.stdout, /✖ waits for a CLI launch that may stall[\s\S]*✔ waits for a CLI launch that may stall/);
  });

  it('fails when the file stalls again', () => {
    const dir = path.join(scratch, 'always');
    mkdirSync(dir);
    const run = runTests({ WATCHDOG_SUBJECT_DIR: dir, WATCHDOG_SUBJECT_ALWAYS: '1' });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.equal(run.stderr.match(/STALLED CLI launch/g)?.length, 2);
    assert.equal(readdirSync(path.join(dir, 'stalls')).length, 2);
  });
});

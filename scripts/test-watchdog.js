// A watchdog over the CLI processes the tests launch (scripts/run-tests.js starts it).
//
// Why: on 6 December 2026 one CI run stalled for its whole 90 minutes on one `analyze` of a
// 1 KiB paste, launched by the golden-report test: it wrote nothing and never exited. The same
// launch, repeated about 2,700 times here (with and without coverage, three at a time), and four
// runs of the whole unit suite in a clone laid out as CI's never stalled. A test that waits on
// such a process waits forever, and so does Node's test runner (it has no per-file time limit):
// CI then ends on its own time limit with nothing to say where or why.
//
// So every few seconds this walks the process tree under the test run (Linux's /proc; elsewhere
// it does nothing) and finds the CLI launches (a command line with `bin/run.js`). One older than
// the limit (the slowest test on record, several launches, takes under a minute) is described on
// stderr, with what the kernel says each of its threads is doing, whether it is spinning or
// waiting, its open files and, where gdb is installed, its native stacks, and then killed. The
// test that launched it then fails with the CLI's exit by signal, and run-tests.js knows which
// test file that was.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { clearInterval, setInterval } from 'node:timers';

/** Seconds a CLI launch may run before it counts as stalled (TEST_STALL_SECONDS overrides). */
export const STALL_SECONDS = Number(process.env.TEST_STALL_SECONDS) || 240;
const CHECK_EVERY_MS = Number(process.env.TEST_STALL_CHECK_MS) || 5_000;
/** How long the CPU time is watched to tell a spinning process from a waiting one. */
const SAMPLE_MS = Number(process.env.TEST_STALL_SAMPLE_MS) || 2_000;
/** TEST_STALL_GDB=0 leaves out the native stacks (gdb takes seconds to attach). */
const WITH_GDB = process.env.TEST_STALL_GDB !== '0';
/** Clock ticks per second in /proc's times; 100 on every Linux this runs on (getconf CLK_TCK). */
const TICKS = 100;

/**
 * Starts watching the processes under `rootPid`. Returns `stop()`, which ends the watch and
 * returns what was killed: the CLI's command line, the test file it belongs to (or null) and the
 * description printed for it.
 */
export function watchForStalledCli(
  rootPid,
  { limitSeconds = STALL_SECONDS, checkEveryMs = CHECK_EVERY_MS, log = (text) => process.stderr.write(text), logDir = process.env.TEST_STALL_LOG_DIR } = {},
) {
  const stalled = [];
  if (!existsSync('/proc/self/stat')) return () => stalled;
  const handled = new Set();
  const timer = setInterval(() => {
    for (const proc of descendants(rootPid)) {
      if (handled.has(proc.pid) || !isCliLaunch(proc.args) || proc.ageSeconds < limitSeconds) continue;
      handled.add(proc.pid);
      const testFile = owningTestFile(proc.pid);
      const description = describeProcess(proc, testFile, limitSeconds);
      log(description);
      keep(logDir, description, proc.pid);
      try {
        process.kill(proc.pid, 'SIGKILL');
      } catch {
        // It ended while it was being described.
      }
      stalled.push({ args: proc.args, testFile, description });
    }
  }, checkEveryMs);
  return () => {
    clearInterval(timer);
    return stalled;
  };
}

/**
 * TEST_STALL_LOG_DIR (.ci/run sets it): each description is also written there, so a CI run whose
 * log is read only by its tail can still list them at its end, and a later session on the same
 * machine can read them whole.
 */
function keep(dir, description, pid) {
  if (!dir) return;
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `stall-${new Date().toISOString().replace(/[:.]/g, '-')}-${pid}.txt`), description);
  } catch {
    // The description is on stderr already.
  }
}

export function isCliLaunch(args) {
  return args.some((a) => a.endsWith('bin/run.js'));
}

/** /proc/PID/stat's fields after the command name, which may itself hold spaces and parentheses. */
function statFields(pid) {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

function uptimeSeconds() {
  return Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
}

function readProcess(pid, now) {
  try {
    const fields = statFields(pid);
    // After the name: state (3rd field of the line), ppid (4th), ..., utime (14th), stime (15th), starttime (22nd).
    return {
      pid,
      state: fields[0],
      ppid: Number(fields[1]),
      cpuSeconds: (Number(fields[11]) + Number(fields[12])) / TICKS,
      ageSeconds: now - Number(fields[19]) / TICKS,
      args: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean),
    };
  } catch {
    return null; // Gone meanwhile.
  }
}

function allProcesses() {
  const now = uptimeSeconds();
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readProcess(Number(name), now))
    .filter((p) => p !== null);
}

export function descendants(rootPid) {
  const all = allProcesses();
  const children = new Map();
  for (const p of all) {
    const siblings = children.get(p.ppid);
    if (siblings) siblings.push(p);
    else children.set(p.ppid, [p]);
  }
  const found = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/** The test file whose process launched `pid`: the nearest ancestor with a `*.test.ts` argument. */
function owningTestFile(pid) {
  const now = uptimeSeconds();
  for (let current = readProcess(pid, now); current !== null && current.pid > 1; current = readProcess(current.ppid, now)) {
    const file = current.args.find((a) => a.endsWith('.test.ts'));
    if (file) return path.relative('.', file);
  }
  return null;
}

function safely(read) {
  try {
    return read().trim();
  } catch (err) {
    return `(${err.code ?? err.message})`;
  }
}

/** `#3  0x... in uv_cond_wait (cond=..., mutex=...) at thread.c:793` without the parenthesised arguments. */
function withoutArguments(frame) {
  let out = '';
  let depth = 0;
  for (const ch of frame) {
    if (ch === '(') depth++;
    if (depth === 0) out += ch;
    if (ch === ')' && depth > 0) depth--;
  }
  return out.replace(/ {2,}/g, ' ');
}

function describeProcess(proc, testFile, limitSeconds) {
  const { pid } = proc;
  const lines = [
    '',
    `run-tests: STALLED CLI launch, pid ${pid}, running ${proc.ageSeconds.toFixed(0)} s (limit ${limitSeconds} s)${testFile ? `, launched by ${testFile}` : ''}; killing it`,
    `  command: ${proc.args.join(' ')}`,
  ];
  const before = proc.cpuSeconds;
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, SAMPLE_MS);
  const after = readProcess(pid, uptimeSeconds());
  const used = after ? after.cpuSeconds - before : 0;
  if (after)
    lines.push(
      `  state ${after.state}, CPU ${after.cpuSeconds.toFixed(2)} s in all, ${used.toFixed(2)} s in the last ${SAMPLE_MS / 1000} s (${used > SAMPLE_MS / 2000 ? 'spinning' : 'waiting'})`,
    );
  const status = safely(() => readFileSync(`/proc/${pid}/status`, 'utf8'));
  lines.push(
    `  ${status
      .split('\n')
      .filter((l) => /^(Threads|VmRSS|SigBlk|SigCgt|voluntary_ctxt_switches)/.test(l))
      .join('; ')}`,
  );
  lines.push('  threads (name, state, kernel wait channel, syscall):');
  for (const tid of safely(() => readdirSync(`/proc/${pid}/task`).join(' ')).split(' ')) {
    const task = `/proc/${pid}/task/${tid}`;
    const state = safely(() => statFields(`${pid}/task/${tid}`)[0]);
    const syscall = safely(() => readFileSync(`${task}/syscall`, 'utf8')).split(' ')[0];
    lines.push(`    ${tid} ${safely(() => readFileSync(`${task}/comm`, 'utf8'))} ${state} ${safely(() => readFileSync(`${task}/wchan`, 'utf8'))} ${syscall}`);
  }
  const fds = safely(() =>
    readdirSync(`/proc/${pid}/fd`)
      .map((fd) => `${fd}->${safely(() => readlinkSync(`/proc/${pid}/fd/${fd}`))}`)
      .join(' '),
  );
  lines.push(`  open files: ${fds}`);
  const gdb = WITH_GDB ? spawnSync('gdb', ['-p', String(pid), '-batch', '-nx', '-ex', 'thread apply all bt 16'], { encoding: 'utf8', timeout: 60_000 }) : null;
  if (gdb && gdb.error === undefined && gdb.stdout) {
    lines.push('  native stacks (gdb), arguments left out:');
    for (const l of gdb.stdout.split('\n').filter((l) => /^(Thread|#)/.test(l))) lines.push(`    ${withoutArguments(l)}`);
  }
  return `${lines.join('\n')}\n\n`;
}
